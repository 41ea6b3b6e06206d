import { type FormEvent, useState } from "react"
import { describeError } from "../lib/api"
import { followLink, taskPath } from "../lib/router"
import { type TaskToolResult, useToolMutation, useToolQuery } from "../board/taskTools"

type Details = TaskToolResult<"get_task">

/** The parent's ref and name, opening its page. */
const ParentLink = ({ parentId, projectId }: { readonly projectId: string; readonly parentId: string }) => {
  const parent = useToolQuery("get_task", { taskId: parentId, projectId })
  return (
    <a href={taskPath(projectId, parent.data?.refId ?? parentId)} onClick={followLink}>
      {parent.data === undefined ? "its parent" : `${parent.data.refId} ${parent.data.name}`}
    </a>
  )
}

/**
 * The task's parent, and `move_task`: under another task (by ref), or to the top level. The
 * server refuses a move under the task itself or one of its subtasks, and the page shows its message.
 */
export const MoveTask = ({ projectId, task }: { readonly projectId: string; readonly task: Details }) => {
  const [parent, setParent] = useState("")
  const move = useToolMutation("move_task")
  const send = (parentId: string | null) =>
    move.mutate({ projectId, taskId: task.taskId, parentId }, {
      onSuccess: () => setParent(""),
      onSettled: () => {
        void move.client.invalidateQueries({ queryKey: ["get_task"] })
        void move.client.invalidateQueries({ queryKey: ["list_tasks"] })
      }
    })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (parent.trim() !== "") send(parent.trim())
  }
  return (
    <div className="move-task">
      <p className="meta">
        {task.parentId === null ? "A top-level task." : (
          <>
            A subtask of <ParentLink projectId={projectId} parentId={task.parentId} />{" "}
            <button type="button" className="quiet" disabled={move.isPending} onClick={() => send(null)}>Move to the top level</button>
          </>
        )}
      </p>
      <form className="inline-form" onSubmit={submit} aria-label="Move under another task">
        <label className="visually-hidden" htmlFor="move-under">Move under (a task's ref)</label>
        <input
          id="move-under"
          type="text"
          value={parent}
          spellCheck={false}
          autoComplete="off"
          placeholder="Move under… (a task's ref, e.g. DEMO-12)"
          onChange={(event) => setParent(event.currentTarget.value)}
        />
        <button type="submit" className="quiet" disabled={move.isPending || parent.trim() === ""}>Move</button>
      </form>
      {move.isError ? <p className="field-error" role="alert">Not moved: {describeError(move.error)}</p> : null}
    </div>
  )
}
