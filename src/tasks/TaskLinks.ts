import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import type { NewExternalLink } from "../../catalog/Tasks.js"
import { LimitExceeded } from "../../catalog/domain/Errors.js"
import { type Link, MAX_EXTERNAL_LINKS } from "../../catalog/domain/Task.js"
import { requireWrite, type ResolvedTask } from "./TaskAccess.js"
import { jsonb, StoredLink } from "./TaskRow.js"

/** update_task_link's change once checked: an upsert always carries its link. */
export type LinkChange =
  | { readonly op: "upsert"; readonly id: string; readonly link: Link }
  | { readonly op: "delete"; readonly id: string }

const LinkSlots = Schema.Struct({ n: Schema.Number, next: Schema.Number })

/** The external links on tasks (commits, branches, pull requests, URLs), in each task's own order. */
export class TaskLinks extends Effect.Service<TaskLinks>()("trellis/TaskLinks", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const linkRows = SqlSchema.findAll({
      Request: Schema.Array(Schema.String),
      Result: StoredLink,
      execute: (taskIds) =>
        sql`SELECT task_id AS "taskId", id, link, created_at AS "createdAt", updated_at AS "updatedAt"
          FROM task_links WHERE task_id IN ${sql.in(taskIds)} ORDER BY task_id, position, created_at`
    })

    const slotsOf = SqlSchema.findAll({
      Request: Schema.String,
      Result: LinkSlots,
      execute: (taskId) =>
        sql`SELECT count(*)::int AS n, coalesce(max(position) + 1, 0)::int AS next FROM task_links WHERE task_id = ${taskId}`
    })

    const none: ReadonlyArray<StoredLink> = []

    const linksOf = Effect.fn("TaskLinks.linksOf")(function*(taskIds: ReadonlyArray<string>) {
      if (taskIds.length === 0) return none
      return yield* linkRows(taskIds).pipe(Effect.orDie)
    })

    /** A new task's links, in the caller's transaction. */
    const insert = Effect.fn("TaskLinks.insert")(function*(taskId: string, links: ReadonlyArray<typeof NewExternalLink.Type>) {
      yield* Effect.forEach(
        links,
        ({ id, ...link }, position) =>
          sql`INSERT INTO task_links (task_id, id, position, link) VALUES (${taskId}, ${id}, ${position}, ${jsonb(sql, link)})`,
        { discard: true }
      )
    })

    /** Adds or replaces (in place, keeping createdAt) the link with this id; deleting is idempotent. */
    const update = Effect.fn("TaskLinks.update")(function*(resolved: ResolvedTask, change: LinkChange) {
      yield* requireWrite(resolved.access)
      const taskId = resolved.task.id
      yield* sql.withTransaction(Effect.gen(function*() {
        // Serializes link changes per task, so the limit holds under concurrent upserts.
        yield* sql`SELECT 1 FROM tasks WHERE id = ${taskId} FOR UPDATE`
        if (change.op === "delete") {
          yield* sql`DELETE FROM task_links WHERE task_id = ${taskId} AND id = ${change.id}`
          return
        }
        const updated = yield* sql`UPDATE task_links SET link = ${jsonb(sql, change.link)}, updated_at = now()
          WHERE task_id = ${taskId} AND id = ${change.id} RETURNING id`
        if (updated.length > 0) return
        const [slots] = yield* slotsOf(taskId)
        if ((slots?.n ?? 0) >= MAX_EXTERNAL_LINKS) {
          return yield* new LimitExceeded({
            message: `externalLinks: task ${resolved.task.ref} already has ${MAX_EXTERNAL_LINKS} links, the most a task holds`
          })
        }
        yield* sql`INSERT INTO task_links (task_id, id, position, link) VALUES (${taskId}, ${change.id}, ${slots?.next ?? 0}, ${
          jsonb(sql, change.link)
        })`
      })).pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die }))
      yield* sql`UPDATE tasks SET updated_at = now() WHERE id = ${taskId}`.pipe(Effect.orDie)
      return yield* linksOf([taskId])
    })

    return { linksOf, insert, update } as const
  })
}) {}
