import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Review comments on a thread's changes (issue 31 §2). `report_id` names the change report the
 * comment was written on without a foreign key: reports are pruned (the newest 20 are kept) and a
 * comment outlives its report, carrying its quoted lines to be placed again on later ones.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE review_comments (
      id text PRIMARY KEY,
      thread_id text NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
      author_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      report_id text NOT NULL,
      path text NOT NULL,
      side text NOT NULL CHECK (side IN ('additions', 'deletions')),
      start_line integer NOT NULL,
      end_line integer NOT NULL,
      quote jsonb NOT NULL,
      body text NOT NULL,
      status text NOT NULL CHECK (status IN ('draft', 'open', 'resolved')),
      message_id text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      sent_at timestamptz,
      resolved_at timestamptz,
      resolution text
    )`
  yield* sql`CREATE INDEX review_comments_thread_idx ON review_comments (thread_id, created_at, id)`
})
