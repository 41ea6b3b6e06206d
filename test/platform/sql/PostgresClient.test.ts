import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Array as Arr, Context, Effect, Either, Layer, Option } from "effect"
import * as PostgresClient from "../../../src/platform/sql/PostgresClient.js"
import { freshPostgresUrl, postgresServer } from "../../support/TestDatabase.js"

/**
 * A statement is interrupted whenever its request's client goes away (a closed event stream, a
 * browser leaving a page). That must never fail another caller's statement: PostgreSQL's cancel
 * names a backend, not a statement, so a cancel that reaches a connection after its statement
 * finished kills whatever that connection runs next.
 */

const postgres = Option.getOrUndefined(Effect.runSync(Effect.orDie(postgresServer)))
const ROUNDS = 10

describe.skipIf(postgres === undefined)("PostgreSQL client (PostgreSQL only: set DATABASE_URL)", () => {
  it.scopedLive(
    "a statement interrupted on a busy pool never fails the caller that gets its connection next",
    () =>
      Effect.gen(function*() {
        if (postgres === undefined) return
        const url = yield* freshPostgresUrl(postgres, "empty")
        const sql = Context.get(yield* Layer.build(PostgresClient.layer({ url, maxConnections: 2 })), SqlClient.SqlClient)
        const results = yield* Effect.forEach(Arr.range(1, ROUNDS), (round) =>
          Effect.all([
            // Holds the second connection until after the interrupt, so nothing else is free then.
            sql`SELECT pg_sleep(0.04)`,
            // Interrupted at 20 ms, before it ends at 30 ms.
            sql`SELECT pg_sleep(0.03)`.pipe(Effect.timeoutOption("20 millis")),
            // Waiting for a connection since 10 ms; it gets the interrupted statement's and runs past 40 ms.
            Effect.either(sql`SELECT pg_sleep(0.05), ${round}::int AS round`).pipe(Effect.delay("10 millis"))
          ], { concurrency: "unbounded" }).pipe(Effect.map(([, , next]) => next)))
        expect(results.filter(Either.isLeft).map((failed) => String(failed.left.cause))).toEqual([])
      }),
    60_000
  )
})
