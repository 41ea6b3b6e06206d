import { Schema } from "effect"
import {
  ArtifactContentType,
  ArtifactSummary,
  CommentStatus,
  MAX_ARTIFACT_CONTENT_LENGTH,
  MAX_ARTIFACT_NAME_LENGTH,
  MAX_RUN_ID_LENGTH
} from "./domain/Artifact.js"
import { hasLoneSurrogate } from "./domain/Anchor.js"
import { ArtifactId } from "./domain/Ids.js"
import { TaskAddress } from "./Tasks.js"
import * as Tool from "./Tool.js"

// ---- arguments -------------------------------------------------------------------------------

/**
 * Text that PostgreSQL can store as given: an unpaired UTF-16 surrogate has no UTF-8 encoding, so
 * it would be read back changed (and breaks the JSON that re-anchoring sends).
 */
export const WellFormedText = Schema.String.pipe(
  Schema.filter((text) => !hasLoneSurrogate(text), { message: () => "must not split a character (it holds an unpaired UTF-16 surrogate)" })
)

/** A non-empty exact snippet of an artifact's content (to replace, or to anchor a comment to). */
export const Snippet = WellFormedText.pipe(Schema.minLength(1, { message: () => "must not be empty" }))

export const ArtifactIdArgument = ArtifactId.annotations({ description: "The artifact's ID (artifact_…)" })

const ArtifactName = WellFormedText.pipe(
  Schema.filter((name) => name.trim().length > 0, { message: () => "must not be blank" }),
  Schema.maxLength(MAX_ARTIFACT_NAME_LENGTH, { message: () => `must be at most ${MAX_ARTIFACT_NAME_LENGTH} characters` })
).annotations({ description: `The artifact's title, 1–${MAX_ARTIFACT_NAME_LENGTH} characters, trimmed` })

const Content = WellFormedText.pipe(
  Schema.maxLength(MAX_ARTIFACT_CONTENT_LENGTH, { message: () => `must be at most ${MAX_ARTIFACT_CONTENT_LENGTH} characters` })
).annotations({ description: `The document, at most ${MAX_ARTIFACT_CONTENT_LENGTH} characters` })

const RunId = WellFormedText.pipe(
  Schema.minLength(1, { message: () => "must not be empty" }),
  Schema.maxLength(MAX_RUN_ID_LENGTH, { message: () => `must be at most ${MAX_RUN_ID_LENGTH} characters` })
).annotations({ description: "Provenance: the run (e.g. a thread ID) that produced the artifact" })

// ---- results ---------------------------------------------------------------------------------

export const Reply = Schema.Struct({
  commentId: Schema.String,
  authorId: Schema.String,
  authorName: Schema.String,
  content: Schema.String.annotations({ description: "Markdown" }),
  createdAt: Schema.String,
  isEdited: Schema.Boolean
}).annotations({ identifier: "ArtifactCommentReply" })

export const CommentThread = Schema.Struct({
  commentId: Schema.String.annotations({ description: "The root comment's ID; the thread is addressed by it" }),
  status: CommentStatus,
  anchorText: Schema.String.annotations({ description: "The exact snippet the thread is anchored to" }),
  anchorStart: Schema.NullOr(Schema.Number).annotations({
    description: "Offset (UTF-16 code units) of the snippet in the content; kept current for open threads, as last seen for " +
      "resolved ones; null when anchorLost"
  }),
  anchorEnd: Schema.NullOr(Schema.Number).annotations({ description: "Offset just after the snippet; null when anchorLost" }),
  anchorLost: Schema.Boolean.annotations({ description: "The snippet is no longer in the content; the thread is kept" }),
  authorId: Schema.String,
  authorName: Schema.String,
  content: Schema.String.annotations({ description: "Markdown" }),
  createdAt: Schema.String,
  isEdited: Schema.Boolean,
  replies: Schema.Array(Reply).annotations({ description: "Flat replies, oldest first" })
}).annotations({ identifier: "ArtifactCommentThread" })

/** A row of list_task_artifacts: the summary get_task shows, plus where it is and who wrote it. */
export const ArtifactListItem = Schema.Struct({
  ...ArtifactSummary.fields,
  taskId: Schema.String,
  authorName: Schema.String,
  createdAt: Schema.String
}).annotations({ identifier: "ArtifactListItem" })

export const Artifact = Schema.Struct({
  ...ArtifactListItem.fields,
  authorId: Schema.String,
  content: Schema.String,
  comments: Schema.optional(
    Schema.Array(CommentThread).annotations({ description: "With includeComments: the threads, as list_artifact_comments gives them" })
  )
}).annotations({ identifier: "Artifact" })

/** Threads a change left without their snippet: kept, with anchorLost: true. */
export const LostCommentIds = Schema.Array(Schema.String)

