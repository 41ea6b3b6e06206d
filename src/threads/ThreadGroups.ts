import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import type { Principal, ProjectAccess } from "../platform/auth/Principal.js"
import { InvalidArgument, LimitExceeded, NotFound } from "../../catalog/domain/Errors.js"
import { ThreadId } from "../../catalog/domain/Ids.js"
import { MAX_GROUP_SIZE } from "../../catalog/domain/Thread.js"
import { requireWrite } from "../tasks/TaskAccess.js"
import { type ThreadRow, ThreadRows } from "./ThreadRows.js"

/** Where a spawned thread goes: beside `source`, in `group` when the source already has one. */
export interface SpawnSource {
  readonly source: ThreadRow
  readonly group: ThreadRow | undefined
}

const SourceState = Schema.Struct({
  parentThreadId: Schema.NullOr(Schema.String),
  pinnedAt: Schema.NullOr(Schema.DateFromSelf),
  sharedAt: Schema.NullOr(Schema.DateFromSelf)
})

/**
 * Containers: thread groups, which spawning beside a thread makes or grows (at most
 * MAX_GROUP_SIZE members, deleted ones count), and workflow runs, which are made empty.
 */
export class ThreadGroups extends Effect.Service<ThreadGroups>()("trellis/ThreadGroups", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* ThreadRows

    /** The source of a spawn: an ordinary thread of the caller's, or a group of theirs (a member is chosen). */
    const spawnSource = Effect.fn("ThreadGroups.spawnSource")(function*(principal: Principal, sourceThreadId: string) {
      const found = yield* rows.findOwn(principal, sourceThreadId, "sourceThreadId")
      if (found.kind === "workflow_run") {
        return yield* new InvalidArgument({ message: `sourceThreadId: ${found.id} is a workflow run, which cannot be joined` })
      }
      if (found.kind === "group") {
        const [member] = yield* rows.select(
          sql.and([sql`t.parent_thread_id = ${found.id}`, sql`t.deleted_at IS NULL`]),
          sql`ORDER BY (t.id = ${found.originThreadId ?? ""}) DESC, t.created_at, t.id LIMIT 1`
        )
        if (member === undefined) {
          return yield* new InvalidArgument({ message: `sourceThreadId: group ${found.id} has no member to spawn beside` })
        }
        return { source: member, group: found } satisfies SpawnSource
      }
      if (found.parentThreadId === null) return { source: found, group: undefined } satisfies SpawnSource
      const [parent] = yield* rows.select(sql.and([sql`t.id = ${found.parentThreadId}`]))
      return { source: found, group: parent } satisfies SpawnSource
    })

    const lockSource = SqlSchema.findOne({
      Request: Schema.String,
      Result: SourceState,
      execute: (threadId) =>
        sql`
          SELECT parent_thread_id AS "parentThreadId", pinned_at AS "pinnedAt", shared_at AS "sharedAt"
          FROM threads WHERE id = ${threadId} AND deleted_at IS NULL FOR NO KEY UPDATE`
    })

    /**
     * Makes room for one more member beside `spawn.source`, in the caller's transaction, and gives
     * the group's ID: the source's group, or a new one the source moves into.
     */
    const join = Effect.fn("ThreadGroups.join")(function*(principal: Principal, spawn: SpawnSource) {
      const { group, source } = spawn
      let parentThreadId: string
      if (group === undefined) {
        // Parallel spawns from one thread (an agent fanning out) must make one group: the source is
        // read again under its row lock, and whoever waited finds the group the first one made.
        const current = Option.getOrUndefined(yield* lockSource(source.id).pipe(Effect.orDie))
        if (current === undefined) return yield* new NotFound({ message: `sourceThreadId: thread ${source.id} not found` })
        if (current.parentThreadId === null) {
          // Spawning turns the source into a group: pin and share move to the group.
          const groupId = ThreadId.generate()
          yield* sql`
            INSERT INTO threads (id, project_id, created_by, kind, title, origin_thread_id, processing_state, status,
              pinned_at, shared_at, member_count)
            VALUES (${groupId}, ${source.projectId}, ${principal.userId}, 'group', ${source.title}, ${source.id}, 'idle', 'idle',
              ${current.pinnedAt}, ${current.sharedAt}, 1)`
          yield* sql`UPDATE threads SET parent_thread_id = ${groupId}, pinned_at = NULL, shared_at = NULL WHERE id = ${source.id}`
          parentThreadId = groupId
        } else {
          parentThreadId = current.parentThreadId
        }
      } else {
        parentThreadId = group.id
      }
      const grown = yield* sql`
        UPDATE threads SET member_count = member_count + 1, last_activity_at = now()
        WHERE id = ${parentThreadId} AND member_count < ${MAX_GROUP_SIZE}
        RETURNING member_count`
      if (grown.length === 0) {
        return yield* new LimitExceeded({
          message: `sourceThreadId: the group is full (${MAX_GROUP_SIZE} threads, deleted ones count); retrying will not help`
        })
      }
      return parentThreadId
    })

    /** An empty workflow run container; runs are started into it with create_thread's sourceThreadId. */
    const createWorkflowRun = Effect.fn("ThreadGroups.createWorkflowRun")(function*(
      principal: Principal,
      access: ProjectAccess,
      title: string
    ) {
      yield* requireWrite(access, "threads")
      const id = ThreadId.generate()
      yield* sql`
        INSERT INTO threads (id, project_id, created_by, kind, title, processing_state, status)
        VALUES (${id}, ${access.project.id}, ${principal.userId}, 'workflow_run', ${title}, 'idle', 'idle')`.pipe(Effect.orDie)
      return yield* rows.get(principal, id)
    })

    return { spawnSource, join, createWorkflowRun } as const
  }),
  dependencies: [ThreadRows.Default]
}) {}
