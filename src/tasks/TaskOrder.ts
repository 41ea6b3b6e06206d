import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { Conflict, InvalidArgument } from "../../catalog/domain/Errors.js"
import { rankBetween, spreadRanks } from "../../catalog/domain/Rank.js"
import { requireWrite, type ResolvedTask } from "./TaskAccess.js"

const Sibling = Schema.Struct({ id: Schema.String, rank: Schema.String })
const ParentRow = Schema.Struct({ id: Schema.String, parentId: Schema.NullOr(Schema.String) })

/** Where a task goes: after one task, before another, or between the two (the neighbours a person dropped it between). */
export interface Placement {
  readonly after: ResolvedTask | null
  readonly before: ResolvedTask | null
}

/**
 * The order of a task among its siblings (SPEC's tools take no rank: the board reorders through
 * its own route). A task is placed by its neighbours, never by a rank string, so a client cannot
 * make ranks that tie or break the order.
 */
export class TaskOrder extends Effect.Service<TaskOrder>()("trellis/TaskOrder", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const siblingsOf = SqlSchema.findAll({
      Request: Schema.Struct({ projectId: Schema.String, parentId: Schema.NullOr(Schema.String) }),
      Result: Sibling,
      execute: ({ parentId, projectId }) =>
        sql`SELECT id, rank FROM tasks
          WHERE project_id = ${projectId} AND parent_id IS NOT DISTINCT FROM ${parentId} AND deleted_at IS NULL
          ORDER BY rank, id`
    })

    const parentsOf = SqlSchema.findAll({
      Request: Schema.Array(Schema.String),
      Result: ParentRow,
      execute: (ids) => sql`SELECT id, parent_id AS "parentId" FROM tasks WHERE id IN ${sql.in(ids)} AND deleted_at IS NULL`
    })

    const neighbourRule = (resolved: ResolvedTask, field: "after" | "before", neighbour: ResolvedTask | null) => {
      if (neighbour === null) return Effect.void
      if (neighbour.task.id === resolved.task.id) {
        return new InvalidArgument({ message: `${field}: ${neighbour.task.ref} is the task itself` })
      }
      return neighbour.access.project.id === resolved.access.project.id
        ? Effect.void
        : new InvalidArgument({ message: `${field}: ${neighbour.task.ref} is in another project than ${resolved.task.ref}` })
    }

    /** Places the task right after `after` (or right before `before`) among the tasks of its parent. */
    const place = Effect.fn("TaskOrder.place")(function*(resolved: ResolvedTask, { after, before }: Placement) {
      const { access, task } = resolved
      yield* requireWrite(access)
      if (after === null && before === null) {
        return yield* new InvalidArgument({ message: "after, before: name the task this one goes after, before, or both" })
      }
      yield* neighbourRule(resolved, "after", after)
      yield* neighbourRule(resolved, "before", before)
      yield* sql.withTransaction(Effect.gen(function*() {
        // Serialized with moves (TaskTree) on the project row: the parents read here stay true until commit.
        yield* sql`SELECT 1 FROM projects WHERE id = ${access.project.id} FOR NO KEY UPDATE`
        const named = [after, before].flatMap((neighbour) => neighbour === null ? [] : [neighbour.task.id])
        const parents = new Map((yield* parentsOf([task.id, ...named])).map((row) => [row.id, row.parentId]))
        const parentId = parents.get(task.id) ?? null
        for (const [field, neighbour] of [["after", after], ["before", before]] as const) {
          if (neighbour === null) continue
          if (!parents.has(neighbour.task.id)) {
            return yield* new Conflict({ message: `${field}: ${neighbour.task.ref} was deleted meanwhile` })
          }
          if (parents.get(neighbour.task.id) !== parentId) {
            return yield* new InvalidArgument({
              message:
                `${field}: ${neighbour.task.ref} is not a sibling of ${task.ref}; only tasks under the same parent are ordered together`
            })
          }
        }
        const others = (yield* siblingsOf({ projectId: access.project.id, parentId })).filter((row) => row.id !== task.id)
        const indexOf = (neighbour: ResolvedTask) => others.findIndex((row) => row.id === neighbour.task.id)
        const at = after !== null ? indexOf(after) + 1 : before !== null ? indexOf(before) : others.length
        if (after !== null && before !== null && indexOf(before) < at) {
          return yield* new Conflict({
            message: `before: ${before.task.ref} comes before ${after.task.ref} now; read the order again and place the task anew`
          })
        }
        const lower = others[at - 1]?.rank ?? null
        const upper = others[at]?.rank ?? null
        if (lower === null || upper === null || lower < upper) {
          const rank = yield* rankBetween(lower, upper)
          yield* sql`UPDATE tasks SET rank = ${rank}, updated_at = now() WHERE id = ${task.id}`
          return
        }
        // Neighbours whose ranks tie (two tasks created at once): the siblings are spread again.
        const order = [...others.slice(0, at).map((row) => row.id), task.id, ...others.slice(at).map((row) => row.id)]
        const ranks = yield* spreadRanks(order.length)
        for (const [index, id] of order.entries()) yield* sql`UPDATE tasks SET rank = ${ranks[index] ?? ""} WHERE id = ${id}`
        yield* sql`UPDATE tasks SET updated_at = now() WHERE id = ${task.id}`
      })).pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die }))
      return { taskId: task.id }
    })

    return { place } as const
  })
}) {}
