import { Schema } from "effect"

export const ArtifactContentType = Schema.Literal("markdown", "html")
export type ArtifactContentType = typeof ArtifactContentType.Type

export const CommentStatus = Schema.Literal("open", "resolved")
export type CommentStatus = typeof CommentStatus.Type

export const MAX_ARTIFACT_NAME_LENGTH = 200
/** Characters; well under the 4 MB request cap even when every character is JSON-escaped. */
export const MAX_ARTIFACT_CONTENT_LENGTH = 1_000_000
export const MAX_RUN_ID_LENGTH = 200
export const MAX_COMMENT_LENGTH = 20_000
export const MAX_COMMENT_IDS_PER_STATUS_BATCH = 100

/** What `get_task` shows of each of the task's artifacts. */
export const ArtifactSummary = Schema.Struct({
  artifactId: Schema.String,
  name: Schema.String,
  contentType: ArtifactContentType,
  runId: Schema.NullOr(Schema.String),
  updatedAt: Schema.String,
  openCommentCount: Schema.Number.annotations({ description: "Open comment threads (anchor lost or not)" })
}).annotations({ identifier: "ArtifactSummary" })
export type ArtifactSummary = typeof ArtifactSummary.Type
