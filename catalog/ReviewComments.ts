import { Schema } from "effect"
import {
  DiffSide,
  LineNumber,
  MAX_REVIEW_DRAFTS,
  MAX_REVIEW_RANGE,
  Resolution,
  ReviewBody,
  ReviewComment,
  ReviewPath,
  ReviewStatus
} from "./domain/ReviewComment.js"
import { ReviewCommentId } from "./domain/Ids.js"
import * as Tool from "./Tool.js"

const ThreadIdArgument = Schema.String.pipe(Schema.minLength(1, { message: () => "must not be empty" }))
const CommentIdArgument = ReviewCommentId.annotations({ description: "A review comment's ID (review_…)" })

export const ListReviewComments = Tool.make("list_review_comments", {
  title: "List the review comments on a thread's changes",
  description:
    "The review comments on a thread's changes, oldest first: each with the file, the lines and the quoted lines it was written on, " +
    "its body, its status (draft, open, resolved), where the quoted lines are in the latest change report (placement) and " +
    "maybeAddressed when a later report changed them. Sent comments (open and resolved) by default; drafts are listed to their author " +
    "only, with includeDrafts or status draft. Read them when a review arrives, " +
    "then resolve each with resolve_review_comment saying what you did.",
  input: Schema.Struct({
    threadId: ThreadIdArgument,
    status: Schema.optional(ReviewStatus.annotations({ description: "Only comments of this status" })),
    includeDrafts: Schema.optionalWith(Schema.Boolean, { default: () => false }).annotations({
      description: "Also your own drafts (default: only sent comments)"
    })
  }),
  output: Schema.Struct({ comments: Schema.Array(ReviewComment) }),
  annotations: { readOnly: true, destructive: false, idempotent: true }
})

export const SaveReviewComment = Tool.make("save_review_comment", {
  title: "Save a draft review comment",
  description:
    `Saves a draft comment on lines of one file of a thread's change report: \`side\` additions numbers lines as the new file, deletions as the old one; ` +
    `startLine..endLine (at most ${MAX_REVIEW_RANGE} lines) must be in one hunk of the file's diff. The lines are quoted from the patch so the comment ` +
    `can be placed again on later reports. Without commentId it creates a draft (at most ${MAX_REVIEW_DRAFTS} per person and thread); with one it ` +
    "replaces that draft's body. Drafts reach the thread only with send_review.",
  input: Schema.Struct({
    threadId: ThreadIdArgument,
    commentId: Schema.optional(CommentIdArgument.annotations({ description: "A draft of yours to rewrite: only body changes" })),
    reportId: Schema.optional(Schema.String.annotations({ description: "The change report the lines are from; default the latest" })),
    path: Schema.optional(ReviewPath),
    side: Schema.optionalWith(DiffSide, { default: () => "additions" as const }),
    startLine: Schema.optional(LineNumber),
    endLine: Schema.optional(LineNumber.annotations({ description: "Default startLine" })),
    body: ReviewBody
  }),
  output: ReviewComment,
  annotations: { readOnly: false, destructive: false, idempotent: false }
})

export const DiscardReviewComment = Tool.make("discard_review_comment", {
  title: "Discard a draft review comment",
  description: "Deletes one of your draft review comments. A sent comment is never deleted: resolve it instead.",
  input: Schema.Struct({ commentId: CommentIdArgument }),
  output: Schema.Struct({ commentId: ReviewCommentId }),
  annotations: { readOnly: false, destructive: true, idempotent: false }
})

export const SendReview = Tool.make("send_review", {
  title: "Send your review to the thread",
  description:
    "Sends all your draft review comments on a thread as one user message (each as path:lines, the quoted lines and the comment), queued like " +
    "send_thread_message: an idle thread becomes pending, a busy one reads it on its next turn. The drafts become open comments; if the send " +
    "fails they stay drafts. Fails when you have no drafts on the thread.",
  input: Schema.Struct({ threadId: ThreadIdArgument }),
  output: Schema.Struct({ messageId: Schema.String, threadId: Schema.String, comments: Schema.Array(ReviewComment) }),
  annotations: { readOnly: false, destructive: false, idempotent: false }
})

export const ResolveReviewComment = Tool.make("resolve_review_comment", {
  title: "Resolve a review comment",
  description:
    "Marks a sent review comment resolved, with what was done about it (resolution), or open again with resolved: false. A draft cannot be resolved. " +
    "An agent that received a review resolves each comment it addressed.",
  input: Schema.Struct({
    commentId: CommentIdArgument,
    resolved: Schema.optionalWith(Schema.Boolean, { default: () => true }),
    resolution: Schema.optional(Resolution)
  }),
  output: ReviewComment,
  annotations: { readOnly: false, destructive: false, idempotent: true }
})
