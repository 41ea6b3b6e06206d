import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Files attached to tasks, in the database so that every backend instance serves them. The bytes
 * are a table of their own: listing a task's files (get_task) never reads a blob. Attaching or
 * removing a file tells the project's changes stream that the task changed, as its comments do.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE task_files (
      id text PRIMARY KEY,
      task_id text NOT NULL REFERENCES tasks (id),
      name text NOT NULL,
      content_type text NOT NULL,
      size integer NOT NULL CHECK (size >= 0),
      uploaded_by text NOT NULL REFERENCES users (id),
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX task_files_task_idx ON task_files (task_id, created_at, id)`
  yield* sql`
    CREATE TABLE task_file_contents (
      file_id text PRIMARY KEY REFERENCES task_files (id) ON DELETE CASCADE,
      content bytea NOT NULL
    )`

  yield* sql`
    CREATE FUNCTION trellis_task_file_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      task text := CASE WHEN TG_OP = 'DELETE' THEN OLD.task_id ELSE NEW.task_id END;
    BEGIN
      PERFORM trellis_project_changed(t.project_id, 'task', t.id) FROM tasks t WHERE t.id = task;
      RETURN NULL;
    END
    $$`
  yield* sql`
    CREATE TRIGGER task_files_project_changed AFTER INSERT OR UPDATE OR DELETE ON task_files
    FOR EACH ROW EXECUTE FUNCTION trellis_task_file_changed()`
})
