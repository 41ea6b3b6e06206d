import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Projects } from "../../src/projects/Projects.js"
import { TestServer } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"
import { call, createTask, fails, getTask, idsOf, joinAs, listTasks, ok, scopedTo, type Scope } from "../support/TaskTools.js"
import type { ResultOf } from "../../catalog/McpClient.js"
import { concurrently } from "../support/TestDatabase.js"

const sorted = (ids: ReadonlyArray<string>) => [...ids].sort()

const seed = (slug: string) => Effect.map(seedOwner(slug), (owner) => ({ ...owner, scope: scopedTo(owner.project.id) }))

/** A tree: root ← child ← grandchild, plus a second child of root and an unrelated top-level task. */
const tree = (key: string, scope: Scope) =>
  Effect.gen(function*() {
    const root = yield* createTask(key, scope, { name: "Root" })
    const child = yield* createTask(key, scope, { name: "Child", parentId: root.taskId })
    const grandchild = yield* createTask(key, scope, { name: "Grandchild", parentId: child.taskId })
    const sibling = yield* createTask(key, scope, { name: "Sibling", parentId: root.taskId })
    const loose = yield* createTask(key, scope, { name: "Loose" })
    return { root, child, grandchild, sibling, loose }
  })

/** Parent and List of each task, to check that nothing changed. */
const placement = (key: string, scope: Scope, taskIds: ReadonlyArray<string>) =>
  Effect.forEach(
    taskIds,
    (taskId) => Effect.map(getTask(key, taskId, scope), (task) => ({ taskId, parentId: task.parentId, list: task.list?.ref }))
  )

const subtaskIds = (task: ResultOf<"get_task">) => task.subtasks.map((subtask) => subtask.taskId)

/** The top-level task ranked last in the project. */
const lastTopLevel = (projectId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ id: string }>`SELECT id FROM tasks
      WHERE project_id = ${projectId} AND parent_id IS NULL AND deleted_at IS NULL ORDER BY rank DESC, id DESC LIMIT 1`.pipe(Effect.orDie)
    return rows[0]?.id
  })

