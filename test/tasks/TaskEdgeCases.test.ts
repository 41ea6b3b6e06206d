import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { ProjectAccess } from "../../src/platform/auth/Principal.js"
import { TaskReads } from "../../src/tasks/TaskReads.js"
import { TaskTree } from "../../src/tasks/TaskTree.js"
import { TaskWrites } from "../../src/tasks/TaskWrites.js"
import { callTool, TestServer } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"
import { createTask, fails, ok, scopedTo } from "../support/TaskTools.js"

const seed = (slug: string) => Effect.map(seedOwner(slug), (owner) => ({ ...owner, scope: scopedTo(owner.project.id) }))

describe("task tool edge cases", () => {
  layer(TestServer())((it) => {
    it.effect("search_tasks: a query with a NUL character is a tool error, not an internal error", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("bug-nul")
        const res = yield* callTool(key, "search_tasks", { query: "nul\u0000test" }, scope)
        expect(res.status).toBe(200)
        expect(res.json).toMatchObject({ result: { isError: true, structuredContent: { error: { code: "invalid_argument" } } } })
      }))

    it.effect("delete_task_label: an unknown reassignTo is not found naming reassignTo", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("bug-reassign")
        yield* ok(key, "create_task_label", { name: "Bug" }, scope)
        expect(yield* fails(key, "delete_task_label", { labelId: "Bug", resolution: "reassign", reassignTo: "Nope" }, scope)).toEqual({
          code: "not_found",
          message: "reassignTo: label Nope not found in project MAIN"
        })
      }))

    it.effect("delete_task_label: affectedTaskIds holds only tasks that exist; a soft-deleted task is not archived", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("bug-deleted-label")
        yield* ok(key, "create_task_label", { name: "Bug" }, scope)
        const kept = yield* createTask(key, scope, { name: "Kept", label: "Bug" })
        const gone = yield* createTask(key, scope, { name: "Gone", label: "Bug" })
        yield* ok(key, "delete_task", { taskId: gone.taskId }, scope)
        const result = yield* ok(
          key,
          "delete_task_label",
          { labelId: "Bug", resolution: "archiveTasks" },
          scope
        )
        expect(result.affectedTaskIds).toEqual([kept.taskId])
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ archived: boolean }>`SELECT archived_at IS NOT NULL AS archived FROM tasks WHERE id = ${gone.taskId}`
        expect(row?.archived).toBe(false)
      }))

    it.effect("move_tasks_to_list: an unknown task is not found naming taskIds", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("bug-taskids")
        const task = yield* createTask(key, scope, { name: "Task" })
        expect(yield* fails(key, "move_tasks_to_list", { taskIds: [task.taskId, "MAIN-42"], listId: "BACKLOG" }, scope))
          .toMatchObject({ code: "not_found", message: expect.stringMatching(/^taskIds: /) })
      }))

    it.effect("delete_task keep_children with the parent it read before a concurrent move cannot build a cycle", () =>
      Effect.gen(function*() {
        const owner = yield* seedOwner("bug-keep-race")
        const reads = yield* TaskReads
        const tree = yield* TaskTree
        const writes = yield* TaskWrites
        const access: ProjectAccess = { project: owner.project, role: "admin" }
        const create = (name: string, parentId?: string) =>
          Effect.map(writes.create(owner.principal, access, parentId === undefined ? { name } : { name, parentId }), (t) => t.taskId)
        const resolve = (id: string) => reads.resolve(owner.principal, id, null)
        const p = yield* create("P")
        const x = yield* create("X", p)
        const c = yield* create("C", x)
        // delete_task(X, keep_children) has resolved X (parent P) in the tool layer...
        const staleX = yield* resolve(x)
        // ...when two move_task calls commit: X to the top level, then P under C (valid: C is no longer under P).
        yield* tree.move(yield* resolve(x), null)
        yield* tree.move(yield* resolve(p), yield* resolve(c))
        // ...then its transaction runs and moves C under its stale parent P.
        yield* tree.remove(staleX, "keep_children")
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<
          { id: string; parentId: string | null }
        >`SELECT id, parent_id AS "parentId" FROM tasks WHERE id IN (${p}, ${c})`
        const parentOf = new Map(rows.map((row) => [row.id, row.parentId]))
        // Observed: P.parent = C and C.parent = P.
        expect(parentOf.get(p) === c && parentOf.get(c) === p).toBe(false)
      }))
    it.effect("search_tasks: a word of the project ref does not match every task; a whole ref finds its task first", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("ref-search")
        yield* createTask(key, scope, { name: "Alpha" })
        const beta = yield* createTask(key, scope, { name: "Beta main course" })
        const byWord = yield* ok(key, "search_tasks", { query: "main" }, scope)
        expect(byWord.tasks.map((task) => task.taskId)).toEqual([beta.taskId])
        const byRef = yield* ok(key, "search_tasks", { query: "main-1" }, scope)
        expect(byRef.tasks[0]?.refId).toBe("MAIN-1")
      }))
  })
})
