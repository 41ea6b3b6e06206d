import { SqlClient } from "@effect/sql"
import { Duration, Effect, Layer, Option, Schedule, Schema } from "effect"
import { decodeLoggedChange, type ProjectChange } from "../platform/notifications/LiveEvents.js"

/**
 * The project change log (migration 0017): every change the changes stream tells, numbered, kept
 * `RETAIN` so that a stream that dropped resumes after the last change it got, on any instance.
 */

/** How long changes are kept: a page whose stream was down longer reads everything again. */
export const RETAIN = Duration.minutes(15)

/**
 * A transaction's change is numbered when it is written and told when it commits: one numbered
 * before another may commit after it. A resumed stream also gets what was written this long before
 * the change it resumes after (told twice at worst: a page reads those again for nothing).
 */
const COMMIT_SLACK = Duration.seconds(10)

/** More changes than this since the resume point: reading everything again is cheaper. */
export const MAX_REPLAY = 5_000

/** What a stream that resumes after `after` gets: the changes since, or `Reset` when some are gone. */
export type Replay =
  | { readonly _tag: "Changes"; readonly changes: ReadonlyArray<ProjectChange> }
  | { readonly _tag: "Reset" }

const Row = Schema.Struct({
  seq: Schema.NumberFromString,
  change: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  projectId: Schema.String
})
const decodeRows = Schema.decodeUnknown(Schema.Array(Row))
const Latest = Schema.Struct({ latest: Schema.NumberFromString, purged: Schema.NumberFromString })
const decodeLatest = Schema.decodeUnknown(Schema.Array(Latest))
const decodeRemoved = Schema.decodeUnknown(Schema.Array(Schema.Struct({ removed: Schema.Number })))

export class ChangeLog extends Effect.Service<ChangeLog>()("trellis/ChangeLog", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** The number of the last change written (0 for none): where a stream opened now starts. */
    const latest = Effect.fn("ChangeLog.latest")(function*() {
      const [row] = yield* sql`
        SELECT (SELECT coalesce(max(id), 0) FROM project_change_log)::text AS latest,
          (SELECT through FROM project_change_log_purged)::text AS purged`.pipe(Effect.flatMap(decodeLatest), Effect.orDie)
      return row ?? { latest: 0, purged: 0 }
    })

    const since = Effect.fn("ChangeLog.since")(function*(projectId: string, after: number) {
      const { purged } = yield* latest()
      if (after < purged) return { _tag: "Reset" } satisfies Replay
      const rows = yield* sql`
        SELECT id::text AS seq, change, project_id AS "projectId" FROM project_change_log
        WHERE project_id = ${projectId}
          AND (id > ${after} OR at >= (SELECT at FROM project_change_log WHERE id = ${after}) - make_interval(secs => ${
        Duration.toSeconds(COMMIT_SLACK)
      }))
        ORDER BY id LIMIT ${MAX_REPLAY + 1}`.pipe(Effect.flatMap(decodeRows), Effect.orDie)
      if (rows.length > MAX_REPLAY) return { _tag: "Reset" } satisfies Replay
      const changes = rows.flatMap((row) => Option.toArray(decodeLoggedChange({ ...row.change, projectId: row.projectId, seq: row.seq })))
      return { _tag: "Changes", changes } satisfies Replay
    })

    /** Removes what is older than `RETAIN`, noting the highest number removed; returns how many. */
    const purge = Effect.fn("ChangeLog.purge")(function*() {
      const [row] = yield* sql`
        WITH gone AS (
          DELETE FROM project_change_log WHERE at < now() - make_interval(secs => ${Duration.toSeconds(RETAIN)}) RETURNING id
        ), noted AS (
          UPDATE project_change_log_purged SET through = greatest(through, (SELECT max(id) FROM gone))
          WHERE EXISTS (SELECT 1 FROM gone)
        )
        SELECT (SELECT count(*) FROM gone)::int AS removed`.pipe(Effect.flatMap(decodeRemoved), Effect.orDie)
      return row?.removed ?? 0
    })

    return { latest, since, purge } as const
  })
}) {}

/** Purges the change log at start, then every minute; several instances may run it at once. */
export const ChangeLogPurgeLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const log = yield* ChangeLog
    const purge = log.purge().pipe(Effect.catchAllCause((cause) => Effect.logWarning("purging the change log failed; will retry", cause)))
    yield* Effect.forkScoped(Effect.repeat(purge, Schedule.spaced("1 minute")))
  })
)
