import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** An interaction the CLI filed with a timeout expires at this time if nobody answered it. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE thread_interactions ADD COLUMN expires_at timestamptz`
})
