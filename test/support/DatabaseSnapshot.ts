import * as Reactivity from "@effect/experimental/Reactivity"
import { FileSystem } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Config, Effect, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import * as path from "node:path"
import { runMigrations } from "../../src/platform/sql/Migrations.js"
import { dropTemplateDatabases } from "../../src/platform/sql/TemplateDatabases.js"
import * as PgliteClient from "../../src/platform/sql/PgliteClient.js"

/**
 * One migrated database per test run, which every test file's database starts from (DESIGN §4a):
 * a new PGlite runs initdb (≈ 3 s) before the migrations even start, while one loaded from a
 * migrated `dumpDataDir()` is ready in about a third of that; on PostgreSQL a file's database is a
 * copy of a migrated template. The backend's migrations still run in each file and find nothing to do.
 * `GlobalSetup.ts` makes the snapshot once, before any test file runs, and drops it at the end.
 */

declare module "vitest" {
  export interface ProvidedContext {
    /** The file holding a migrated PGlite's uncompressed `dumpDataDir()` (runs on the embedded database). */
    readonly trellisPgliteSnapshot?: string
    /** The migrated database each test file's own is created from (runs on PostgreSQL). */
    readonly trellisPostgresTemplate?: string
  }
}

/** The PostgreSQL server the tests use instead of PGlite, if `DATABASE_URL` names one. */
export const postgresServer = Config.option(Config.redacted("DATABASE_URL"))

/** A database name no other test file or concurrent run uses (`purpose` shows what is left behind after a crash). */
export const uniqueDatabaseName = (purpose: "test" | "template"): string => `trellis_${purpose}_${randomBytes(6).toString("hex")}`

/** `url` naming database `name` on the same server. */
export const databaseUrl = (url: Redacted.Redacted, name: string): Redacted.Redacted => {
  const target = new URL(Redacted.value(url))
  target.pathname = `/${name}`
  return Redacted.make(target.toString())
}

/** A client of the server's own database (`url`), to create and drop the tests' databases; closed with the scope. */
export const serverClient = (url: Redacted.Redacted) => PgClient.make({ url }).pipe(Effect.provide(Reactivity.layer))

/** A migrated PGlite's data directory, written to a file that is removed when the scope closes. */
const pgliteSnapshot = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const dump = yield* Effect.scoped(Effect.gen(function*() {
    const client = yield* PgliteClient.make({})
    yield* runMigrations.pipe(Effect.provideService(SqlClient.SqlClient, client))
    yield* dropTemplateDatabases.pipe(Effect.provideService(SqlClient.SqlClient, client))
    // Uncompressed: loading it is what every test file pays, and gunzip would add to that.
    return yield* Effect.tryPromise(() => client.pglite.dumpDataDir("none").then((blob) => blob.arrayBuffer()))
  })).pipe(Effect.provide(Reactivity.layer))
  const file = path.join(yield* fs.makeTempDirectoryScoped({ prefix: "trellis-test-" }), "migrated.tar")
  yield* fs.writeFile(file, new Uint8Array(dump))
  return file
})

/** A migrated database on the PostgreSQL server at `url`, dropped when the scope closes. */
const postgresTemplate = (url: Redacted.Redacted) =>
  Effect.gen(function*() {
    const server = yield* serverClient(url)
    const name = uniqueDatabaseName("template")
    yield* server.unsafe(`CREATE DATABASE ${name}`)
    yield* Effect.addFinalizer(() => server.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).pipe(Effect.ignore))
    // Provided to the migrations alone, so the pool is closed once they are done.
    yield* runMigrations.pipe(Effect.provide(PgClient.layer({ url: databaseUrl(url, name) })))
    // `CREATE DATABASE … TEMPLATE` refuses a template anyone is connected to: from now on no one can be.
    yield* server.unsafe(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`)
    return name
  })

export type DatabaseSnapshot =
  | { readonly _tag: "Pglite"; readonly file: string }
  | { readonly _tag: "Postgres"; readonly template: string }

const inPglite = (file: string): DatabaseSnapshot => ({ _tag: "Pglite", file })
const inPostgres = (template: string): DatabaseSnapshot => ({ _tag: "Postgres", template })

/** The run's migrated snapshot for the database the tests use; removed when the scope closes. */
export const databaseSnapshot = Effect.flatMap(
  postgresServer,
  Option.match({
    onNone: () => Effect.map(pgliteSnapshot, inPglite),
    onSome: (url) => Effect.map(postgresTemplate(url), inPostgres)
  })
)
