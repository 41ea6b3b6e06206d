import { Schema } from "effect"
import { CommentStatus, MAX_COMMENT_IDS_PER_STATUS_BATCH, MAX_COMMENT_LENGTH } from "./domain/Artifact.js"
import { ArtifactCommentId } from "./domain/Ids.js"
import { ArtifactIdArgument, CommentThread, LostCommentIds, Snippet, WellFormedText } from "./Artifacts.js"
import * as Tool from "./Tool.js"

const CommentContent = WellFormedText.pipe(
  Schema.filter((text) => text.trim().length > 0, { message: () => "must not be blank" }),
  Schema.maxLength(MAX_COMMENT_LENGTH, { message: () => `must be at most ${MAX_COMMENT_LENGTH} characters` })
).annotations({ description: `Markdown, not blank, at most ${MAX_COMMENT_LENGTH} characters` })

const CommentIdArgument = ArtifactCommentId.annotations({ description: "An artifact comment's ID (acomment_…)" })

export const ListArtifactComments = Tool.make("list_artifact_comments", {
  title: "List an artifact's comment threads",
  description: "Lists an artifact's comment threads, oldest first: each root comment with its anchor (the snippet and where it is now; " +
    "anchorLost when the snippet is gone from the content), status and flat replies. `status` keeps only open or resolved threads.",
  input: Schema.Struct({
    artifactId: ArtifactIdArgument,
    status: Schema.optional(CommentStatus.annotations({ description: "Default: all threads" }))
  }),
  output: Schema.Struct({ threads: Schema.Array(CommentThread) }),
  annotations: { readOnly: true, destructive: false, idempotent: true }
})

export const CreateArtifactComment = Tool.make("create_artifact_comment", {
  title: "Comment on a snippet of an artifact",
  description: "Opens a comment thread anchored to an exact snippet of a markdown artifact (whitespace, newlines and casing must match); " +
    "`occurrence` picks which match (1-based, default 1). The server stores the anchor with its surroundings so it follows " +
    "later edits. Fails when the snippet is not found, the occurrence is beyond the matches, or the artifact is html.",
  input: Schema.Struct({
    artifactId: ArtifactIdArgument,
    content: CommentContent,
    anchorText: Snippet.annotations({ description: "The exact snippet of the content to comment on" }),
    occurrence: Schema.optional(
      Schema.Int.pipe(Schema.greaterThanOrEqualTo(1, { message: () => "must be an integer of at least 1" }))
        .annotations({ default: 1, description: "Which match of anchorText, 1-based" })
    )
  }),
  output: CommentThread,
  annotations: { readOnly: false, destructive: false, idempotent: false }
})

export const ReplyToArtifactComment = Tool.make("reply_to_artifact_comment", {
  title: "Reply to an artifact comment thread",
  description: "Adds a reply to a thread, named by its root comment. Replies are flat: replying to a reply fails.",
  input: Schema.Struct({ commentId: CommentIdArgument, content: CommentContent }),
  output: Schema.Struct({
    commentId: Schema.String.annotations({ description: "The new reply's ID" }),
    threadId: Schema.String.annotations({ description: "The root comment replied to" }),
    artifactId: Schema.String
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false }
})

export const SetArtifactCommentStatus = Tool.make("set_artifact_comment_status", {
  title: "Resolve or reopen artifact comment threads",
  description: `Sets the status of 1–${MAX_COMMENT_IDS_PER_STATUS_BATCH} threads (root comment IDs) at once, atomically: if one ID is ` +
    "unknown, a reply, or out of the caller's reach, nothing changes. A reopened thread is first re-anchored to the current content.",
  input: Schema.Struct({
    commentIds: Schema.Array(CommentIdArgument).pipe(
      Schema.minItems(1, { message: () => "must name at least one comment" }),
      Schema.maxItems(MAX_COMMENT_IDS_PER_STATUS_BATCH, { message: () => `must name at most ${MAX_COMMENT_IDS_PER_STATUS_BATCH} comments` })
    ),
    status: CommentStatus
  }),
  output: Schema.Struct({
    commentIds: Schema.Array(Schema.String),
    status: CommentStatus,
    lostCommentIds: LostCommentIds.annotations({
      description: "Reopened threads whose snippet is no longer in the content (kept, with anchorLost: true); empty when resolving"
    })
  }),
  annotations: { readOnly: false, destructive: false, idempotent: true }
})

export const SendArtifactComments = Tool.make("send_artifact_comments", {
  title: "Send an artifact's open comment threads to a thread",
  description:
    "Sends the open comment threads of an artifact to one of your threads as one user message (each thread's quoted snippet, its comment, " +
    "replies and commentId; a thread whose snippet was edited away says so), queued like send_thread_message: an idle thread becomes pending, " +
    "a busy one reads it on its next turn. The receiving agent replies with reply_to_artifact_comment and resolves with " +
    "set_artifact_comment_status. Fails when the artifact has no open thread, or the thread is in another project.",
  input: Schema.Struct({
    artifactId: ArtifactIdArgument,
    threadId: Schema.String.pipe(Schema.minLength(1, { message: () => "must not be empty" }))
      .annotations({ description: "The thread (one of yours, in the artifact's project) that receives the message" })
  }),
  output: Schema.Struct({
    messageId: Schema.String,
    threadId: Schema.String,
    commentIds: Schema.Array(Schema.String).annotations({ description: "The open threads sent, in document order" })
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false }
})