describe("move_task", () => {
  layer(TestServer())((it) => {
    it.effect("move_task makes the task a subtask of parentId, last among its new siblings, and returns { taskId, parentId }", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("move-under")
        const { child, loose, root, sibling } = yield* tree(key, scope)
        expect(subtaskIds(yield* getTask(key, root.taskId, scope))).toEqual([child.taskId, sibling.taskId])
        expect(yield* ok(key, "move_task", { taskId: loose.taskId, parentId: root.taskId }, scope))
          .toEqual({ taskId: loose.taskId, parentId: root.taskId })
        const parent = yield* getTask(key, root.taskId, scope)
        expect(subtaskIds(parent)).toEqual([child.taskId, sibling.taskId, loose.taskId])
        expect(parent.subtaskCount).toBe(3)
        expect((yield* getTask(key, loose.taskId, scope)).parentId).toBe(root.taskId)
        // Moving under the same parent again puts it last.
        yield* ok(key, "move_task", { taskId: child.taskId, parentId: root.taskId }, scope)
        expect(subtaskIds(yield* getTask(key, root.taskId, scope))).toEqual([sibling.taskId, loose.taskId, child.taskId])
      }))

    it.effect("move_task takes the task and the parent by ID, bare ref or scoped ref", () =>
      Effect.gen(function*() {
        const { key, project, scope } = yield* seed("move-refs")
        const a = yield* createTask(key, scope, { name: "A" })
        const b = yield* createTask(key, scope, { name: "B" })
        const c = yield* createTask(key, scope, { name: "C" })
        expect(yield* ok(key, "move_task", { taskId: "main-2", parentId: "MAIN-1" }, scope))
          .toEqual({ taskId: b.taskId, parentId: a.taskId })
        expect(yield* ok(key, "move_task", { taskId: "move-refs/MAIN-3", parentId: "move-refs/main-2" }))
          .toEqual({ taskId: c.taskId, parentId: b.taskId })
        // Without a default project, a bare parent ref resolves in the task's project.
        yield* ok(key, "move_task", { taskId: c.taskId, parentId: "MAIN-1" })
        expect((yield* getTask(key, c.taskId)).parentId).toBe(a.taskId)
        yield* ok(key, "move_task", { taskId: "MAIN-3", parentId: null, projectId: project.id })
        expect((yield* getTask(key, c.taskId)).parentId).toBeNull()
      }))

    it.effect("parentId: null moves a subtask to the top level, last among the top-level tasks", () =>
      Effect.gen(function*() {
        const { key, project, scope } = yield* seed("move-top")
        const { child, grandchild, root, sibling } = yield* tree(key, scope)
        expect(yield* ok(key, "move_task", { taskId: child.taskId, parentId: null }, scope))
          .toEqual({ taskId: child.taskId, parentId: null })
        const moved = yield* getTask(key, child.taskId, scope)
        expect(moved.parentId).toBeNull()
        // It takes its own subtasks along.
        expect(subtaskIds(moved)).toEqual([grandchild.taskId])
        expect(subtaskIds(yield* getTask(key, root.taskId, scope))).toEqual([sibling.taskId])
        expect(yield* lastTopLevel(project.id)).toBe(child.taskId)
        // A top-level task moved to the top level goes last again.
        yield* ok(key, "move_task", { taskId: root.taskId, parentId: null }, scope)
        expect(yield* lastTopLevel(project.id)).toBe(root.taskId)
      }))

    it.effect("move_task refuses the task itself and any of its descendants as parent, naming parentId, and nothing changes", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("move-cycle")
        const { child, grandchild, loose, root, sibling } = yield* tree(key, scope)
        const all = [root, child, grandchild, sibling, loose].map((task) => task.taskId)
        const before = yield* placement(key, scope, all)
        for (
          const [taskId, parentId] of [
            [root.taskId, root.taskId],
            [root.taskId, child.taskId],
            [root.taskId, grandchild.taskId],
            [child.taskId, grandchild.taskId],
            [root.taskId, "MAIN-3"],
            [grandchild.taskId, grandchild.taskId]
          ] as const
        ) {
          const error = yield* fails(key, "move_task", { taskId, parentId }, scope)
          expect(error.code).toBe("invalid_argument")
          expect(error.message).toMatch(/^parentId: /)
        }
        expect(yield* placement(key, scope, all)).toEqual(before)
      }))

    it.effect(concurrently("two moves cannot build a cycle together: one of them is refused"), () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("move-race")
        for (let round = 0; round < 5; round++) {
          const a = yield* createTask(key, scope, { name: `A${round}` })
          const b = yield* createTask(key, scope, { name: `B${round}` })
          const results = yield* Effect.all([
            call(key, "move_task", { taskId: a.taskId, parentId: b.taskId }, scope),
            call(key, "move_task", { taskId: b.taskId, parentId: a.taskId }, scope)
          ], { concurrency: "unbounded" })
          expect(results.filter((result) => result.isError === true)).toHaveLength(1)
          const parents = [(yield* getTask(key, a.taskId, scope)).parentId, (yield* getTask(key, b.taskId, scope)).parentId]
          expect(parents.filter((parent) => parent === null)).toHaveLength(1)
        }
      }))

    it.effect("a parent in another project of the organization is refused naming parentId, and nothing changes", () =>
      Effect.gen(function*() {
        const { key, organization, scope } = yield* seed("move-project")
        const other = yield* (yield* Projects).create({ organizationId: organization.id, name: "Other", ref: "OTHER" })
        const task = yield* createTask(key, scope, { name: "Here" })
        const there = yield* createTask(key, scopedTo(other.id), { name: "There" })
        for (const parentId of [there.taskId, "move-project/OTHER-1"]) {
          expect(yield* fails(key, "move_task", { taskId: task.taskId, parentId }, scope)).toMatchObject({
            code: "invalid_argument",
            message: expect.stringMatching(/^parentId: .*another project/)
          })
        }
        expect((yield* getTask(key, task.taskId, scope)).parentId).toBeNull()
        expect((yield* getTask(key, there.taskId, scopedTo(other.id))).subtaskCount).toBe(0)
      }))

    it.effect("a parent in another organization is not found, and nothing changes", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("move-org")
        const stranger = yield* seed("move-stranger")
        const task = yield* createTask(key, scope, { name: "Mine" })
        const theirs = yield* createTask(stranger.key, stranger.scope, { name: "Theirs" })
        for (const parentId of [theirs.taskId, "move-stranger/MAIN-1"]) {
          expect(yield* fails(key, "move_task", { taskId: task.taskId, parentId }, scope)).toMatchObject({ code: "not_found" })
        }
        expect((yield* getTask(key, task.taskId, scope)).parentId).toBeNull()
        expect((yield* getTask(stranger.key, theirs.taskId)).subtaskCount).toBe(0)
      }))

    it.effect("an unknown or deleted task or parent is not found, and nothing changes", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("move-missing")
        const task = yield* createTask(key, scope, { name: "Task" })
        const deleted = yield* createTask(key, scope, { name: "Deleted" })
        yield* ok(key, "delete_task", { taskId: deleted.taskId }, scope)
        for (const parentId of [deleted.taskId, "MAIN-2", "MAIN-99", "task_00000000000000000000000000000000"]) {
          expect(yield* fails(key, "move_task", { taskId: task.taskId, parentId }, scope), parentId).toEqual({
            code: "not_found",
            message: `parentId: task ${parentId} not found`
          })
        }
        for (const taskId of [deleted.taskId, "MAIN-99"]) {
          expect(yield* fails(key, "move_task", { taskId, parentId: null }, scope)).toMatchObject({
            code: "not_found",
            message: `taskId: task ${taskId} not found`
          })
        }
        expect((yield* getTask(key, task.taskId, scope)).parentId).toBeNull()
      }))

    it.effect("parentId is required (a task or null), and a malformed one is rejected naming parentId", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("move-args")
        const task = yield* createTask(key, scope, { name: "Task" })
        for (const args of [{ taskId: task.taskId }, { taskId: task.taskId, parentId: "" }, { taskId: task.taskId, parentId: 5 }]) {
          expect(yield* fails(key, "move_task", args, scope), JSON.stringify(args)).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("parentId")
          })
        }
        expect(yield* fails(key, "move_task", { taskId: task.taskId, parentId: "not a task" }, scope)).toMatchObject({
          code: "invalid_argument",
          message: expect.stringMatching(/^parentId: /)
        })
      }))

    it.effect("a viewer cannot move a task: forbidden, and nothing changes", () =>
      Effect.gen(function*() {
        const { key, project, scope } = yield* seed("move-viewer")
        const { loose, root } = yield* tree(key, scope)
        const viewer = yield* joinAs(project.id, "move-viewer", "viewer")
        for (const parentId of [root.taskId, null]) {
          expect(yield* fails(viewer.key, "move_task", { taskId: loose.taskId, parentId }, scope)).toMatchObject({
            code: "forbidden",
            message: expect.stringContaining("the caller is viewer")
          })
        }
        expect((yield* getTask(key, loose.taskId, scope)).parentId).toBeNull()
        const member = yield* joinAs(project.id, "move-viewer", "member")
        expect(yield* ok(member.key, "move_task", { taskId: loose.taskId, parentId: root.taskId }, scope))
          .toEqual({ taskId: loose.taskId, parentId: root.taskId })
      }))
  })
})

