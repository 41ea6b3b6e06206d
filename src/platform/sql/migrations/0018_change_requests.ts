import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A fresh change report asked for (issue 31 §1, `refresh_thread_changes`): the thread's CLI sees
 * the request on its pending stream and reports the working copy without a turn; any report of
 * the thread answers it. Kept on the row, so a request made while the machine is offline waits
 * for its CLI to connect.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE threads ADD COLUMN changes_requested_at timestamptz`
  yield* sql`CREATE INDEX threads_changes_requested ON threads (profile_id) WHERE changes_requested_at IS NOT NULL`
})
