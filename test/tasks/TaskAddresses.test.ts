import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Projects } from "../../src/projects/Projects.js"
import { TestServer } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"
import { fails, ok, scopedTo } from "../support/TaskTools.js"
import { createTask, getTask, listTasks, noRateLimit, refsOf } from "./TaskFixtures.js"

describe("task addresses: IDs, refs and scoped refs, labels and Lists", () => {
  layer(TestServer(noRateLimit))((it) => {
    it.effect("a task is found by document ID, by bare ref with projectId or ?project=, and by scoped ref, refs in any case", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("address")
        yield* createTask(key, project.id, { name: "First" })
        const { taskId } = yield* createTask(key, project.id, { name: "Second" })
        const byId = yield* getTask(key, taskId)
        expect(byId).toMatchObject({ taskId, refId: "MAIN-2", name: "Second", projectId: project.id, scopedRef: "address/MAIN-2" })
        for (const ref of ["MAIN-2", "main-2", "Main-2"]) {
          expect(yield* ok(key, "get_task", { taskId: ref, projectId: project.id })).toEqual(byId)
          expect(yield* getTask(key, ref, scopedTo(project.id))).toEqual(byId)
        }
        for (const ref of ["address/MAIN-2", "ADDRESS/main-2", "Address/Main-2"]) {
          expect(yield* getTask(key, ref)).toEqual(byId)
        }
      }))

    it.effect("a bare ref without projectId or ?project= is a tool error naming projectId", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("bare-noproject")
        yield* createTask(key, project.id)
        for (
          const [name, args] of [
            ["get_task", { taskId: "MAIN-1" }],
            ["update_task", { taskId: "MAIN-1", name: "X" }],
            ["update_task_link", { taskId: "MAIN-1", op: "delete", id: "x" }],
            ["create_task_comment", { taskId: "MAIN-1", content: "hi" }]
          ] as const
        ) {
          expect(yield* fails(key, name, args)).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("projectId: ")
          })
        }
        const { tasks } = yield* ok(key, "get_tasks", { identifiers: ["MAIN-1"] })
        expect(tasks).toEqual([{
          identifier: "MAIN-1",
          error: { code: "invalid_argument", message: expect.stringContaining("projectId: ") }
        }])
        expect(yield* fails(key, "list_tasks", {})).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("projectId: required")
        })
        expect(yield* fails(key, "create_task", { name: "X" })).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("projectId: required")
        })
      }))

    it.effect("a malformed task address is a tool error naming taskId", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("malformed")
        yield* createTask(key, project.id)
        for (const taskId of ["not a ref", "MAIN", "MAIN-", "-1", "task_123", "MAIN-1-2", "a/b/MAIN-1"]) {
          expect(yield* fails(key, "get_task", { taskId }, scopedTo(project.id))).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("taskId: ")
          })
        }
        expect(yield* fails(key, "get_task", { taskId: "" }, scopedTo(project.id))).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("taskId: ")
        })
        expect(yield* fails(key, "get_task", {}, scopedTo(project.id))).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("taskId")
        })
      }))

    it.effect("an unknown task ID, number, project ref or organization slug is not found", () =>
      Effect.gen(function*() {
        const { key, organization, project } = yield* seedOwner("unknown")
        yield* createTask(key, project.id)
        const other = yield* (yield* Projects).create({ organizationId: organization.id, name: "Other", ref: "OTHER" })
        yield* createTask(key, other.id, { name: "Other's first" })
        for (const taskId of ["MAIN-2", "OTHER-1", "NOPE-1", "unknown/MAIN-2", "nowhere/MAIN-1", "task_" + "0".repeat(32)]) {
          expect(yield* fails(key, "get_task", { taskId }, scopedTo(project.id))).toMatchObject({
            code: "not_found",
            message: expect.stringContaining(taskId)
          })
        }
        // OTHER-1 is found in its own project.
        expect(yield* getTask(key, "other-1", scopedTo(other.id))).toMatchObject({ name: "Other's first" })
        expect(yield* getTask(key, "unknown/OTHER-1")).toMatchObject({ name: "Other's first" })
      }))

    it.effect("a label is given by ID or exact name ignoring case, a List by ID or bare ref in any case", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("label-list")
        const scope = scopedTo(project.id)
        const { labelId } = yield* ok(key, "create_task_label", { name: "Needs Review", color: "rose" }, scope)
        const { listId } = yield* ok(key, "create_task_list", { name: "Sprint 1", ref: "SPRINT" }, scope)
        const byName = yield* createTask(key, project.id, { label: "needs review", listId: "sprint" })
        const byId = yield* createTask(key, project.id, { label: labelId, listId })
        for (const { taskId } of [byName, byId]) {
          expect(yield* getTask(key, taskId)).toMatchObject({
            label: { _id: labelId, name: "Needs Review", color: "rose" },
            list: { listId, ref: "SPRINT", name: "Sprint 1" }
          })
        }
        const { taskId } = yield* createTask(key, project.id)
        yield* ok(key, "update_task", { taskId, label: "NEEDS REVIEW" })
        expect((yield* getTask(key, taskId)).label?._id).toBe(labelId)
        expect(yield* fails(key, "create_task", { name: "X", label: "Needs" }, scope)).toMatchObject({ code: "not_found" })
        expect(yield* fails(key, "update_task", { taskId, label: "Nope" })).toMatchObject({ code: "not_found" })
        expect(yield* fails(key, "create_task", { name: "X", listId: "NOPE" }, scope)).toMatchObject({
          code: "not_found",
          message: expect.stringContaining("listId: ")
        })
        expect(refsOf(yield* listTasks(key, project.id))).toEqual(["MAIN-1", "MAIN-2", "MAIN-3"])
      }))
  })
})
