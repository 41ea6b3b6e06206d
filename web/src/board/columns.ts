import type { Schema } from "effect"
import type { TaskSummary } from "../../../catalog/Tasks.js"
import { DEFAULT_STATUSES, Priority } from "../../../catalog/domain/Task.js"
import type { BoardGroupBy } from "../../../catalog/domain/TaskList.js"

export type Task = Schema.Schema.Type<typeof TaskSummary>

/**
 * What dropping a card on a column changes, as `update_task`'s arguments: the column's value of
 * the field the board groups by (null clears an owner or a label).
 */
export type ColumnChange =
  | { readonly status: string }
  | { readonly priority: Priority }
  | { readonly assigneeId: string | null }
  | { readonly label: string | null }

export interface Column {
  /** Unique on the board: the drop target's id. */
  readonly key: string
  readonly title: string
  readonly change: ColumnChange
  readonly tasks: ReadonlyArray<Task>
}

interface ColumnOf {
  readonly key: string
  readonly title: string
  readonly change: ColumnChange
}

const columnOf = (groupBy: BoardGroupBy, task: Task): ColumnOf => {
  switch (groupBy) {
    case "status":
      return { key: `status:${task.status}`, title: task.status, change: { status: task.status } }
    case "priority":
      return { key: `priority:${task.priority}`, title: task.priority, change: { priority: task.priority } }
    case "assignee":
      return task.assignee === null
        ? { key: "assignee:", title: "No owner", change: { assigneeId: null } }
        : { key: `assignee:${task.assignee.userId}`, title: task.assignee.name, change: { assigneeId: task.assignee.userId } }
    case "label":
      return task.label === null
        ? { key: "label:", title: "No label", change: { label: null } }
        : { key: `label:${task.label._id}`, title: task.label.name, change: { label: task.label._id } }
  }
}

/** The columns a board always shows, even empty, in board order: a new project's statuses, every priority, "nobody". */
const fixedColumns = (groupBy: BoardGroupBy): ReadonlyArray<ColumnOf> => {
  switch (groupBy) {
    case "status":
      return DEFAULT_STATUSES.map((status) => ({ key: `status:${status}`, title: status, change: { status } }))
    case "priority":
      return [...Priority.literals].reverse().map((priority) => ({ key: `priority:${priority}`, title: priority, change: { priority } }))
    case "assignee":
      return [{ key: "assignee:", title: "No owner", change: { assigneeId: null } }]
    case "label":
      return [{ key: "label:", title: "No label", change: { label: null } }]
  }
}

/**
 * The board's columns: the fixed ones first, in their order, then any other value the tasks hold
 * (a status of the project's own, an owner, a label) by name. Tasks keep the order they came in
 * (list_tasks' rank order).
 */
export const columnsOf = (groupBy: BoardGroupBy, tasks: ReadonlyArray<Task>): ReadonlyArray<Column> => {
  const fixed = fixedColumns(groupBy)
  const found = new Map<string, ColumnOf>()
  const members = new Map<string, Array<Task>>()
  for (const task of tasks) {
    const column = columnOf(groupBy, task)
    found.set(column.key, column)
    const list = members.get(column.key)
    if (list === undefined) members.set(column.key, [task])
    else list.push(task)
  }
  const fixedKeys = new Set(fixed.map((column) => column.key))
  const others = [...found.values()].filter((column) => !fixedKeys.has(column.key)).sort((a, b) => a.title.localeCompare(b.title))
  return [...fixed, ...others].map((column) => ({ ...column, tasks: members.get(column.key) ?? [] }))
}

/** The task as it is once moved to `change`'s column, shown before the server confirms it. */
export const applyChange = (task: Task, change: ColumnChange, column: Column): Task => {
  if ("status" in change) return { ...task, status: change.status }
  if ("priority" in change) return { ...task, priority: change.priority }
  if ("assigneeId" in change) {
    return { ...task, assignee: change.assigneeId === null ? null : (column.tasks[0]?.assignee ?? task.assignee) }
  }
  return { ...task, label: change.label === null ? null : (column.tasks[0]?.label ?? task.label) }
}

/** Who and what the filters can choose from: everyone and everything the tasks name. */
export interface FilterChoices {
  readonly statuses: ReadonlyArray<string>
  readonly owners: ReadonlyArray<{ readonly id: string; readonly name: string }>
  readonly agents: ReadonlyArray<{ readonly id: string; readonly name: string }>
  readonly labels: ReadonlyArray<{ readonly id: string; readonly name: string }>
}

const distinct = (pairs: ReadonlyArray<{ readonly id: string; readonly name: string }>) =>
  [...new Map(pairs.map((pair) => [pair.id, pair])).values()].sort((a, b) => a.name.localeCompare(b.name))

export const filterChoices = (tasks: ReadonlyArray<Task>): FilterChoices => ({
  statuses: [...new Set([...DEFAULT_STATUSES, ...tasks.map((task) => task.status)])],
  owners: distinct(tasks.flatMap((task) => task.assignee === null ? [] : [{ id: task.assignee.userId, name: task.assignee.name }])),
  agents: distinct(
    tasks.flatMap((task) =>
      task.delegatedToAgent === null ? [] : [{ id: task.delegatedToAgent.projectAgentId, name: task.delegatedToAgent.name }]
    )
  ),
  labels: distinct(tasks.flatMap((task) => task.label === null ? [] : [{ id: task.label._id, name: task.label.name }]))
})

/** The board's filters; "" is "any", and `none` (owner, agent, label) keeps the tasks without one. */
export interface Filters {
  readonly text: string
  readonly status: string
  readonly owner: string
  readonly agent: string
  readonly label: string
}

export const NO_FILTERS: Filters = { text: "", status: "", owner: "", agent: "", label: "" }
export const NONE = "none"

const matches = (wanted: string, value: string | undefined) => wanted === "" || (wanted === NONE ? value === undefined : value === wanted)

export const applyFilters = (tasks: ReadonlyArray<Task>, filters: Filters): ReadonlyArray<Task> => {
  const text = filters.text.trim().toLowerCase()
  return tasks.filter((task) =>
    (text === "" || task.name.toLowerCase().includes(text) || task.refId.toLowerCase().includes(text)) &&
    (filters.status === "" || task.status === filters.status) &&
    matches(filters.owner, task.assignee?.userId) &&
    matches(filters.agent, task.delegatedToAgent?.projectAgentId) &&
    matches(filters.label, task.label?._id)
  )
}
