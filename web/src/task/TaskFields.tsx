import { useQueryClient } from "@tanstack/react-query"
import { type ReactNode, useMemo, useState } from "react"
import { DEFAULT_STATUSES, Priority } from "../../../catalog/domain/Task.js"
import { BuiltInTaskTypeKey } from "../../../catalog/Tasks.js"
import { type TaskToolResult, useToolQuery } from "../board/taskTools"
import { delegationPath, navigate } from "../lib/router"
import type { TaskChange } from "./useTaskUpdate"

type Details = TaskToolResult<"get_task">

const Field = ({ label, children }: { readonly label: string; readonly children: ReactNode }) => (
  <label className="task-field">
    <span>{label}</span>
    {children}
  </label>
)

/** Owners the page can offer: the task's own and every owner of a task the board has loaded. */
const useKnownOwners = (task: Details) => {
  const client = useQueryClient()
  return useMemo(() => {
    const owners = new Map<string, string>()
    if (task.assignee !== null) owners.set(task.assignee.userId, task.assignee.name)
    for (const [, data] of client.getQueriesData<TaskToolResult<"list_tasks">>({ queryKey: ["list_tasks"] })) {
      for (const each of data?.tasks ?? []) if (each.assignee !== null) owners.set(each.assignee.userId, each.assignee.name)
    }
    return [...owners].sort(([, a], [, b]) => a.localeCompare(b))
  }, [client, task.assignee])
}

const toDateInput = (unix: number | null) => unix === null ? "" : new Date(unix * 1000).toISOString().slice(0, 10)
const fromDateInput = (value: string) => value === "" ? null : Math.floor(Date.parse(`${value}T00:00:00Z`) / 1000)

/**
 * The task's fields, each saved as it changes (each save sends only its field, so two in flight
 * do not undo each other): status, priority, type, due date, label, tags, the
 * accountable owner and the agent it is delegated to (SPEC's assignment rules are the server's:
 * delegating an ownerless task makes the person its owner, and the page shows what came back). An
 * agent with automation then offers its prefilled thread.
 */
export const TaskFields = ({ projectId, save, task }: {
  readonly projectId: string
  readonly task: Details
  readonly save: (change: TaskChange, onSaved?: () => void) => void
}) => {
  const labels = useToolQuery("list_task_labels", { projectId })
  const agents = useToolQuery("list_project_agents", { projectId })
  const owners = useKnownOwners(task)
  // What the person is typing in Tags; the server's tags show otherwise, and a save of another
  // field that reads the task again never wipes what is being typed.
  const [tagsDraft, setTagsDraft] = useState<string | undefined>(undefined)
  const statuses = [...new Set([...DEFAULT_STATUSES, task.status])]
  const saveTags = () => {
    if (tagsDraft === undefined) return
    const next = tagsDraft.split(",").map((tag) => tag.trim()).filter((tag) => tag !== "")
    if (next.join(",") !== task.tags.join(",")) save({ tags: next })
    setTagsDraft(undefined)
  }
  return (
    <fieldset className="task-fields">
      <legend className="visually-hidden">Fields</legend>
      <Field label="Status">
        <select value={task.status} onChange={(event) => save({ status: event.currentTarget.value })}>
          {statuses.map((status) => <option key={status} value={status}>{status}</option>)}
        </select>
      </Field>
      <Field label="Priority">
        <select
          value={task.priority}
          onChange={(event) => {
            const priority = Priority.literals.find((each) => each === event.currentTarget.value)
            if (priority !== undefined) save({ priority })
          }}
        >
          {Priority.literals.map((priority) => <option key={priority} value={priority}>{priority}</option>)}
        </select>
      </Field>
      <Field label="Type">
        <select
          value={task.taskTypeKey}
          onChange={(event) => {
            const key = BuiltInTaskTypeKey.literals.find((each) => each === event.currentTarget.value)
            if (key !== undefined) save({ taskTypeKey: key })
          }}
        >
          {[...new Set([...BuiltInTaskTypeKey.literals, task.taskTypeKey])].map((key) => <option key={key} value={key}>{key}</option>)}
        </select>
      </Field>
      <Field label="Due">
        <input
          type="date"
          value={toDateInput(task.dueDate)}
          onChange={(event) => save({ dueDate: fromDateInput(event.currentTarget.value) })}
        />
      </Field>
      <Field label="Owner">
        <select
          value={task.assignee?.userId ?? ""}
          onChange={(event) => save({ assigneeId: event.currentTarget.value === "" ? null : event.currentTarget.value })}
        >
          <option value="">No owner</option>
          {owners.map(([id, name]) => <option key={id} value={id}>{name}</option>)}
        </select>
      </Field>
      <Field label="Delegated to">
        <select
          value={task.delegatedToAgent?.projectAgentId ?? ""}
          onChange={(event) => {
            const chosen = (agents.data?.agents ?? []).find((agent) => agent.projectAgentId === event.currentTarget.value)
            // SPEC: an agent with automation offers a prefilled thread when delegated to in the web app.
            const offer = chosen?.automation?.enabled === true
              ? () => navigate(delegationPath(projectId, task.refId, chosen.projectAgentId))
              : undefined
            save({ delegatedToAgentId: chosen?.projectAgentId ?? null }, offer)
          }}
        >
          <option value="">No agent</option>
          {(agents.data?.agents ?? []).map((agent) => <option key={agent.projectAgentId} value={agent.projectAgentId}>{agent.name}
          </option>)}
        </select>
      </Field>
      <Field label="Label">
        <select
          value={task.label?._id ?? ""}
          onChange={(event) => save({ label: event.currentTarget.value === "" ? null : event.currentTarget.value })}
        >
          <option value="">No label</option>
          {(labels.data?.labels ?? []).map((label) => <option key={label._id} value={label._id}>{label.name}</option>)}
        </select>
      </Field>
      <Field label="Tags">
        <input
          type="text"
          value={tagsDraft ?? task.tags.join(", ")}
          placeholder="Comma-separated"
          onChange={(event) => setTagsDraft(event.currentTarget.value)}
          onBlur={saveTags}
          onKeyDown={(event) => {
            if (event.key === "Enter") saveTags()
          }}
        />
      </Field>
    </fieldset>
  )
}
