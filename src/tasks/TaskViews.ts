import type { SubtaskSummary, TaskDetails, TaskSummary } from "../../catalog/Tasks.js"
import type { ExternalLink } from "../../catalog/domain/Task.js"
import type { ArtifactSummary } from "../../catalog/domain/Artifact.js"
import type { TaskFileSummary } from "../../catalog/domain/TaskFile.js"
import type { TaskDetailRows } from "./TaskReads.js"
import type { StoredLink, TaskRow } from "./TaskRow.js"

/** How tasks appear in tool results: the catalog's shapes, filled from the rows. */

export const externalLink = (stored: StoredLink): ExternalLink => ({
  ...stored.link,
  id: stored.id,
  createdAt: stored.createdAt.toISOString(),
  updatedAt: stored.updatedAt.toISOString()
})

export const taskSummary = (row: TaskRow): typeof TaskSummary.Type => ({
  taskId: row.id,
  refId: row.ref,
  name: row.name,
  taskTypeKey: row.taskTypeKey,
  status: row.status,
  priority: row.priority,
  dueDate: row.dueDate,
  assignee: row.assigneeId === null
    ? null
    : { userId: row.assigneeId, name: row.assigneeName ?? "", email: row.assigneeEmail ?? "" },
  delegatedToAgent: row.agentId === null ? null : { projectAgentId: row.agentId, name: row.agentName ?? "" },
  label: row.labelId === null ? null : { _id: row.labelId, name: row.labelName ?? "", color: row.labelColor ?? "" },
  tags: row.tags,
  list: { listId: row.listId, ref: row.listRef, name: row.listName },
  parentId: row.parentId,
  subtaskCount: row.subtaskCount,
  isArchived: row.archivedAt !== null,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString()
})

const subtaskSummary = (row: TaskRow): typeof SubtaskSummary.Type => ({
  taskId: row.id,
  refId: row.ref,
  name: row.name,
  status: row.status,
  priority: row.priority,
  subtaskCount: row.subtaskCount
})

/** get_task's result; `descriptionMarkdown`, `artifacts` and `files` are this task's. */
export const taskDetails = (
  found: TaskDetailRows,
  descriptionMarkdown: string,
  artifacts: ReadonlyArray<typeof ArtifactSummary.Type>,
  files: ReadonlyArray<TaskFileSummary>
): typeof TaskDetails.Type => {
  const { access, comments, links, subtasks, task, taskPath, taskUrl } = found
  return {
    ...taskSummary(task),
    projectId: access.project.id,
    scopedRef: `${access.project.organizationSlug}/${task.ref}`,
    taskPath,
    taskUrl,
    description: task.description,
    descriptionMarkdown,
    externalLinks: links.map(externalLink),
    artifacts,
    files,
    comments: comments.map((comment) => ({ ...comment, createdAt: comment.createdAt.toISOString() })),
    subtasks: subtasks.map(subtaskSummary)
  }
}
