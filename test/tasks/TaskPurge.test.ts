import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { Principal, ProjectAccess } from "../../src/platform/auth/Principal.js"
import { SOFT_DELETE_RETENTION_DAYS } from "../../catalog/domain/Task.js"
import { TaskPurgeLive } from "../../src/tasks/TaskPurge.js"
import { TaskComments } from "../../src/tasks/TaskComments.js"
import { TaskLinks } from "../../src/tasks/TaskLinks.js"
import { TaskReads } from "../../src/tasks/TaskReads.js"
import { TaskTree } from "../../src/tasks/TaskTree.js"
import { type NewTask, TaskWrites } from "../../src/tasks/TaskWrites.js"
import { ServiceTest } from "../support/ServiceTest.js"
import { seedOwner } from "../support/Seed.js"

/** A fresh organization and project, seen by its owner as admin, with the task services the purge touches. */
const seed = (slug: string) =>
  Effect.gen(function*() {
    const owner = yield* seedOwner(slug)
    const access: ProjectAccess = { project: owner.project, role: "admin" }
    const writes = yield* TaskWrites
    const create = (input: NewTask) => Effect.map(writes.create(owner.principal, access, input), (created) => created.taskId)
    return { ...owner, access, reads: yield* TaskReads, tree: yield* TaskTree, create }
  })

/** Gives a task a comment and an external link. */
const decorate = (principal: Principal, taskId: string) =>
  Effect.gen(function*() {
    const resolved = yield* (yield* TaskReads).resolve(principal, taskId, null)
    yield* (yield* TaskComments).add(principal, resolved, `A comment on ${taskId}`)
    yield* (yield* TaskLinks).update(resolved, { op: "upsert", id: "home", link: { kind: "url", url: "https://example.com/" } })
  })

/** Marks tasks deleted `age` ago (a PostgreSQL interval such as '31 days'). */
const deletedAgo = (taskIds: ReadonlyArray<string>, age: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`UPDATE tasks SET deleted_at = now() - ${age}::interval WHERE id IN ${sql.in(taskIds)}`.pipe(Effect.orDie)
  })

/** The rows still stored for these tasks: the task, its parent, its links and comments. */
const stored = (taskIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ id: string; parentId: string | null; deleted: boolean; links: number; comments: number }>`
      SELECT t.id, t.parent_id AS "parentId", t.deleted_at IS NOT NULL AS deleted,
        (SELECT count(*)::int FROM task_links l WHERE l.task_id = t.id) AS links,
        (SELECT count(*)::int FROM task_comments c WHERE c.task_id = t.id) AS comments
      FROM tasks t WHERE t.id IN ${sql.in(taskIds)} ORDER BY t.id`.pipe(Effect.orDie)
    return new Map(rows.map((row) => [row.id, row]))
  })

const orphanCounts = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ links: number; comments: number }>`
    SELECT (SELECT count(*)::int FROM task_links l WHERE NOT EXISTS (SELECT 1 FROM tasks t WHERE t.id = l.task_id)) AS links,
      (SELECT count(*)::int FROM task_comments c WHERE NOT EXISTS (SELECT 1 FROM tasks t WHERE t.id = c.task_id)) AS comments`.pipe(
    Effect.orDie
  )
  return row
})

