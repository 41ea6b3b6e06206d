import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * What a thread's working copy held after a turn, as its CLI reported it (issue 31 §1). The files
 * are one jsonb array rather than a child table: a report is written once, whole, and read by
 * pages of its array in order, never queried across reports by file.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE thread_change_reports (
      id text PRIMARY KEY,
      thread_id text NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now(),
      base_commit text NOT NULL,
      head_commit text NOT NULL,
      branch text,
      file_count integer NOT NULL,
      additions integer NOT NULL,
      deletions integer NOT NULL,
      truncated boolean NOT NULL,
      files jsonb NOT NULL
    )`
  yield* sql`CREATE INDEX thread_change_reports_latest_idx ON thread_change_reports (thread_id, created_at DESC, id DESC)`
})
