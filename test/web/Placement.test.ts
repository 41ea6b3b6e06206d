import { describe, expect, it } from "@effect/vitest"
import type { Column, Task } from "../../web/src/board/columns.js"
import { nudge, placementIn, reorder } from "../../web/src/board/placement.js"
import { taskSummary } from "./support/TaskSummaries.js"

const task = (n: number, parentId: string | null = null): Task => taskSummary(n, { parentId })

const column = (tasks: ReadonlyArray<Task>): Column => ({ key: "status:To Do", title: "To Do", change: { status: "To Do" }, tasks })
const [t1, t2, t3, t4, t5] = [task(1), task(2), task(3), task(4), task(5)]
const five = column([t1, t2, t3, t4, t5])
const ids = (tasks: ReadonlyArray<Task>) => tasks.map((each) => each.taskId)

describe("a card's place in its column", () => {
  it("dropped above a card: between that card and the one before it", () => {
    expect(placementIn(five, t5, "task_2")).toEqual({ after: "task_1", before: "task_2" })
    expect(placementIn(five, t5, "task_1")).toEqual({ after: null, before: "task_1" })
    expect(placementIn(five, t1, null)).toEqual({ after: "task_5", before: null })
  })

  it("dropped where it already is: nothing to do", () => {
    expect(placementIn(five, t3, "task_4")).toBeUndefined()
    expect(placementIn(five, t1, "task_2")).toBeUndefined()
    expect(placementIn(five, t5, null)).toBeUndefined()
  })

  it("dropped in another column, it goes between that column's cards", () => {
    expect(placementIn(column([t1, t2]), t5, "task_2")).toEqual({ after: "task_1", before: "task_2" })
  })

  it("neighbours are its siblings: a subtask of another parent between them is passed over", () => {
    const mixed = column([t1, task(8, "task_9"), t2, t3])
    expect(placementIn(mixed, t3, "task_8")).toEqual({ after: "task_1", before: "task_2" })
    expect(placementIn(column([task(8, "task_9")]), t3, null)).toBeUndefined()
  })

  it("Alt+Arrow moves one sibling up or down; not past the top or the bottom", () => {
    expect(nudge(five, t3, -1)).toEqual({ after: "task_1", before: "task_2" })
    expect(nudge(five, t3, 1)).toEqual({ after: "task_4", before: "task_5" })
    expect(nudge(five, t2, -1)).toEqual({ after: null, before: "task_1" })
    expect(nudge(five, t1, -1)).toBeUndefined()
    expect(nudge(five, t5, 1)).toBeUndefined()
  })

  it("shown at once: the task moves to its placement in the loaded tasks", () => {
    const all = [t1, t2, t3, t4, t5]
    expect(ids(reorder(all, "task_5", { after: "task_1", before: "task_2" }))).toEqual(["task_1", "task_5", "task_2", "task_3", "task_4"])
    expect(ids(reorder(all, "task_1", { after: null, before: "task_4" }))).toEqual(["task_2", "task_3", "task_1", "task_4", "task_5"])
    expect(ids(reorder(all, "task_2", { after: "task_5", before: null }))).toEqual(["task_1", "task_3", "task_4", "task_5", "task_2"])
  })
})
