import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer } from "@effect/vitest"
import { Deferred, Effect, Ref } from "effect"
import { migrations } from "../../../src/platform/sql/Migrations.js"
import { concurrently, EmptyTestDatabase, onPostgres, POOL_SIZE, TestDatabase } from "../../support/TestDatabase.js"

/**
 * What the "concurrently: …" tests rest on: on PostgreSQL a test file's calls made in parallel
 * run on separate connections, so they meet each other's row locks; on PGlite they take turns.
 */
/** The names of the tables in the database's public schema. */
const tables = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(
    sql<{ readonly name: string }>`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`,
    (rows) => rows.map((row) => row.name)
  ))

describe("TestDatabase", () => {
  layer(TestDatabase)((it) => {
    it.effect("starts as a copy of the run's migrated snapshot: every migration already recorded", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const recorded = yield* sql<{ readonly name: string }>`SELECT name FROM trellis_migrations ORDER BY migration_id`
        const known = yield* migrations
        expect(recorded.map((row) => row.name)).toEqual(known.map(([, name]) => name))
        expect(yield* tables).toContain("tasks")
      }))

    it.effect(
      concurrently(
        "on PostgreSQL a full pool of transactions is open at once, each on its own connection; PGlite runs them one at a time on its one session"
      ),
      () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const postgres = yield* onPostgres
          const inside = yield* Ref.make(0)
          const most = yield* Ref.make(0)
          const allInside = yield* Deferred.make<void>()
          const transaction = sql.withTransaction(Effect.gen(function*() {
            const [row] = yield* sql<{ readonly pid: number }>`SELECT pg_backend_pid() AS pid`
            const count = yield* Ref.updateAndGet(inside, (n) => n + 1)
            yield* Ref.update(most, (m) => Math.max(m, count))
            if (count === POOL_SIZE) yield* Deferred.succeed(allInside, undefined)
            // Only a pool can hold them all open together; on PGlite the others wait for this one to end.
            if (postgres) yield* Deferred.await(allInside)
            yield* Ref.update(inside, (n) => n - 1)
            return row?.pid
          }))
          const pids = yield* Effect.all(Array.from({ length: POOL_SIZE }, () => transaction), { concurrency: "unbounded" })
          expect(yield* Ref.get(most)).toBe(postgres ? POOL_SIZE : 1)
          expect(new Set(pids).size).toBe(postgres ? POOL_SIZE : 1)
        })
    )
  })

  layer(EmptyTestDatabase)((it) => {
    it.effect("EmptyTestDatabase starts with no tables, for tests that run the migrations themselves", () =>
      Effect.gen(function*() {
        expect(yield* tables).toEqual([])
      }))
  })
})
