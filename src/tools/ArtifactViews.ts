import type { ArtifactRow } from "../services/Artifacts.js"
import type { CommentRow, ThreadRows } from "../services/ArtifactComments.js"

/** How artifacts and their comment threads appear in tool results. */

export const artifactSummary = (row: ArtifactRow) => ({
  artifactId: row.id,
  name: row.name,
  contentType: row.contentType,
  runId: row.runId,
  updatedAt: row.updatedAt.toISOString(),
  openCommentCount: row.openCommentCount
})

export const artifactView = (row: ArtifactRow) => ({
  ...artifactSummary(row),
  taskId: row.taskId,
  content: row.content,
  authorId: row.authorId,
  authorName: row.authorName,
  createdAt: row.createdAt.toISOString()
})

const commentView = (row: CommentRow) => ({
  commentId: row.commentId,
  authorId: row.authorId,
  authorName: row.authorName,
  content: row.content,
  createdAt: row.createdAt.toISOString(),
  isEdited: row.isEdited
})

export const threadView = ({ replies, root }: ThreadRows) => ({
  ...commentView(root),
  status: root.status,
  anchorText: root.anchorText,
  anchorStart: root.anchorLost ? null : root.anchorStart,
  anchorEnd: root.anchorLost ? null : root.anchorEnd,
  anchorLost: root.anchorLost,
  replies: replies.map(commentView)
})
