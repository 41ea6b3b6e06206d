import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { TaskCommentId } from "../../catalog/domain/Ids.js"
import { MAX_COMMENTS_ON_GET } from "../../catalog/domain/Task.js"
import type { Principal } from "../platform/auth/Principal.js"
import { requireWrite, type ResolvedTask } from "./TaskAccess.js"
import { TaskCommentRow } from "./TaskRow.js"

/** A task's comments: added by members, shown on get_task. */
export class TaskComments extends Effect.Service<TaskComments>()("trellis/TaskComments", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const latestRows = SqlSchema.findAll({
      Request: Schema.String,
      Result: TaskCommentRow,
      execute: (taskId) =>
        sql`
        SELECT * FROM (
          SELECT c.id AS "commentId", c.author_id AS "authorId", u.name AS "authorName", c.content, c.created_at AS "createdAt"
          FROM task_comments c JOIN users u ON u.id = c.author_id
          WHERE c.task_id = ${taskId} ORDER BY c.created_at DESC, c.id DESC LIMIT ${MAX_COMMENTS_ON_GET}
        ) latest ORDER BY "createdAt", "commentId"`
    })

    /** The task's latest comments, oldest first. */
    const latest = Effect.fn("TaskComments.latest")(function*(taskId: string) {
      return yield* latestRows(taskId).pipe(Effect.orDie)
    })

    const add = Effect.fn("TaskComments.add")(function*(principal: Principal, resolved: ResolvedTask, content: string) {
      yield* requireWrite(resolved.access)
      const id = TaskCommentId.generate()
      yield* sql`INSERT INTO task_comments (id, task_id, author_id, content)
        VALUES (${id}, ${resolved.task.id}, ${principal.userId}, ${content.trim()})`.pipe(Effect.orDie)
      return { commentId: id, taskId: resolved.task.id }
    })

    return { latest, add } as const
  })
}) {}
