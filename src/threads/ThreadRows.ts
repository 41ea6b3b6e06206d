import { SqlClient, type Statement } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import type { Principal } from "../platform/auth/Principal.js"
import { threadNotFound, threadReadableBy } from "./ThreadVisibility.js"
import { NotFound } from "../../catalog/domain/Errors.js"
import { ProjectId } from "../../catalog/domain/Ids.js"
import { AggregateStatus, ProcessingState, ThreadKind, ThreadStatus } from "../../catalog/domain/Thread.js"
import { TrellisConfig } from "../platform/TrellisConfig.js"
import { Projects } from "../projects/Projects.js"

/** A thread as read for views: its target, queue state and, for containers, the members' summary. */
export const ThreadRow = Schema.Struct({
  id: Schema.String,
  projectId: Schema.String,
  createdBy: Schema.String,
  kind: ThreadKind,
  title: Schema.String,
  status: ThreadStatus,
  doneAt: Schema.NullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf,
  lastActivityAt: Schema.DateFromSelf,
  associatedTaskId: Schema.NullOr(Schema.String),
  parentThreadId: Schema.NullOr(Schema.String),
  spawnedByThreadId: Schema.NullOr(Schema.String),
  originThreadId: Schema.NullOr(Schema.String),
  profileId: Schema.NullOr(Schema.String),
  profileName: Schema.NullOr(Schema.String),
  pathId: Schema.NullOr(Schema.String),
  path: Schema.NullOr(Schema.String),
  pathKind: Schema.NullOr(Schema.String),
  cliType: Schema.NullOr(Schema.String),
  cliModel: Schema.NullOr(Schema.String),
  cliEffort: Schema.NullOr(Schema.String),
  cliMode: Schema.NullOr(Schema.String),
  processingState: ProcessingState,
  hasPendingUserMessages: Schema.Boolean,
  hasPendingInteraction: Schema.Boolean,
  queueHeldAt: Schema.NullOr(Schema.DateFromSelf),
  pinnedAt: Schema.NullOr(Schema.DateFromSelf),
  sharedAt: Schema.NullOr(Schema.DateFromSelf),
  groupSharedAt: Schema.NullOr(Schema.DateFromSelf),
  memberCount: Schema.Number,
  /** `last_activity_at` in microseconds since the epoch (a decimal string), so a page cursor is exact. */
  activityCursor: Schema.String,
  targetOnline: Schema.Boolean,
  lastHeartbeatAt: Schema.NullOr(Schema.DateFromSelf),
  runtimeSessionElsewhere: Schema.Boolean,
  childCount: Schema.Number,
  aggregateStatus: Schema.NullOr(AggregateStatus)
})
export type ThreadRow = typeof ThreadRow.Type
const decodeRows = Schema.decodeUnknown(Schema.Array(ThreadRow))

/**
 * Reading threads as rows: the one SELECT every thread view comes from, and the two ways a caller
 * may reach a thread (reading it, or owning it for a write).
 */