const ContentWritten = {
  artifactId: Schema.String,
  updatedAt: Schema.String,
  lostCommentIds: LostCommentIds.annotations({
    description: "Open threads whose snippet is no longer in the content after this change (kept, with anchorLost: true)"
  })
}

const readOnly = { readOnly: true, destructive: false, idempotent: true } as const

// ---- tools -----------------------------------------------------------------------------------

export const ListTaskArtifacts = Tool.make("list_task_artifacts", {
  title: "List a task's artifacts",
  description: "Lists the document artifacts of a task, oldest first, without their content.",
  input: Schema.Struct({ taskId: TaskAddress, projectId: Tool.ProjectIdForRefsArgument }),
  output: Schema.Struct({ artifacts: Schema.Array(ArtifactListItem) }),
  annotations: readOnly
})

export const GetTaskArtifact = Tool.make("get_task_artifact", {
  title: "Get an artifact",
  description: "Returns an artifact with its content. `includeComments` adds its comment threads (shaped as list_artifact_comments " +
    "gives them); `commentsStatus` keeps only open or only resolved threads.",
  input: Schema.Struct({
    artifactId: ArtifactIdArgument,
    includeComments: Schema.optional(Schema.Boolean.annotations({ default: false })),
    commentsStatus: Schema.optional(CommentStatus.annotations({ description: "Only with includeComments; default: all threads" }))
  }),
  output: Artifact,
  annotations: readOnly
})

export const CreateTaskArtifact = Tool.make("create_task_artifact", {
  title: "Create an artifact on a task",
  description: "Adds a document to a task. `contentType` is markdown (default) or html, and cannot change later; html renders " +
    "read-only and takes no comments. `runId` records which run produced it.",
  input: Schema.Struct({
    taskId: TaskAddress,
    projectId: Tool.ProjectIdForRefsArgument,
    name: ArtifactName,
    content: Schema.optional(Content.annotations({ default: "" })),
    contentType: Schema.optional(ArtifactContentType.annotations({ default: "markdown" })),
    runId: Schema.optional(RunId)
  }),
  output: Schema.Struct({ artifactId: Schema.String, taskId: Schema.String }),
  annotations: { readOnly: false, destructive: false, idempotent: false }
})

export const UpdateTaskArtifact = Tool.make("update_task_artifact", {
  title: "Update an artifact",
  description: "Changes the given fields only; `runId: null` clears it. The content type cannot change. New content moves each open " +
    "comment thread to where its snippet now is; a thread whose snippet is gone is kept with anchorLost: true.",
  input: Schema.Struct({
    artifactId: ArtifactIdArgument,
    name: Schema.optional(ArtifactName),
    content: Schema.optional(Content),
    runId: Schema.optional(Schema.NullOr(RunId))
  }),
  output: Schema.Struct(ContentWritten),
  annotations: { readOnly: false, destructive: false, idempotent: true }
})

export const ReplaceInTaskArtifact = Tool.make("replace_in_task_artifact", {
  title: "Replace text in an artifact",
  description: "Swaps an exact string of the content (whitespace, newlines and casing must match) for `newString` (empty deletes it). " +
    "Without `replaceAll` the string must occur exactly once; zero or several matches fail, saying how many were found. " +
    "Open comment threads follow their snippets, as with update_task_artifact.",
  input: Schema.Struct({
    artifactId: ArtifactIdArgument,
    oldString: Snippet.annotations({ description: "The exact text to replace; whitespace, newlines and casing must match" }),
    newString: WellFormedText,
    replaceAll: Schema.optional(Schema.Boolean.annotations({ default: false }))
  }),
  output: Schema.Struct({ ...ContentWritten, replacements: Schema.Number }),
  annotations: { readOnly: false, destructive: false, idempotent: false }
})

export const MoveTaskArtifact = Tool.make("move_task_artifact", {
  title: "Move an artifact to another task",
  description: "Moves an artifact, with its comment threads, to another task of the same project (ID or ref). A bare ref resolves in " +
    "`projectId`, else the URL's ?project=, else the artifact's own project. Moving across projects is refused.",
  input: Schema.Struct({
    artifactId: ArtifactIdArgument,
    taskId: TaskAddress.annotations({ description: "The target task: ID, ref or scoped ref, in the artifact's project" }),
    projectId: Tool.ProjectIdForRefsArgument
  }),
  output: Schema.Struct({ artifactId: Schema.String, taskId: Schema.String }),
  annotations: { readOnly: false, destructive: false, idempotent: true }
})

export const DeleteTaskArtifact = Tool.make("delete_task_artifact", {
  title: "Delete an artifact",
  description: "Deletes an artifact for good, with all its comment threads.",
  input: Schema.Struct({ artifactId: ArtifactIdArgument }),
  output: Schema.Struct({ artifactId: Schema.String, deletedCommentCount: Schema.Number }),
  annotations: { readOnly: false, destructive: true, idempotent: false }
})