describe("TaskTree.purgeDeleted (TaskPurge)", () => {
  layer(ServiceTest(Layer.mergeAll(TaskTree.Default, TaskReads.Default, TaskWrites.Default, TaskLinks.Default, TaskComments.Default)))(
    (it) => {
      it.effect("the retention of soft-deleted tasks is 30 days", () => Effect.sync(() => expect(SOFT_DELETE_RETENTION_DAYS).toBe(30)))

      it.effect("tasks deleted more than 30 days ago are removed for good with their links and comments; the count matches", () =>
        Effect.gen(function*() {
          const { create, principal, reads, tree } = yield* seed("purge-old")
          const first = yield* create({ name: "Old one" })
          const second = yield* create({ name: "Old two" })
          const alive = yield* create({ name: "Alive" })
          for (const taskId of [first, second, alive]) yield* decorate(principal, taskId)
          for (const taskId of [first, second]) yield* tree.remove(yield* reads.resolve(principal, taskId, null), "delete_all")
          yield* deletedAgo([first], "31 days")
          yield* deletedAgo([second], "30 days 1 minute")
          expect(yield* tree.purgeDeleted()).toBe(2)
          const rows = yield* stored([first, second, alive])
          expect([...rows.keys()]).toEqual([alive])
          expect(rows.get(alive)).toMatchObject({ links: 1, comments: 1, deleted: false })
          expect(yield* orphanCounts).toEqual({ links: 0, comments: 0 })
          // Nothing is left to purge.
          expect(yield* tree.purgeDeleted()).toBe(0)
        }))

      it.effect("tasks deleted 29 days ago, or just under 30, stay with their links and comments; live tasks are never purged", () =>
        Effect.gen(function*() {
          const { create, principal, tree } = yield* seed("purge-recent")
          const recent = yield* create({ name: "Recent" })
          const almost = yield* create({ name: "Almost" })
          const live = yield* create({ name: "Live" })
          for (const taskId of [recent, almost, live]) yield* decorate(principal, taskId)
          yield* deletedAgo([recent], "29 days")
          yield* deletedAgo([almost], "29 days 23 hours")
          // An old task that is not deleted (only old, by its timestamps) stays as well.
          yield* Effect.flatMap(
            SqlClient.SqlClient,
            (sql) =>
              sql`UPDATE tasks SET created_at = now() - interval '400 days', updated_at = now() - interval '400 days' WHERE id = ${live}`
                .pipe(Effect.orDie)
          )
          expect(yield* tree.purgeDeleted()).toBe(0)
          const rows = yield* stored([recent, almost, live])
          expect([...rows.values()].map((row) => ({ links: row.links, comments: row.comments }))).toEqual([
            { links: 1, comments: 1 },
            { links: 1, comments: 1 },
            { links: 1, comments: 1 }
          ])
          expect(rows.get(recent)?.deleted).toBe(true)
          expect(rows.get(live)?.deleted).toBe(false)
        }))

      it.effect("a purged task's surviving children move to the top level, deleted or not", () =>
        Effect.gen(function*() {
          const { create, principal, reads, tree } = yield* seed("purge-orphans")
          const parent = yield* create({ name: "Parent" })
          const survivor = yield* create({ name: "Survivor", parentId: parent })
          const recentlyDeleted = yield* create({ name: "Recently deleted", parentId: parent })
          const grandchild = yield* create({ name: "Grandchild", parentId: survivor })
          yield* deletedAgo([parent], "31 days")
          yield* deletedAgo([recentlyDeleted], "29 days")
          expect(yield* tree.purgeDeleted()).toBe(1)
          const rows = yield* stored([parent, survivor, recentlyDeleted, grandchild])
          expect(rows.has(parent)).toBe(false)
          expect(rows.get(survivor)).toMatchObject({ parentId: null, deleted: false })
          expect(rows.get(recentlyDeleted)).toMatchObject({ parentId: null, deleted: true })
          // Deeper levels keep their own parents.
          expect(rows.get(grandchild)).toMatchObject({ parentId: survivor, deleted: false })
          // The survivor is still a readable top-level task with its subtask.
          const resolved = yield* reads.resolve(principal, survivor, null)
          expect(resolved.task).toMatchObject({ parentId: null, subtaskCount: 1 })
          expect((yield* reads.details(resolved)).subtasks.map((task) => task.id)).toEqual([grandchild])
        }))

      it.effect("an expired subtree is purged in one pass, parents and children together", () =>
        Effect.gen(function*() {
          const { create, principal, reads, tree } = yield* seed("purge-tree")
          const root = yield* create({ name: "Root" })
          const child = yield* create({ name: "Child", parentId: root })
          const grandchild = yield* create({ name: "Grandchild", parentId: child })
          const other = yield* create({ name: "Other" })
          for (const taskId of [root, child, grandchild]) yield* decorate(principal, taskId)
          const { deletedTaskIds } = yield* tree.remove(yield* reads.resolve(principal, root, null), "delete_all")
          expect([...deletedTaskIds].sort()).toEqual([root, child, grandchild].sort())
          yield* deletedAgo(deletedTaskIds, "45 days")
          expect(yield* tree.purgeDeleted()).toBe(3)
          expect([...(yield* stored([root, child, grandchild, other])).keys()]).toEqual([other])
          expect(yield* orphanCounts).toEqual({ links: 0, comments: 0 })
        }))

      it.effect("a task deleted with keep_children is purged alone; its former children are untouched", () =>
        Effect.gen(function*() {
          const { create, principal, reads, tree } = yield* seed("purge-keep")
          const parent = yield* create({ name: "Parent" })
          const child = yield* create({ name: "Child", parentId: parent })
          yield* tree.remove(yield* reads.resolve(principal, parent, null), "keep_children")
          yield* deletedAgo([parent], "31 days")
          expect(yield* tree.purgeDeleted()).toBe(1)
          expect((yield* stored([parent, child])).get(child)).toMatchObject({ parentId: null, deleted: false })
        }))

      it.effect("the purge counts across projects and organizations", () =>
        Effect.gen(function*() {
          const one = yield* seed("purge-one")
          const two = yield* seed("purge-two")
          const a = yield* one.create({ name: "A" })
          const b = yield* two.create({ name: "B" })
          const c = yield* two.create({ name: "C" })
          yield* deletedAgo([a, b, c], "60 days")
          expect(yield* one.tree.purgeDeleted()).toBe(3)
          expect((yield* stored([a, b, c])).size).toBe(0)
        }))

      it.effect("TaskPurgeLive purges expired tasks as soon as it starts", () =>
        Effect.gen(function*() {
          const { create, tree } = yield* seed("purge-fiber")
          const old = yield* create({ name: "Old" })
          const recent = yield* create({ name: "Recent" })
          yield* deletedAgo([old], "31 days")
          yield* deletedAgo([recent], "1 day")
          yield* Effect.scoped(Effect.gen(function*() {
            yield* Layer.build(TaskPurgeLive.pipe(Layer.provide(Layer.succeed(TaskTree, tree))))
            let left = 1
            for (let attempt = 0; attempt < 100 && left > 0; attempt++) {
              // Real time: the test clock does not move by itself.
              yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
              left = (yield* stored([old])).size
            }
            expect(left).toBe(0)
          }))
          expect((yield* stored([recent])).get(recent)?.deleted).toBe(true)
        }))
    }
  )
})
