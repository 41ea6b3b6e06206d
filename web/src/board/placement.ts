import type { Column, Task } from "./columns.js"

/** A card's new place, by its neighbours' IDs (the route takes no rank). */
export interface Placement {
  readonly after: string | null
  readonly before: string | null
}

/**
 * Where a card dropped in `column` right above the card `beforeTaskId` (null: at the end) goes:
 * between its nearest siblings there (tasks of the same parent: only those share an order), or
 * undefined when that is where it already is, or the column holds none of its siblings.
 */
export const placementIn = (column: Column, task: Task, beforeTaskId: string | null): Placement | undefined => {
  const siblings = column.tasks.filter((each) => each.parentId === task.parentId)
  const others = column.tasks.filter((each) => each.taskId !== task.taskId)
  const found = beforeTaskId === null ? -1 : others.findIndex((each) => each.taskId === beforeTaskId)
  const at = found === -1 ? others.length : found
  const sibling = (each: Task) => each.parentId === task.parentId
  const after = others.slice(0, at).filter(sibling).at(-1)?.taskId ?? null
  const before = others.slice(at).find(sibling)?.taskId ?? null
  if (after === null && before === null) return undefined
  const index = siblings.findIndex((each) => each.taskId === task.taskId)
  if (index !== -1 && (siblings[index - 1]?.taskId ?? null) === after && (siblings[index + 1]?.taskId ?? null) === before) {
    return undefined
  }
  return { after, before }
}

/** Alt+ArrowUp / Alt+ArrowDown: one sibling up or down in its column, or undefined at the top or the bottom. */
export const nudge = (column: Column, task: Task, direction: -1 | 1): Placement | undefined => {
  const siblings = column.tasks.filter((each) => each.parentId === task.parentId)
  const index = siblings.findIndex((each) => each.taskId === task.taskId)
  const neighbour = siblings[index + direction]
  if (index === -1 || neighbour === undefined) return undefined
  return direction === -1
    ? { after: siblings[index - 2]?.taskId ?? null, before: neighbour.taskId }
    : { after: neighbour.taskId, before: siblings[index + 2]?.taskId ?? null }
}

/** The tasks with `taskId` moved to its placement, shown before the server confirms it. */
export const reorder = (tasks: ReadonlyArray<Task>, taskId: string, placement: Placement): ReadonlyArray<Task> => {
  const moved = tasks.find((each) => each.taskId === taskId)
  if (moved === undefined) return tasks
  const others = tasks.filter((each) => each.taskId !== taskId)
  const afterIndex = placement.after === null ? -1 : others.findIndex((each) => each.taskId === placement.after)
  const beforeIndex = placement.before === null ? -1 : others.findIndex((each) => each.taskId === placement.before)
  const at = afterIndex !== -1 ? afterIndex + 1 : beforeIndex !== -1 ? beforeIndex : others.length
  return [...others.slice(0, at), moved, ...others.slice(at)]
}
