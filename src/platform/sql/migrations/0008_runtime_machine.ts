import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A runtime session lives on one machine: the machine a CLI session runs on, and the machine
 * holding a thread's runtime session, so that only that machine claims the thread.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE agent_sessions ADD COLUMN machine_id text`
  yield* sql`ALTER TABLE threads ADD COLUMN runtime_machine_id text`
})
