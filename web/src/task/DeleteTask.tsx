import { useState } from "react"
import { describeError } from "../lib/api"
import { boardPath, navigate } from "../lib/router"
import { type TaskToolResult, useToolMutation } from "../board/taskTools"

type Details = TaskToolResult<"get_task">

/**
 * Soft delete, with SPEC's cascade choice when the task has subtasks: delete them too, or move
 * them up one level. The person confirms in place; the task is gone for good after 30 days.
 */
export const DeleteTask = ({ projectId, task }: { readonly projectId: string; readonly task: Details }) => {
  const [asking, setAsking] = useState(false)
  const [cascadeMode, setCascadeMode] = useState<"delete_all" | "keep_children">("delete_all")
  const remove = useToolMutation("delete_task")
  if (!asking) return <button type="button" className="quiet danger" onClick={() => setAsking(true)}>Delete task</button>
  return (
    <form
      className="delete-task"
      aria-label="Delete the task"
      onSubmit={(event) => {
        event.preventDefault()
        remove.mutate({ projectId, taskId: task.taskId, cascadeMode }, {
          onSuccess: () => {
            void remove.client.invalidateQueries({ queryKey: ["list_tasks"] })
            navigate(boardPath(projectId))
          }
        })
      }}
    >
      <p>Delete {task.refId}? It is removed for good after 30 days.</p>
      {task.subtasks.length === 0 ? null : (
        <fieldset>
          <legend>Its {task.subtasks.length} subtasks</legend>
          <label>
            <input type="radio" checked={cascadeMode === "delete_all"} onChange={() => setCascadeMode("delete_all")} /> Delete them too
          </label>
          <label>
            <input type="radio" checked={cascadeMode === "keep_children"} onChange={() => setCascadeMode("keep_children")} />{" "}
            Keep them, one level up
          </label>
        </fieldset>
      )}
      <div className="form-actions">
        <button type="submit" className="danger" disabled={remove.isPending}>Delete</button>
        <button type="button" className="quiet" onClick={() => setAsking(false)}>Cancel</button>
      </div>
      {remove.isError ? <p className="field-error" role="alert">{describeError(remove.error)}</p> : null}
    </form>
  )
}
