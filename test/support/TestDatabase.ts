import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import type { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Config, Effect, Layer, Option, type Redacted } from "effect"
import { inject } from "vitest"
import * as PgliteClient from "../../src/platform/sql/PgliteClient.js"
import * as PostgresClient from "../../src/platform/sql/PostgresClient.js"
import { databaseUrl, postgresServer, serverClient, uniqueDatabaseName } from "./DatabaseSnapshot.js"

export { postgresServer } from "./DatabaseSnapshot.js"

/**
 * Connections in a test file's PostgreSQL pool (node-postgres' default, made explicit): enough that
 * the concurrency tests' parallel calls really run on separate sessions and contend for row locks.
 */
export const POOL_SIZE = 10

/** Whether a test file's database starts migrated (from the run's snapshot) or empty (for tests of the migrations). */
type Start = "migrated" | "empty"

/**
 * The URL of a new database on the PostgreSQL server at `url`, dropped when the scope closes: a
 * copy of the run's migrated template unless `start` is `"empty"` (or no template was made).
 */
export const freshPostgresUrl = (url: Redacted.Redacted, start: Start = "migrated") =>
  Effect.gen(function*() {
    const name = uniqueDatabaseName("test")
    const template = start === "migrated" ? inject("trellisPostgresTemplate") : undefined
    const server = yield* serverClient(url)
    yield* server.unsafe(template === undefined ? `CREATE DATABASE ${name}` : `CREATE DATABASE ${name} TEMPLATE ${template}`)
    yield* Effect.addFinalizer(() => server.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).pipe(Effect.ignore))
    return databaseUrl(url, name)
  })

const freshPostgres = (url: Redacted.Redacted, start: Start) =>
  Layer.unwrapScoped(Effect.map(freshPostgresUrl(url, start), (fresh) => PostgresClient.layer({ url: fresh, maxConnections: POOL_SIZE })))

/** An in-memory PGlite, loaded from the run's migrated snapshot unless `start` is `"empty"` (or no snapshot was made). */
const freshPglite = (start: Start) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const snapshot = start === "migrated" ? inject("trellisPgliteSnapshot") : undefined
    if (snapshot === undefined) return PgliteClient.layer({})
    const tarball = yield* (yield* FileSystem.FileSystem).readFile(snapshot)
    return PgliteClient.layer({ loadDataDir: new Blob([tarball]) })
  })).pipe(Layer.provide(NodeFileSystem.layer))

const testDatabase = (start: Start): Layer.Layer<SqlClient.SqlClient | PgClient.PgClient, unknown> =>
  Layer.unwrapEffect(Effect.map(
    postgresServer,
    Option.match({
      onNone: () => freshPglite(start),
      onSome: (url) => freshPostgres(url, start)
    })
  ))

/**
 * A fresh database for one test file: an in-memory PGlite by default, or a new database on the
 * PostgreSQL server named by `DATABASE_URL`. It is a copy of the run's migrated snapshot
 * (`DatabaseSnapshot.ts`, made by vitest.config.ts' globalSetup), so the backend's own migrations
 * find nothing left to do; run without that setup it starts empty and they do all the work.
 */
export const TestDatabase = testDatabase("migrated")

/** A fresh database with no tables at all, for tests that run the migrations themselves. */
export const EmptyTestDatabase = testDatabase("empty")

/**
 * Whether the tests run on PostgreSQL (`DATABASE_URL` set). Only there do concurrent calls run on
 * separate connections; PGlite is one session, so the same calls take turns on it.
 */
export const onPostgres: Effect.Effect<boolean> = Effect.map(
  Config.option(Config.redacted("DATABASE_URL")),
  Option.isSome
).pipe(Effect.orDie)

/**
 * The name of a test whose point is a race: "concurrently: <rule>". Its calls run on separate
 * connections only on PostgreSQL; on PGlite they take turns on its one session, so the same test
 * checks only the serialised outcome, and its name says so.
 */
export const concurrently = (rule: string): string =>
  `concurrently: ${rule}${process.env["DATABASE_URL"] ? "" : " [PGlite: serialised, no race]"}`
