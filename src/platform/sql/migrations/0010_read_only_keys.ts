import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** A read-only key sees and calls only read-only tools, and changes nothing through any route. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE api_keys ADD COLUMN read_only boolean NOT NULL DEFAULT false`
})
