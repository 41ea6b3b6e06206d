import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE task_artifacts (
      id text PRIMARY KEY,
      task_id text NOT NULL REFERENCES tasks (id),
      name text NOT NULL,
      content text NOT NULL DEFAULT '',
      content_type text NOT NULL CHECK (content_type IN ('markdown', 'html')),
      run_id text,
      author_id text NOT NULL REFERENCES users (id),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX task_artifacts_task_idx ON task_artifacts (task_id, created_at, id)`

  // A root comment (parent_id NULL) carries the status and the anchor; a reply carries neither.
  yield* sql`
    CREATE TABLE artifact_comments (
      id text PRIMARY KEY,
      artifact_id text NOT NULL REFERENCES task_artifacts (id) ON DELETE CASCADE,
      parent_id text REFERENCES artifact_comments (id) ON DELETE CASCADE,
      author_id text NOT NULL REFERENCES users (id),
      content text NOT NULL,
      status text CHECK (status IN ('open', 'resolved')),
      anchor_text text,
      anchor_start integer,
      anchor_end integer,
      anchor_prefix text,
      anchor_suffix text,
      anchor_lost boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      edited_at timestamptz,
      CHECK ((parent_id IS NULL) = (status IS NOT NULL AND anchor_text IS NOT NULL AND anchor_start IS NOT NULL
        AND anchor_end IS NOT NULL AND anchor_prefix IS NOT NULL AND anchor_suffix IS NOT NULL))
    )`
  yield* sql`CREATE INDEX artifact_comments_artifact_idx ON artifact_comments (artifact_id, created_at, id)`
  yield* sql`CREATE INDEX artifact_comments_parent_idx ON artifact_comments (parent_id) WHERE parent_id IS NOT NULL`
  yield* sql`CREATE INDEX artifact_comments_open_idx ON artifact_comments (artifact_id) WHERE status = 'open'`
})
