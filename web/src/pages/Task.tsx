import { describeError } from "../lib/api"
import { useReloadOnChange } from "../lib/projectChanges"
import { boardPath, followLink } from "../lib/router"
import { useToolQuery } from "../board/taskTools"
import { DeleteTask } from "../task/DeleteTask"
import { TaskDescription } from "../task/TaskDescription"
import { TaskFields } from "../task/TaskFields"
import { TaskFiles } from "../task/TaskFiles"
import { Comments, LinksAndArtifacts, Subtasks } from "../task/TaskSections"
import { TaskRuns } from "../task/TaskRuns"
import { TaskTitle } from "../task/TaskTitle"
import { useTaskUpdate } from "../task/useTaskUpdate"
import "../task/Task.css"

/**
 * One task (`get_task` by ref or ID): its name and fields, each saved as it changes, the
 * description, the agents' runs on it, subtasks, links and artifacts, attached files, comments, and deleting it. Read again when the
 * project's changes stream names a task.
 */
export const TaskPage = ({ projectId, taskRef }: { readonly projectId: string; readonly taskRef: string }) => {
  const task = useToolQuery("get_task", { taskId: taskRef, projectId })
  const taskId = task.data?.taskId ?? taskRef
  const { failure, save, saving } = useTaskUpdate(projectId, taskId)
  const refetch = task.refetch
  useReloadOnChange(() => void refetch(), { tasks: true }, 500)

  if (task.isPending) return <p className="page-status" role="status">Loading…</p>
  if (task.isError) {
    return (
      <p className="page-status" role="alert">
        Cannot show {taskRef}: {describeError(task.error)}. <a href={boardPath(projectId)} onClick={followLink}>Back to the tasks</a>
      </p>
    )
  }
  const details = task.data
  return (
    <article className="task-page" aria-labelledby="task-name">
      <p className="meta">
        <a href={boardPath(projectId)} onClick={followLink}>Tasks</a> / {details.scopedRef}
        {details.list === null ? " · Backlog" : ` · ${details.list.name}`}
        {details.isArchived ? " · Archived" : ""}
      </p>
      <TaskTitle name={details.name} save={save} saving={saving} />
      {failure === undefined ? null : <p className="field-error" role="alert">Not saved: {failure}</p>}
      <TaskFields projectId={projectId} task={details} save={save} />
      <TaskDescription markdown={details.descriptionMarkdown} save={save} saving={saving} />
      <TaskRuns projectId={projectId} taskId={details.taskId} />
      <Subtasks projectId={projectId} task={details} />
      <LinksAndArtifacts projectId={projectId} task={details} />
      <TaskFiles task={details} />
      <Comments projectId={projectId} task={details} />
      <DeleteTask projectId={projectId} task={details} />
    </article>
  )
}