describe("move_tasks_to_list", () => {
  layer(TestServer())((it) => {
    it.effect("moves each named task with its whole subtree to the List and returns { listId, movedTaskIds }", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("mtl-subtree")
        const { child, grandchild, loose, root, sibling } = yield* tree(key, scope)
        const other = yield* createTask(key, scope, { name: "Stays" })
        const { listId } = yield* ok(key, "create_task_list", { name: "Sprint", ref: "SPRINT" }, scope)
        const result = yield* ok(
          key,
          "move_tasks_to_list",
          { taskIds: [root.taskId, "MAIN-5"], listId: "sprint" },
          scope
        )
        expect(result.listId).toBe(listId)
        const moved = [root, child, grandchild, sibling, loose].map((task) => task.taskId)
        expect(sorted(result.movedTaskIds)).toEqual(sorted(moved))
        for (const taskId of moved) {
          expect((yield* getTask(key, taskId, scope)).list, taskId).toEqual({ listId, ref: "SPRINT", name: "Sprint" })
        }
        expect((yield* getTask(key, other.taskId, scope)).list?.ref).toBe("BACKLOG")
        expect(sorted(idsOf(yield* listTasks(key, scope, { listId: "SPRINT" })))).toEqual(sorted(moved))
        // The tree itself is unchanged.
        expect((yield* getTask(key, grandchild.taskId, scope)).parentId).toBe(child.taskId)
        // Back to the Backlog by List ID.
        const backlog = (yield* getTask(key, other.taskId, scope)).list!.listId
        const back = yield* ok(key, "move_tasks_to_list", { taskIds: [child.taskId], listId: backlog }, scope)
        expect(sorted(back.movedTaskIds)).toEqual(sorted([child.taskId, grandchild.taskId]))
        expect((yield* getTask(key, root.taskId, scope)).list?.ref).toBe("SPRINT")
        expect((yield* getTask(key, grandchild.taskId, scope)).list?.ref).toBe("BACKLOG")
      }))

    it.effect("a subtask named alone moves with its own subtree; its parent and siblings stay", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("mtl-alone")
        const { child, grandchild, root, sibling } = yield* tree(key, scope)
        yield* ok(key, "create_task_list", { name: "Later" }, scope)
        const result = yield* ok(key, "move_tasks_to_list", { taskIds: [child.taskId], listId: "LATER" }, scope)
        expect(sorted(result.movedTaskIds)).toEqual(sorted([child.taskId, grandchild.taskId]))
        for (const task of [root, sibling]) expect((yield* getTask(key, task.taskId, scope)).list?.ref).toBe("BACKLOG")
        expect((yield* getTask(key, child.taskId, scope)).parentId).toBe(root.taskId)
      }))

    it.effect("up to 25 tasks per call; 26 or none are rejected naming taskIds, and nothing moves", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("mtl-limit")
        yield* ok(key, "create_task_list", { name: "Bulk" }, scope)
        const created: Array<string> = []
        for (let n = 1; n <= 26; n++) created.push((yield* createTask(key, scope, { name: `T${n}` })).taskId)
        expect(yield* fails(key, "move_tasks_to_list", { taskIds: created, listId: "BULK" }, scope)).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("taskIds: must name at most 25 tasks")
        })
        expect(idsOf(yield* listTasks(key, scope, { listId: "BULK" }))).toEqual([])
        expect(yield* fails(key, "move_tasks_to_list", { taskIds: [], listId: "BULK" }, scope)).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("taskIds")
        })
        const result = yield* ok(key, "move_tasks_to_list", { taskIds: created.slice(0, 25), listId: "BULK" }, scope)
        expect(sorted(result.movedTaskIds)).toEqual(sorted(created.slice(0, 25)))
        expect(yield* listTasks(key, scope, { listId: "BULK" })).toHaveLength(25)
      }))

    it.effect("the List must be an active List of the project: unknown or another project's is not found, archived is refused; nothing moves", () =>
      Effect.gen(function*() {
        const { key, organization, project, scope } = yield* seed("mtl-target")
        const other = yield* (yield* Projects).create({ organizationId: organization.id, name: "Other", ref: "OTHER" })
        const elsewhere = yield* ok(key, "create_task_list", { name: "Elsewhere", ref: "ELSE" }, scopedTo(other.id))
        const old = yield* ok(key, "create_task_list", { name: "Old" }, scope)
        yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql`UPDATE task_lists SET archived_at = now() WHERE id = ${old.listId}`.pipe(Effect.orDie)
        )
        const task = yield* createTask(key, scope, { name: "Task" })
        for (const listId of ["NOPE", elsewhere.listId, "ELSE", "list_00000000000000000000000000000000"]) {
          expect(yield* fails(key, "move_tasks_to_list", { taskIds: [task.taskId], listId }, scope), listId).toEqual({
            code: "not_found",
            message: `listId: list ${listId} not found in project MAIN`
          })
        }
        for (const listId of [old.listId, "OLD"]) {
          expect(yield* fails(key, "move_tasks_to_list", { taskIds: [task.taskId], listId }, scope)).toMatchObject({
            code: "invalid_argument",
            message: expect.stringMatching(/^listId: .*archived/)
          })
        }
        expect(yield* fails(key, "move_tasks_to_list", { taskIds: [task.taskId] }, scope)).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("listId")
        })
        expect((yield* getTask(key, task.taskId, scope)).list?.ref).toBe("BACKLOG")
        expect(project.id).not.toBe(other.id)
      }))

    it.effect("naming a task and one of its descendants is rejected naming taskIds, and nothing moves (not even the tasks before)", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("mtl-overlap")
        const { child, grandchild, loose, root, sibling } = yield* tree(key, scope)
        yield* ok(key, "create_task_list", { name: "Target" }, scope)
        const all = [root, child, grandchild, sibling, loose].map((task) => task.taskId)
        for (
          const taskIds of [
            [loose.taskId, root.taskId, grandchild.taskId],
            [loose.taskId, grandchild.taskId, root.taskId],
            [loose.taskId, child.taskId, "MAIN-3"],
            [root.taskId, sibling.taskId]
          ]
        ) {
          expect(yield* fails(key, "move_tasks_to_list", { taskIds, listId: "TARGET" }, scope)).toMatchObject({
            code: "invalid_argument",
            message: expect.stringMatching(/^taskIds: .*subtask/)
          })
          for (const taskId of all) expect((yield* getTask(key, taskId, scope)).list?.ref).toBe("BACKLOG")
        }
      }))

    it.effect("an unknown task or a task of another project fails the call, and nothing moves", () =>
      Effect.gen(function*() {
        const { key, organization, scope } = yield* seed("mtl-mixed")
        const other = yield* (yield* Projects).create({ organizationId: organization.id, name: "Other", ref: "OTHER" })
        yield* ok(key, "create_task_list", { name: "Target" }, scope)
        const mine = yield* createTask(key, scope, { name: "Mine" })
        const there = yield* createTask(key, scopedTo(other.id), { name: "There" })
        expect(yield* fails(key, "move_tasks_to_list", { taskIds: [mine.taskId, "MAIN-42"], listId: "TARGET" }, scope)).toMatchObject({
          code: "not_found",
          message: expect.stringContaining("task MAIN-42 not found")
        })
        expect(yield* fails(key, "move_tasks_to_list", { taskIds: [mine.taskId, there.taskId], listId: "TARGET" }, scope)).toMatchObject({
          code: "invalid_argument",
          message: expect.stringMatching(/^taskIds: .*another project/)
        })
        expect((yield* getTask(key, mine.taskId, scope)).list?.ref).toBe("BACKLOG")
        expect((yield* getTask(key, there.taskId)).list?.ref).toBe("BACKLOG")
      }))

    it.effect("a viewer cannot move tasks to a List: forbidden, and nothing moves", () =>
      Effect.gen(function*() {
        const { key, project, scope } = yield* seed("mtl-viewer")
        yield* ok(key, "create_task_list", { name: "Target" }, scope)
        const task = yield* createTask(key, scope, { name: "Task" })
        const viewer = yield* joinAs(project.id, "mtl-viewer", "viewer")
        expect(yield* fails(viewer.key, "move_tasks_to_list", { taskIds: [task.taskId], listId: "TARGET" }, scope)).toMatchObject({
          code: "forbidden"
        })
        expect((yield* getTask(key, task.taskId, scope)).list?.ref).toBe("BACKLOG")
      }))
  })
})