export class ThreadRows extends Effect.Service<ThreadRows>()("trellis/ThreadRows", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* TrellisConfig
    const projects = yield* Projects
    const ttlSeconds = config.bridge.sessionTtlMs / 1000

    /** Threads matching `where` (on the row aliased `t`), with `tail` for order and limit. */
    const select = (where: Statement.Fragment, tail: Statement.Fragment = sql``) =>
      sql`
        SELECT t.id, t.project_id AS "projectId", t.created_by AS "createdBy", t.kind, t.title, t.status,
          t.done_at AS "doneAt", t.created_at AS "createdAt", t.last_activity_at AS "lastActivityAt",
          t.associated_task_id AS "associatedTaskId", t.parent_thread_id AS "parentThreadId",
          t.spawned_by_thread_id AS "spawnedByThreadId", t.origin_thread_id AS "originThreadId",
          t.profile_id AS "profileId", pr.name AS "profileName", t.path_id AS "pathId", cp.path, cp.kind AS "pathKind",
          t.cli_type AS "cliType", t.cli_model AS "cliModel", t.cli_effort AS "cliEffort", t.cli_mode AS "cliMode",
          t.processing_state AS "processingState", t.has_pending_user_messages AS "hasPendingUserMessages",
          t.has_pending_interaction AS "hasPendingInteraction", t.queue_held_at AS "queueHeldAt",
          t.pinned_at AS "pinnedAt", t.shared_at AS "sharedAt", g.shared_at AS "groupSharedAt",
          t.member_count AS "memberCount", (extract(epoch FROM t.last_activity_at) * 1000000)::bigint::text AS "activityCursor",
          EXISTS (SELECT 1 FROM agent_sessions s WHERE s.profile_id = t.profile_id AND s.ended_at IS NULL
            AND s.last_heartbeat_at > now() - make_interval(secs => ${ttlSeconds})) AS "targetOnline",
          (SELECT max(s.last_heartbeat_at) FROM agent_sessions s WHERE s.profile_id = t.profile_id) AS "lastHeartbeatAt",
          COALESCE((SELECT bool_and(s.machine_id IS DISTINCT FROM t.runtime_machine_id) FROM agent_sessions s
            WHERE t.runtime_machine_id IS NOT NULL AND s.profile_id = t.profile_id AND s.ended_at IS NULL
              AND s.last_heartbeat_at > now() - make_interval(secs => ${ttlSeconds})), false) AS "runtimeSessionElsewhere",
          COALESCE(agg.children, 0)::int AS "childCount", agg.status AS "aggregateStatus"
        FROM threads t
        LEFT JOIN cli_profiles pr ON pr.id = t.profile_id
        LEFT JOIN cli_paths cp ON cp.id = t.path_id
        LEFT JOIN threads g ON g.id = t.parent_thread_id
        LEFT JOIN LATERAL (
          SELECT count(*) AS children,
            CASE WHEN bool_or(m.has_pending_interaction) THEN 'needs_attention'
              WHEN bool_or(m.status = 'failed') THEN 'failed'
              WHEN bool_or(m.status IN ('pending', 'running')) THEN 'running'
              ELSE 'idle' END AS status
          FROM threads m WHERE m.parent_thread_id = t.id AND m.deleted_at IS NULL AND t.kind <> 'thread'
        ) agg ON true
        WHERE ${where} ${tail}`.pipe(Effect.flatMap(decodeRows), Effect.orDie)

    /** A thread the caller may read (ThreadVisibility's one rule, in the WHERE); anything else is none. */
    const findReadable = (principal: Principal, threadId: string) =>
      Effect.map(
        select(sql.and([sql`t.id = ${threadId}`, sql`t.deleted_at IS NULL`, threadReadableBy(sql, principal)])),
        ([row]) => row
      )

    /** One of the caller's own threads, for writes: anyone else's reads as not found. */
    const findOwn = (principal: Principal, threadId: string, field: string) =>
      Effect.gen(function*() {
        const [row] = yield* select(sql.and([
          sql`t.id = ${threadId}`,
          sql`t.deleted_at IS NULL`,
          sql`t.created_by = ${principal.userId}`
        ]))
        if (row === undefined) return yield* new NotFound({ message: `${field}: thread ${threadId} not found` })
        const projectId = Schema.decodeUnknownOption(ProjectId)(row.projectId)
        if (Option.isNone(projectId)) return yield* new NotFound({ message: `${field}: thread ${threadId} not found` })
        yield* projects.access(principal, projectId.value).pipe(
          Effect.catchTag("NotFound", () => new NotFound({ message: `${field}: thread ${threadId} not found` }))
        )
        return row
      })

    const get = Effect.fn("ThreadRows.get")(function*(principal: Principal, threadId: string) {
      const row = yield* findReadable(principal, threadId)
      if (row === undefined) return yield* threadNotFound
      return row
    })

    return { select, findReadable, findOwn, get } as const
  }),
  dependencies: [Projects.Default]
}) {}
