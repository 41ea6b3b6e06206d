/**
 * A fresh PostgreSQL database per run on the server BENCH_DATABASE_URL points at, so the
 * seeded project is the only data and nothing is left behind (dropped at the end).
 */
import { PgClient } from "@effect/sql-pg"
import { SqlClient } from "@effect/sql"
import { Effect, Redacted } from "effect"

export interface FreshDatabase {
  readonly name: string
  /** BENCH_DATABASE_URL with the database name replaced. */
  readonly url: string
  readonly drop: () => Promise<void>
}

/** Runs one statement outside a transaction (CREATE/DROP DATABASE refuse to run inside one). */
const runOnServer = (serverUrl: string, statement: string): Promise<void> =>
  Effect.runPromise(
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql.unsafe(statement)
    }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(serverUrl), applicationName: "trellis-bench-admin" })))
  )

export const createDatabase = async (serverUrl: string): Promise<FreshDatabase> => {
  // Generated, so safe to splice in as an identifier.
  const name = `trellis_bench_${Date.now().toString(36)}_${process.pid}`
  await runOnServer(serverUrl, `CREATE DATABASE ${name}`)
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return {
    name,
    url: url.toString(),
    // FORCE ends any session still open (a server killed mid-run), so the drop cannot hang on it.
    drop: () => runOnServer(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  }
}
