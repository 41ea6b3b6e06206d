import * as Reactivity from "@effect/experimental/Reactivity"
import type { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Config, Effect, Layer, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import * as PgliteClient from "../../src/db/PgliteClient.js"

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
  Layer.unwrapScoped(Effect.map(freshPostgresUrl(url), (fresh) => PgClient.layer({ url: fresh })))

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