describe("delete_task", () => {
  layer(TestServer())((it) => {
    it.effect("delete_all (the default) soft-deletes the task and its whole subtree: get_task, get_tasks and list_tasks no longer find them", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("del-all")
        const { child, grandchild, loose, root, sibling } = yield* tree(key, scope)
        const subtree = [root, child, grandchild, sibling]
        const result = yield* ok(key, "delete_task", { taskId: root.taskId }, scope)
        expect(sorted(result.deletedTaskIds)).toEqual(sorted(idsOf(subtree)))
        for (const task of subtree) {
          for (const address of [task.taskId, task.refId, `del-all/${task.refId}`]) {
            expect(yield* fails(key, "get_task", { taskId: address }, scope)).toEqual({
              code: "not_found",
              message: `taskId: task ${address} not found`
            })
          }
        }
        expect(idsOf(yield* listTasks(key, scope, { includeArchived: true }))).toEqual([loose.taskId])
        const { tasks } = yield* ok(
          key,
          "get_tasks",
          { identifiers: [root.taskId, "MAIN-3", loose.taskId] },
          scope
        )
        expect(tasks.map((entry) => ("error" in entry ? entry.error.code : "found"))).toEqual(["not_found", "not_found", "found"])
      }))

    it.effect("an explicit delete_all deletes a subtask's subtree only; the parent's subtasks and subtaskCount drop it", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("del-sub")
        const { child, grandchild, root, sibling } = yield* tree(key, scope)
        const result = yield* ok(
          key,
          "delete_task",
          { taskId: child.refId, cascadeMode: "delete_all" },
          scope
        )
        expect(sorted(result.deletedTaskIds)).toEqual(sorted([child.taskId, grandchild.taskId]))
        const parent = yield* getTask(key, root.taskId, scope)
        expect(subtaskIds(parent)).toEqual([sibling.taskId])
        expect(parent.subtaskCount).toBe(1)
      }))

    it.effect("keep_children moves the direct subtasks up to the deleted task's parent, last among its children; grandchildren stay", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("del-keep")
        const root = yield* createTask(key, scope, { name: "Root" })
        const first = yield* createTask(key, scope, { name: "First", parentId: root.taskId })
        const doomed = yield* createTask(key, scope, { name: "Doomed", parentId: root.taskId })
        const last = yield* createTask(key, scope, { name: "Last", parentId: root.taskId })
        const kidA = yield* createTask(key, scope, { name: "Kid A", parentId: doomed.taskId })
        const kidB = yield* createTask(key, scope, { name: "Kid B", parentId: doomed.taskId })
        const grandkid = yield* createTask(key, scope, { name: "Grandkid", parentId: kidA.taskId })
        const result = yield* ok(
          key,
          "delete_task",
          { taskId: doomed.taskId, cascadeMode: "keep_children" },
          scope
        )
        expect(result).toEqual({ deletedTaskIds: [doomed.taskId] })
        const parent = yield* getTask(key, root.taskId, scope)
        expect(subtaskIds(parent)).toEqual([first.taskId, last.taskId, kidA.taskId, kidB.taskId])
        expect(subtaskIds(yield* getTask(key, kidA.taskId, scope))).toEqual([grandkid.taskId])
        expect((yield* getTask(key, grandkid.taskId, scope)).parentId).toBe(kidA.taskId)
        expect((yield* getTask(key, kidB.taskId, scope)).parentId).toBe(root.taskId)
        expect(yield* fails(key, "get_task", { taskId: doomed.taskId }, scope)).toMatchObject({ code: "not_found" })
      }))

    it.effect("keep_children on a top-level task makes its subtasks top-level tasks", () =>
      Effect.gen(function*() {
        const { key, project, scope } = yield* seed("del-keep-top")
        const { child, grandchild, loose, root, sibling } = yield* tree(key, scope)
        yield* ok(key, "delete_task", { taskId: root.taskId, cascadeMode: "keep_children" }, scope)
        for (const task of [child, sibling]) expect((yield* getTask(key, task.taskId, scope)).parentId).toBeNull()
        expect((yield* getTask(key, grandchild.taskId, scope)).parentId).toBe(child.taskId)
        expect(sorted(idsOf(yield* listTasks(key, scope)))).toEqual(sorted([child, grandchild, sibling, loose].map((task) => task.taskId)))
        expect(yield* lastTopLevel(project.id)).toBe(sibling.taskId)
      }))

    it.effect("a deleted task cannot be updated, commented, linked, moved or deleted again: not found", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("del-gone")
        const task = yield* createTask(key, scope, { name: "Gone" })
        const alive = yield* createTask(key, scope, { name: "Alive" })
        yield* ok(key, "delete_task", { taskId: task.taskId }, scope)
        for (
          const [name, args] of [
            ["update_task", { taskId: task.taskId, name: "Back" }],
            ["create_task_comment", { taskId: task.taskId, content: "hello" }],
            ["update_task_link", { taskId: task.taskId, op: "delete", id: "x" }],
            ["move_task", { taskId: task.taskId, parentId: null }],
            ["move_task", { taskId: alive.taskId, parentId: task.taskId }],
            ["move_tasks_to_list", { taskIds: [task.taskId], listId: "BACKLOG" }],
            ["delete_task", { taskId: task.taskId }],
            ["delete_task", { taskId: "MAIN-1", cascadeMode: "keep_children" }],
            ["create_task", { name: "Child", parentId: task.taskId }]
          ] as const
        ) {
          expect(yield* fails(key, name, args, scope), name).toMatchObject({ code: "not_found" })
        }
        // Refs are not reused.
        expect((yield* createTask(key, scope, { name: "Next" })).refId).toBe("MAIN-3")
      }))

    it.effect("cascadeMode takes only delete_all or keep_children", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("del-mode")
        const task = yield* createTask(key, scope, { name: "Task" })
        expect(yield* fails(key, "delete_task", { taskId: task.taskId, cascadeMode: "orphan" }, scope)).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("cascadeMode")
        })
        expect((yield* getTask(key, task.taskId, scope)).taskId).toBe(task.taskId)
      }))

    it.effect("a viewer cannot delete a task: forbidden, and nothing changes", () =>
      Effect.gen(function*() {
        const { key, project, scope } = yield* seed("del-viewer")
        const { child, root } = yield* tree(key, scope)
        const viewer = yield* joinAs(project.id, "del-viewer", "viewer")
        for (const cascadeMode of ["delete_all", "keep_children"]) {
          expect(yield* fails(viewer.key, "delete_task", { taskId: root.taskId, cascadeMode }, scope)).toMatchObject({
            code: "forbidden",
            message: expect.stringContaining("the caller is viewer")
          })
        }
        expect(subtaskIds(yield* getTask(key, root.taskId, scope))).toContain(child.taskId)
        expect(yield* listTasks(key, scope)).toHaveLength(5)
      }))
  })
})
