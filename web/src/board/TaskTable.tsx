import { ago } from "../lib/format"
import { followLink, taskPath } from "../lib/router"
import type { Task } from "./columns"

/** The list view: one row per task, in the order list_tasks gives (rank order). */
export const TaskTable = ({ projectId, tasks }: { readonly projectId: string; readonly tasks: ReadonlyArray<Task> }) => (
  <div className="table-wrap" role="region" aria-label="Tasks" tabIndex={0}>
    <table className="tasks">
      <thead>
        <tr>
          <th scope="col">Ref</th>
          <th scope="col">Name</th>
          <th scope="col">Status</th>
          <th scope="col">Priority</th>
          <th scope="col">Owner</th>
          <th scope="col">Agent</th>
          <th scope="col">Label</th>
          <th scope="col">List</th>
          <th scope="col">Updated</th>
        </tr>
      </thead>
      <tbody>
        {tasks.map((task) => (
          <tr key={task.taskId} data-task-ref={task.refId}>
            <td className="card-ref">
              <a href={taskPath(projectId, task.refId)} onClick={followLink}>{task.refId}</a>
            </td>
            <td>{task.name}{task.subtaskCount > 0 ? <span className="meta">· {task.subtaskCount} sub</span> : null}</td>
            <td>{task.status}</td>
            <td>{task.priority}</td>
            <td>{task.assignee?.name ?? ""}</td>
            <td>{task.delegatedToAgent?.name ?? ""}</td>
            <td>{task.label?.name ?? ""}</td>
            <td>{task.list?.name ?? "Backlog"}</td>
            <td>{ago(task.updatedAt)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  </div>
)
