import type { ArtifactRow, ArtifactSummaryRow } from "./Artifacts.js"
import type { CommentRow, ThreadRows } from "./ArtifactComments.js"

/** How artifacts and their comment threads appear in tool results. */

export const artifactSummary = (row: ArtifactSummaryRow) => ({
  artifactId: row.id,
  name: row.name,
  contentType: row.contentType,
  runId: row.runId,
  updatedAt: row.updatedAt.toISOString(),
  openCommentCount: row.openCommentCount
})

/** A row of list_task_artifacts: the summary plus where it is and who wrote it, no content. */
export const artifactListItem = (row: ArtifactSummaryRow) => ({
  ...artifactSummary(row),
  taskId: row.taskId,
  authorName: row.authorName,
  createdAt: row.createdAt.toISOString()
})

export const artifactView = (row: ArtifactRow) => ({
  ...artifactListItem(row),
  content: row.content,
  authorId: row.authorId
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
