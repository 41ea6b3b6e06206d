import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A stop the thread's owner asked for, on the turn it stops (the streaming assistant message):
 * the CLI running that turn waits on it, and a later turn never sees it.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE thread_messages ADD COLUMN stop_requested_at timestamptz`
})
