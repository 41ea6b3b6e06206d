import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createProjectAgent, TestServer } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"
import { fails, ok, scopedTo } from "../support/TaskTools.js"
import { createTask, getTask, listTasks, noRateLimit, url } from "./TaskFixtures.js"

describe("update_task", () => {
  layer(TestServer(noRateLimit))((it) => {
    it.effect("update_task changes only the given fields and returns { taskId }", () =>
      Effect.gen(function*() {
        const { key, project, user } = yield* seedOwner("partial")
        const scope = scopedTo(project.id)
        yield* ok(key, "create_task_label", { name: "Area" }, scope)
        const agentId = yield* createProjectAgent(key, project.id, "Agent")
        const { taskId } = yield* createTask(key, project.id, {
          name: "Full",
          description: "Some *text*",
          taskTypeKey: "bug",
          priority: "High",
          status: "In Progress",
          dueDate: 1_767_225_600,
          assigneeId: user.id,
          delegatedToAgentId: agentId,
          tags: ["a", "b"],
          label: "Area",
          externalLinks: [url("l1")]
        })
        const before = yield* getTask(key, taskId)
        expect(yield* ok(key, "update_task", { taskId: "MAIN-1", name: "Renamed" }, scope)).toEqual({ taskId })
        const after = yield* getTask(key, taskId)
        expect({ ...after, updatedAt: before.updatedAt }).toEqual({ ...before, name: "Renamed" })
        yield* ok(key, "update_task", { taskId, priority: "Low" })
        expect({ ...(yield* getTask(key, taskId)), updatedAt: before.updatedAt }).toEqual({ ...before, name: "Renamed", priority: "Low" })
        // An update with nothing to change is accepted and changes nothing.
        expect(yield* ok(key, "update_task", { taskId })).toEqual({ taskId })
        expect((yield* getTask(key, taskId)).priority).toBe("Low")
      }))

    it.effect("null clears description, dueDate, assigneeId, delegatedToAgentId and label; taskTypeKey: null resets to task", () =>
      Effect.gen(function*() {
        const { key, project, user } = yield* seedOwner("clearing")
        yield* ok(key, "create_task_label", { name: "Area" }, scopedTo(project.id))
        const agentId = yield* createProjectAgent(key, project.id, "Agent")
        const { taskId } = yield* createTask(key, project.id, {
          description: "words",
          taskTypeKey: "epic",
          dueDate: 1_767_225_600,
          assigneeId: user.id,
          delegatedToAgentId: agentId,
          label: "area",
          tags: ["kept"],
          priority: "Medium"
        })
        yield* ok(key, "update_task", {
          taskId,
          description: null,
          dueDate: null,
          assigneeId: null,
          delegatedToAgentId: null,
          label: null,
          taskTypeKey: null
        })
        expect(yield* getTask(key, taskId)).toMatchObject({
          description: null,
          descriptionMarkdown: "",
          dueDate: null,
          assignee: null,
          delegatedToAgent: null,
          label: null,
          taskTypeKey: "task",
          tags: ["kept"],
          priority: "Medium"
        })
        for (const field of ["name", "priority", "status", "tags"]) {
          expect(yield* fails(key, "update_task", { taskId, [field]: null })).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining(`${field}: `)
          })
        }
      }))

    it.effect("tags replaces the whole list", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("tags")
        const { taskId } = yield* createTask(key, project.id, { tags: ["backend", "urgent"] })
        expect((yield* getTask(key, taskId)).tags).toEqual(["backend", "urgent"])
        yield* ok(key, "update_task", { taskId, tags: ["frontend"] })
        expect((yield* getTask(key, taskId)).tags).toEqual(["frontend"])
        yield* ok(key, "update_task", { taskId, name: "Other field" })
        expect((yield* getTask(key, taskId)).tags).toEqual(["frontend"])
        yield* ok(key, "update_task", { taskId, tags: [] })
        expect((yield* getTask(key, taskId)).tags).toEqual([])
      }))

    it.effect("dueDate is a Unix timestamp in seconds and reads back the same", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("due")
        const due = 1_767_225_600 // 2026-01-01T00:00:00Z
        const { taskId } = yield* createTask(key, project.id, { dueDate: due })
        expect((yield* getTask(key, taskId)).dueDate).toBe(due)
        expect((yield* listTasks(key, project.id))[0]?.dueDate).toBe(due)
        yield* ok(key, "update_task", { taskId, dueDate: 1_700_000_000 })
        expect((yield* getTask(key, taskId)).dueDate).toBe(1_700_000_000)
        for (const dueDate of ["2026-01-01", "tomorrow"]) {
          expect(yield* fails(key, "update_task", { taskId, dueDate })).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("dueDate: ")
          })
        }
        expect((yield* getTask(key, taskId)).dueDate).toBe(1_700_000_000)
      }))

    it.effect("tags are stored and read back as a JSON array", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("bug-tags")
        const { taskId } = yield* createTask(key, project.id, { tags: ["backend", "urgent"] })
        expect((yield* getTask(key, taskId)).tags).toEqual(["backend", "urgent"])
        const plain = yield* createTask(key, project.id)
        expect((yield* getTask(key, plain.taskId)).tags).toEqual([])
        yield* ok(key, "update_task", { taskId: plain.taskId, tags: ["x"] })
        expect((yield* getTask(key, plain.taskId)).tags).toEqual(["x"])
      }))

    it.effect("an unrepresentable dueDate is invalid_argument naming dueDate", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("bug-due")
        const { taskId } = yield* createTask(key, project.id)
        for (const dueDate of [1e13, -8e12]) {
          expect(yield* fails(key, "create_task", { name: "X", dueDate }, scopedTo(project.id)))
            .toMatchObject({ code: "invalid_argument", message: expect.stringContaining("dueDate") })
          expect(yield* fails(key, "update_task", { taskId, dueDate }))
            .toMatchObject({ code: "invalid_argument", message: expect.stringContaining("dueDate") })
        }
      }))
  })
})
