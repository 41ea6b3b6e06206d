import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, type Redacted, Schedule } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as DataDirLock from "./DataDirLock.js"
import * as PgliteClient from "./PgliteClient.js"
import * as PostgresClient from "./PostgresClient.js"

export interface DatabaseOptions {
  /** PostgreSQL connection string; none means the embedded database under `home/data`. */
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  /** The Trellis home directory (`TRELLIS_HOME`, `./.trellis` by default). */
  readonly home: string
  /** Names this process in the embedded database's lock, for the error another process sees. */
  readonly command: string
}

/**
 * PGlite has no autovacuum, so without this its planner never has statistics and every task
 * query scans the table (measured: 2–3× fewer requests/s on 10,000 tasks). ANALYZE holds the
 * single session for about a second, so it runs seldom: shortly after start, then every 15 minutes.
 */
const PlannerStatistics = Layer.scopedDiscard(
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const analyze = sql`ANALYZE`.pipe(Effect.catchAllCause((cause) => Effect.logWarning("ANALYZE failed", cause)))
    yield* Effect.forkScoped(Effect.repeat(Effect.delay(analyze, "20 seconds"), Schedule.spaced("15 minutes")))
  })
)

/** The SQL layer: PostgreSQL when `DATABASE_URL` is set, else PGlite persisted in the home directory. */
export const layer = (options: DatabaseOptions) =>
  Option.match(options.databaseUrl, {
    onSome: (url) => PostgresClient.layer({ url }),
    onNone: () => {
      const dataDir = path.join(options.home, "data")
      return Layer.unwrapScoped(
        Effect.gen(function*() {
          yield* Effect.sync(() => fs.mkdirSync(options.home, { recursive: true, mode: 0o700 }))
          yield* DataDirLock.acquire(path.join(options.home, "data.lock"), dataDir, options.command)
          return Layer.provideMerge(PlannerStatistics, PgliteClient.layer({ dataDir }))
        })
      )
    }
  })

export const describe = (options: DatabaseOptions): string =>
  Option.match(options.databaseUrl, {
    onSome: () => "PostgreSQL (DATABASE_URL)",
    onNone: () => `embedded PostgreSQL (PGlite) in ${path.join(options.home, "data")}`
  })
