import * as PgClient from "@effect/sql-pg/PgClient"
import { SqlError } from "@effect/sql/SqlError"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as PgliteClient from "../../../src/platform/sql/PgliteClient.js"

/** The statements this session holds prepared, by their SQL text. */
const preparedTexts = Effect.flatMap(PgClient.PgClient, (sql) =>
  Effect.map(
    sql.unsafe<{ readonly statement: string }>("SELECT statement FROM pg_prepared_statements WHERE name LIKE 'trellis_%'"),
    (rows) => rows.map((row) => row.statement)
  ))

describe("PGlite's statements with parameters run prepared", () => {
  layer(PgliteClient.layer({}))((it) => {
    it.effect("a statement run again is prepared once, and each run gets its own parameters", () =>
      Effect.gen(function*() {
        const sql = yield* PgClient.PgClient
        const text = "SELECT $1::int * 2 AS twice"
        const results = yield* Effect.forEach([1, 2, 3], (n) => sql.unsafe<{ readonly twice: number }>(text, [n]))
        expect(results.map(([row]) => row?.twice)).toEqual([2, 4, 6])
        expect((yield* preparedTexts).filter((statement) => statement === text)).toHaveLength(1)
      }))

    it.effect("at most 256 statements stay prepared: the least recently used is closed", () =>
      Effect.gen(function*() {
        const sql = yield* PgClient.PgClient
        const texts = Array.from({ length: 300 }, (_, i) => `SELECT $1::int + ${i} AS n`)
        const sums = yield* Effect.forEach(texts, (text) => sql.unsafe<{ readonly n: number }>(text, [1000]))
        expect(sums.map(([row]) => row?.n)).toEqual(texts.map((_, i) => 1000 + i))
        // Closing travels with the next statement.
        yield* sql.unsafe("SELECT $1::text AS flush", ["x"])
        const held = yield* preparedTexts
        expect(held.length).toBeLessThanOrEqual(256)
        expect(held).not.toContain(texts[0])
        expect(held).toContain(texts[299])
      }))

    it.effect("a statement whose table changed shape since it was prepared runs, prepared anew", () =>
      Effect.gen(function*() {
        const sql = yield* PgClient.PgClient
        yield* sql`CREATE TABLE reshaped (a int)`
        yield* sql`INSERT INTO reshaped VALUES (${1})`
        const text = "SELECT * FROM reshaped WHERE a = $1"
        expect(yield* sql.unsafe(text, [1])).toEqual([{ a: 1 }])
        yield* sql`ALTER TABLE reshaped ADD COLUMN b text DEFAULT 'new'`
        expect(yield* sql.unsafe(text, [1])).toEqual([{ a: 1, b: "new" }])
      }))

    it.effect("inside a transaction that change fails the statement as PostgreSQL does; outside it, it runs", () =>
      Effect.gen(function*() {
        const sql = yield* PgClient.PgClient
        yield* sql`CREATE TABLE reshaped_in_transaction (a int)`
        const text = "SELECT * FROM reshaped_in_transaction WHERE a = $1"
        yield* sql.unsafe(text, [1])
        const failed = yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`ALTER TABLE reshaped_in_transaction ADD COLUMN b int`
          return yield* sql.unsafe(text, [1])
        })).pipe(Effect.flip)
        expect(failed).toBeInstanceOf(SqlError)
        expect(Reflect.get(Object(failed.cause), "code")).toBe("0A000")
        // The transaction rolled back: the table has its old shape, and the statement runs on it.
        yield* sql`INSERT INTO reshaped_in_transaction VALUES (${2})`
        expect(yield* sql.unsafe(text, [2])).toEqual([{ a: 2 }])
      }))

    it.effect("a statement whose parameters PostgreSQL refuses fails with its code, and runs again with good ones", () =>
      Effect.gen(function*() {
        const sql = yield* PgClient.PgClient
        const text = "SELECT $1::int + 1 AS next"
        yield* sql.unsafe(text, [1])
        const refused = yield* Effect.flip(sql.unsafe(text, ["not a number"]))
        expect(Reflect.get(Object(refused.cause), "code")).toBe("22P02")
        expect(yield* sql.unsafe(text, [41])).toEqual([{ next: 42 }])
      }))
  })
})
