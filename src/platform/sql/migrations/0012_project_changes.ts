import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Every write to a project's tasks, Lists, labels, comments, links and artifacts tells the
 * project's changes stream what changed (LiveEvents, channel `trellis_project`: `{projectId, kind,
 * id}`), delivered at commit. Triggers, so that no write path can forget: a task's comments, links
 * and artifacts name the task (what `get_task` shows), an artifact's comments the artifact.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE FUNCTION trellis_project_changed(project text, kind text, changed text) RETURNS void
    LANGUAGE sql AS $$
      SELECT pg_notify('trellis_project', json_build_object('projectId', project, 'kind', kind, 'id', changed)::text)
    $$`

  yield* sql`
    CREATE FUNCTION trellis_row_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      row_json jsonb := to_jsonb(CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END);
      task text;
      artifact text;
    BEGIN
      IF TG_TABLE_NAME = 'tasks' THEN
        PERFORM trellis_project_changed(row_json->>'project_id', 'task', row_json->>'id');
      ELSIF TG_TABLE_NAME = 'task_lists' THEN
        PERFORM trellis_project_changed(row_json->>'project_id', 'list', row_json->>'id');
      ELSIF TG_TABLE_NAME = 'labels' THEN
        PERFORM trellis_project_changed(row_json->>'project_id', 'label', row_json->>'id');
      ELSIF TG_TABLE_NAME IN ('task_comments', 'task_links', 'task_artifacts') THEN
        task := row_json->>'task_id';
        PERFORM trellis_project_changed(t.project_id, 'task', t.id) FROM tasks t WHERE t.id = task;
        IF TG_TABLE_NAME = 'task_artifacts' THEN
          PERFORM trellis_project_changed(t.project_id, 'artifact', row_json->>'id') FROM tasks t WHERE t.id = task;
        END IF;
      ELSIF TG_TABLE_NAME = 'artifact_comments' THEN
        artifact := row_json->>'artifact_id';
        PERFORM trellis_project_changed(t.project_id, 'artifact', a.id)
          FROM task_artifacts a JOIN tasks t ON t.id = a.task_id WHERE a.id = artifact;
      END IF;
      RETURN NULL;
    END
    $$`

  for (const table of ["tasks", "task_lists", "labels", "task_comments", "task_links", "task_artifacts", "artifact_comments"]) {
    yield* sql.unsafe(
      `CREATE TRIGGER ${table}_project_changed AFTER INSERT OR UPDATE OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION trellis_row_changed()`
    )
  }
})
