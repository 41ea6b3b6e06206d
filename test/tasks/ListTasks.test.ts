import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { TestServer } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"
import { archiveTask, fails, ok, scopedTo } from "../support/TaskTools.js"
import { createTask, getTask, listTasks, noRateLimit, refsOf, url } from "./TaskFixtures.js"

describe("list_tasks", () => {
  layer(TestServer(noRateLimit))((it) => {
    it.effect("list_tasks statuses: omitted lists every status, [] lists none, a filter keeps the matching ones", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("status-filter")
        for (const status of ["To Do", "In Progress", "Done", "In Progress", "Canceled"]) yield* createTask(key, project.id, { status })
        expect(refsOf(yield* listTasks(key, project.id))).toEqual(["MAIN-1", "MAIN-2", "MAIN-3", "MAIN-4", "MAIN-5"])
        expect(yield* listTasks(key, project.id, { statuses: [] })).toEqual([])
        expect(refsOf(yield* listTasks(key, project.id, { statuses: ["In Progress", "Done"] }))).toEqual(["MAIN-2", "MAIN-3", "MAIN-4"])
        expect(refsOf(yield* listTasks(key, project.id, { statuses: ["Canceled"] }))).toEqual(["MAIN-5"])
        expect(yield* listTasks(key, project.id, { statuses: ["Blocked"] })).toEqual([])
        expect(refsOf(yield* ok(key, "list_tasks", { projectId: project.id, statuses: ["To Do"] }).pipe(Effect.map((r) => r.tasks))))
          .toEqual(["MAIN-1"])
      }))

    it.effect("list_tasks listId keeps one List's tasks, by List ID or ref", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("list-filter")
        const scope = scopedTo(project.id)
        const { listId } = yield* ok(key, "create_task_list", { name: "Sprint" }, scope)
        yield* createTask(key, project.id)
        yield* createTask(key, project.id, { listId: "SPRINT" })
        yield* createTask(key, project.id, { listId })
        yield* createTask(key, project.id, { listId: "backlog" })
        expect(refsOf(yield* listTasks(key, project.id, { listId }))).toEqual(["MAIN-2", "MAIN-3"])
        expect(refsOf(yield* listTasks(key, project.id, { listId: "sprint" }))).toEqual(["MAIN-2", "MAIN-3"])
        expect(refsOf(yield* listTasks(key, project.id, { listId: "BACKLOG" }))).toEqual(["MAIN-1", "MAIN-4"])
        expect(refsOf(yield* listTasks(key, project.id, { listId: "sprint", statuses: ["Done"] }))).toEqual([])
        expect(yield* fails(key, "list_tasks", { listId: "NOPE" }, scope)).toMatchObject({
          code: "not_found",
          message: expect.stringContaining("listId: ")
        })
      }))

    it.effect("list_tasks leaves archived tasks out unless includeArchived", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("archived")
        yield* createTask(key, project.id)
        const archived = yield* createTask(key, project.id)
        yield* createTask(key, project.id)
        yield* archiveTask(archived.taskId)
        expect(refsOf(yield* listTasks(key, project.id))).toEqual(["MAIN-1", "MAIN-3"])
        expect(refsOf(yield* listTasks(key, project.id, { includeArchived: false }))).toEqual(["MAIN-1", "MAIN-3"])
        const all = yield* listTasks(key, project.id, { includeArchived: true })
        expect(all.map((task) => [task.refId, task.isArchived])).toEqual([["MAIN-1", false], ["MAIN-2", true], ["MAIN-3", false]])
        // An archived task is still readable directly.
        expect(yield* getTask(key, archived.taskId)).toMatchObject({ refId: "MAIN-2", isArchived: true })
      }))

    it.effect("list_tasks adds each task's externalLinks only with includeLinks", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("include-links")
        yield* createTask(key, project.id, { externalLinks: [url("a"), { id: "b", kind: "branch", name: "feat/x" }] })
        yield* createTask(key, project.id)
        const plain = yield* listTasks(key, project.id)
        expect(plain.every((task) => !("externalLinks" in task))).toBe(true)
        expect(yield* listTasks(key, project.id, { includeLinks: false })).toEqual(plain)
        const withLinks = yield* listTasks(key, project.id, { includeLinks: true })
        expect(withLinks.map((task) => task.externalLinks?.map((link) => link.id))).toEqual([["a", "b"], []])
        expect(withLinks[0]?.externalLinks?.[1]).toEqual({
          id: "b",
          kind: "branch",
          name: "feat/x",
          createdAt: expect.any(String),
          updatedAt: expect.any(String)
        })
      }))
  })
})
