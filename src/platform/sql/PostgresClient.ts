import { PgClient } from "@effect/sql-pg"
import { SqlError } from "@effect/sql/SqlError"
import { Duration, Effect, Redacted } from "effect"
import Pg from "pg"

export interface PostgresOptions {
  readonly url: Redacted.Redacted
  readonly applicationName?: string | undefined
  readonly maxConnections?: number | undefined
}

const CONNECT_TIMEOUT = Duration.seconds(5)

/**
 * A node-postgres client that never tells sql-pg its backend's process id. sql-pg cancels an
 * interrupted statement with `pg_cancel_backend(pid)` sent from another connection, but a cancel
 * names a backend, not a statement: when the statement finishes first, the connection goes back to
 * the pool and the late cancel kills the next caller's statement (Effect-TS/effect#8068; seen
 * here as a reader's request failing with 500 after another reader closed its event stream).
 * Without a pid sql-pg sends no cancel and releases the connection at once; node-postgres queues
 * the next statement behind the interrupted one, which runs to its end (every statement is short).
 */
class UncancelledClient extends Pg.Client {
  constructor(config?: string | Pg.ClientConfig) {
    super(config)
    Object.defineProperty(this, "processID", { get: () => undefined, set: () => {} })
  }
}

const openPool = (options: PostgresOptions) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const pool = new Pg.Pool({
        connectionString: Redacted.value(options.url),
        application_name: options.applicationName ?? "trellis",
        connectionTimeoutMillis: Duration.toMillis(CONNECT_TIMEOUT),
        max: options.maxConnections,
        Client: UncancelledClient
      })
      // An idle connection's error is reported by the statement that next uses the pool.
      pool.on("error", () => {})
      return pool
    }),
    (pool) => Effect.promise(() => pool.end()).pipe(Effect.timeoutOption("1 second"))
  ).pipe(
    Effect.tap((pool) =>
      Effect.tryPromise({
        try: () => pool.query("SELECT 1"),
        catch: (cause) => new SqlError({ cause, message: "PostgreSQL: failed to connect" })
      }).pipe(Effect.timeoutFail({
        duration: CONNECT_TIMEOUT,
        onTimeout: () => new SqlError({ cause: new Error("connection timed out"), message: "PostgreSQL: connection timed out" })
      }))
    )
  )

/** The SQL layer over a PostgreSQL server (`SqlClient` and `PgClient`). */
export const layer = (options: PostgresOptions) =>
  PgClient.layerFromPool({ acquire: openPool(options), applicationName: options.applicationName ?? "trellis" })
