import * as Reactivity from "@effect/experimental/Reactivity"
import type { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Config, Effect, Layer, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import * as PgliteClient from "../../src/platform/sql/PgliteClient.js"

/**
 * Connections in a test file's PostgreSQL pool (node-postgres' default, made explicit): enough that
 * the concurrency tests' parallel calls really run on separate sessions and contend for row locks.
 */
export const POOL_SIZE = 10

/** The PostgreSQL server the tests use instead of PGlite, if `DATABASE_URL` names one. */
export const postgresServer = Config.option(Config.redacted("DATABASE_URL"))

/** The URL of a new database on the PostgreSQL server at `url`, dropped when the scope closes. */
export const freshPostgresUrl = (url: Redacted.Redacted) =>
  Effect.gen(function* () {
    const name = `trellis_test_${randomBytes(6).toString("hex")}`
    const server = yield* PgClient.make({ url }).pipe(Effect.provide(Reactivity.layer))
    yield* server.unsafe(`CREATE DATABASE ${name}`)
    yield* Effect.addFinalizer(() => server.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).pipe(Effect.ignore))
    const target = new URL(Redacted.value(url))
    target.pathname = `/${name}`
    return Redacted.make(target.toString())
  })

const freshPostgres = (url: Redacted.Redacted) =>
  Layer.unwrapScoped(Effect.map(freshPostgresUrl(url), (fresh) => PgClient.layer({ url: fresh, maxConnections: POOL_SIZE })))

/**
 * A fresh, empty database for one test file: an in-memory PGlite by default, or a new database
 * on the PostgreSQL server named by `DATABASE_URL`.
 */
export const TestDatabase: Layer.Layer<SqlClient.SqlClient | PgClient.PgClient, unknown> = Layer.unwrapEffect(
  Effect.map(postgresServer, Option.match({
    onNone: () => PgliteClient.layer({}),
    onSome: freshPostgres
  }))
)

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
