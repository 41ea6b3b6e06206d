import { describe, expect, it } from "@effect/vitest"
import { LabelId } from "../../catalog/domain/Ids.js"
import { DEFAULT_STATUSES } from "../../catalog/domain/Task.js"
import { applyFilters, columnsOf, filterChoices, NO_FILTERS, NONE } from "../../web/src/board/columns.js"
import { taskSummary } from "./support/TaskSummaries.js"

const task = taskSummary
const ada = { userId: "user_a", name: "Ada", email: "ada@example.com" }
const bob = { userId: "user_b", name: "Bob", email: "bob@example.com" }

describe("the Tasks page's columns and filters", () => {
  it("by status: a new project's five statuses in board order, even empty, then the project's own statuses by name", () => {
    const columns = columnsOf("status", [task(1, { status: "Done" }), task(2, { status: "Blocked" }), task(3, { status: "Done" })])
    expect(columns.map((column) => column.title)).toEqual([...DEFAULT_STATUSES, "Blocked"])
    expect(columns.find((column) => column.title === "Done")?.tasks.map((each) => each.refId)).toEqual(["DEMO-1", "DEMO-3"])
    expect(columns.find((column) => column.title === "To Do")?.tasks).toEqual([])
    expect(columns.at(-1)?.change).toEqual({ status: "Blocked" })
  })

  it("by priority: every priority, Critical first; a column's change sets the priority", () => {
    const columns = columnsOf("priority", [task(1, { priority: "Low" })])
    expect(columns.map((column) => column.title)).toEqual(["Critical", "High", "Medium", "Low", "None"])
    expect(columns.find((column) => column.title === "Low")?.change).toEqual({ priority: "Low" })
  })

  it("by owner: No owner first (dropping there clears the owner), then each owner by name", () => {
    const columns = columnsOf("assignee", [task(1, { assignee: bob }), task(2), task(3, { assignee: ada })])
    expect(columns.map((column) => column.title)).toEqual(["No owner", "Ada", "Bob"])
    expect(columns.map((column) => column.change)).toEqual([{ assigneeId: null }, { assigneeId: "user_a" }, { assigneeId: "user_b" }])
  })

  it("by label: No label first, then each label by name, keyed by the label's id", () => {
    const label = { _id: LabelId.make(`label_${"1".repeat(32)}`), name: "ui", color: "blue" }
    const columns = columnsOf("label", [task(1, { label })])
    expect(columns.map((column) => [column.title, column.change])).toEqual([["No label", { label: null }], ["ui", {
      label: `label_${"1".repeat(32)}`
    }]])
  })

  it("filters: text finds a name or a ref ignoring case; `none` keeps the tasks without an owner; filters combine", () => {
    const tasks = [task(7, { name: "Draw the Onboarding flow", assignee: ada }), task(12, { status: "Done" }), task(120)]
    expect(applyFilters(tasks, { ...NO_FILTERS, text: "onboarding" }).map((each) => each.refId)).toEqual(["DEMO-7"])
    expect(applyFilters(tasks, { ...NO_FILTERS, text: "demo-12" }).map((each) => each.refId)).toEqual(["DEMO-12", "DEMO-120"])
    expect(applyFilters(tasks, { ...NO_FILTERS, owner: NONE }).map((each) => each.refId)).toEqual(["DEMO-12", "DEMO-120"])
    expect(applyFilters(tasks, { ...NO_FILTERS, owner: NONE, status: "Done" }).map((each) => each.refId)).toEqual(["DEMO-12"])
    expect(filterChoices(tasks).owners).toEqual([{ id: "user_a", name: "Ada" }])
  })
})
