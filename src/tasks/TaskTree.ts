import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import type { DeleteTask } from "../../catalog/Tasks.js"
import { InvalidArgument } from "../../catalog/domain/Errors.js"
import { rankAfter } from "../../catalog/domain/Rank.js"
import { SOFT_DELETE_RETENTION_DAYS } from "../../catalog/domain/Task.js"
import type { ProjectAccess } from "../platform/auth/Principal.js"
import { TaskLists } from "../lists-labels/TaskLists.js"
import { requireWrite, type ResolvedTask } from "./TaskAccess.js"

/** delete_task's cascadeMode: the subtree goes too, or the children move up a level. */
export type CascadeMode = NonNullable<typeof DeleteTask.input.Type["cascadeMode"]>

const TaskIdRow = Schema.Struct({ id: Schema.String })
const ParentRow = Schema.Struct({ parentId: Schema.NullOr(Schema.String) })
const LastRank = Schema.Struct({ rank: Schema.NullOr(Schema.String) })

/** Changes that move or remove whole subtrees: reparenting, moving to a List, deleting and purging. */
export class TaskTree extends Effect.Service<TaskTree>()("trellis/TaskTree", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const taskLists = yield* TaskLists

    const subtreeRows = SqlSchema.findAll({
      Request: Schema.Array(Schema.String),
      Result: TaskIdRow,
      execute: (taskIds) =>
        sql`
        WITH RECURSIVE tree AS (
          SELECT id FROM tasks WHERE id IN ${sql.in(taskIds)}
          UNION
          SELECT c.id FROM tasks c JOIN tree ON c.parent_id = tree.id WHERE c.deleted_at IS NULL
        ) SELECT id FROM tree`
    })

    /** The tasks and all their live descendants. */
    const descendants = (taskIds: ReadonlyArray<string>) => Effect.map(subtreeRows(taskIds), (rows) => rows.map((row) => row.id))

    const lastRank = SqlSchema.findAll({
      Request: Schema.Struct({ projectId: Schema.String, parentId: Schema.NullOr(Schema.String) }),
      Result: LastRank,
      execute: ({ parentId, projectId }) =>
        sql`SELECT max(rank) AS rank FROM tasks
          WHERE project_id = ${projectId} AND parent_id IS NOT DISTINCT FROM ${parentId} AND deleted_at IS NULL`
    })

    const nextRank = (projectId: string, parentId: string | null) =>
      Effect.flatMap(lastRank({ projectId, parentId }), (rows) => rankAfter(rows[0]?.rank ?? null))

    const parentOf = SqlSchema.findAll({
      Request: Schema.String,
      Result: ParentRow,
      execute: (taskId) => sql`SELECT parent_id AS "parentId" FROM tasks WHERE id = ${taskId}`
    })

    const childrenOf = SqlSchema.findAll({
      Request: Schema.String,
      Result: TaskIdRow,
      execute: (taskId) => sql`SELECT id FROM tasks WHERE parent_id = ${taskId} AND deleted_at IS NULL ORDER BY rank, id`
    })

    /** Moves a task under another task of its project, or to the top level; refuses cycles. */
    const move = Effect.fn("TaskTree.move")(function*(resolved: ResolvedTask, parent: ResolvedTask | null) {
      const { access, task } = resolved
      yield* requireWrite(access)
      if (parent !== null && parent.access.project.id !== access.project.id) {
        return yield* new InvalidArgument({ message: `parentId: task ${parent.task.ref} is in another project` })
      }
      yield* sql.withTransaction(Effect.gen(function*() {
        // The project row's lock keeps two concurrent moves from building a cycle together.
        yield* sql`SELECT 1 FROM projects WHERE id = ${access.project.id} FOR NO KEY UPDATE`
        if (parent !== null && (yield* descendants([task.id])).includes(parent.task.id)) {
          return yield* new InvalidArgument({
            message: `parentId: ${parent.task.ref} is ${
              parent.task.id === task.id ? "the task itself" : `a subtask of ${task.ref}`
            }; a task cannot move under itself or its own subtasks`
          })
        }
        const rank = yield* nextRank(access.project.id, parent?.task.id ?? null)
        yield* sql`UPDATE tasks SET parent_id = ${parent?.task.id ?? null}, rank = ${rank}, updated_at = now() WHERE id = ${task.id}`
      })).pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die }))
      return { taskId: task.id, parentId: parent?.task.id ?? null }
    })

    /** Moves tasks, each with its subtree, to an active List of their project, in one transaction. */
    const moveToList = Effect.fn("TaskTree.moveToList")(
      function*(access: ProjectAccess, resolved: ReadonlyArray<ResolvedTask>, listIdOrRef: string) {
        yield* requireWrite(access)
        const foreign = resolved.find((item) => item.access.project.id !== access.project.id)
        if (foreign !== undefined) {
          return yield* new InvalidArgument({ message: `taskIds: ${foreign.task.ref} is in another project than ${resolved[0]?.task.ref}` })
        }
        const list = yield* taskLists.resolve(access, listIdOrRef)
        if (list.archivedAt !== null) {
          return yield* new InvalidArgument({ message: `listId: List ${list.ref} is archived; move tasks to an active List` })
        }
        const ids = resolved.map((item) => item.task.id)
        const moved = yield* sql.withTransaction(Effect.gen(function*() {
          for (const item of resolved) {
            const below = (yield* descendants([item.task.id])).filter((id) => id !== item.task.id)
            const overlap = resolved.find((other) => below.includes(other.task.id))
            if (overlap !== undefined) {
              return yield* new InvalidArgument({
                message:
                  `taskIds: ${overlap.task.ref} is a subtask of ${item.task.ref}, which already moves with its subtasks; name only one of them`
              })
            }
          }
          const all = yield* descendants(ids)
          yield* sql`UPDATE tasks SET list_id = ${list.id}, updated_at = now() WHERE id IN ${sql.in(all)}`
          return all
        })).pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die }))
        return { listId: list.id, movedTaskIds: moved }
      }
    )

    /** Soft-deletes a task and its subtree, or only the task with its children moved up a level. */
    const remove = Effect.fn("TaskTree.remove")(function*(resolved: ResolvedTask, mode: CascadeMode) {
      const { access, task } = resolved
      yield* requireWrite(access)
      return yield* sql.withTransaction(Effect.gen(function*() {
        // Serialized with moves on the project row, and the parent re-read under it, so a move
        // committed since the task was resolved cannot turn the reparenting into a cycle.
        yield* sql`SELECT 1 FROM projects WHERE id = ${access.project.id} FOR NO KEY UPDATE`
        const [current] = yield* parentOf(task.id)
        const parentId = current?.parentId ?? null
        if (mode === "delete_all") {
          const all = yield* descendants([task.id])
          yield* sql`UPDATE tasks SET deleted_at = now(), updated_at = now() WHERE id IN ${sql.in(all)}`
          return { deletedTaskIds: all }
        }
        for (const child of yield* childrenOf(task.id)) {
          const rank = yield* nextRank(access.project.id, parentId)
          yield* sql`UPDATE tasks SET parent_id = ${parentId}, rank = ${rank}, updated_at = now() WHERE id = ${child.id}`
        }
        yield* sql`UPDATE tasks SET deleted_at = now(), updated_at = now() WHERE id = ${task.id}`
        return { deletedTaskIds: [task.id] }
      })).pipe(Effect.orDie)
    })

    /** Removes for good the tasks deleted more than the retention period ago, with their links, comments, artifacts and files. */
    const purgeDeleted = Effect.fn("TaskTree.purgeDeleted")(function*() {
      return yield* sql.withTransaction(Effect.gen(function*() {
        const expired = sql`SELECT id FROM tasks WHERE deleted_at < now() - make_interval(days => ${SOFT_DELETE_RETENTION_DAYS})`
        yield* sql`DELETE FROM task_links WHERE task_id IN (${expired})`
        yield* sql`DELETE FROM task_comments WHERE task_id IN (${expired})`
        // Their comment threads go with them (ON DELETE CASCADE).
        yield* sql`DELETE FROM task_artifacts WHERE task_id IN (${expired})`
        // Their bytes go with them (ON DELETE CASCADE).
        yield* sql`DELETE FROM task_files WHERE task_id IN (${expired})`
        // Children that stay (not yet expired) cannot point at a purged task: they move to the top level.
        yield* sql`UPDATE tasks SET parent_id = NULL WHERE parent_id IN (${expired}) AND id NOT IN (${expired})`
        const purged = yield* sql`DELETE FROM tasks WHERE id IN (${expired}) RETURNING id`
        return purged.length
      })).pipe(Effect.orDie)
    })

    return { move, moveToList, remove, purgeDeleted } as const
  }),
  dependencies: [TaskLists.Default]
}) {}
