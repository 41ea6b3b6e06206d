import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * What the changes stream tells a project is also written down, numbered, so that a page whose
 * stream dropped resumes after the last change it got (SSE `Last-Event-ID`) on whichever backend
 * instance it reaches, instead of reading everything again. Every change goes through
 * `trellis_tell_project`, which writes the row and sends it, with its number as `seq`, on the
 * `trellis_project` channel. Rows are kept a while (ProjectChanges purges them); `purged_through`
 * is the highest number purged, so a resume from before it is known to have missed some.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE project_change_log (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      project_id text NOT NULL,
      change jsonb NOT NULL,
      at timestamptz NOT NULL DEFAULT clock_timestamp()
    )`
  yield* sql`CREATE INDEX project_change_log_project ON project_change_log (project_id, id)`
  yield* sql`CREATE INDEX project_change_log_at ON project_change_log (at)`
  yield* sql`CREATE TABLE project_change_log_purged (only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row), through bigint NOT NULL)`
  yield* sql`INSERT INTO project_change_log_purged (through) VALUES (0)`

  yield* sql`
    CREATE FUNCTION trellis_tell_project(project text, change jsonb) RETURNS void
    LANGUAGE plpgsql AS $$
    DECLARE
      seq bigint;
    BEGIN
      INSERT INTO project_change_log (project_id, change) VALUES (project, change) RETURNING id INTO seq;
      PERFORM pg_notify('trellis_project', (change || jsonb_build_object('projectId', project, 'seq', seq))::text);
    END
    $$`
  yield* sql`
    CREATE OR REPLACE FUNCTION trellis_project_changed(project text, kind text, changed text) RETURNS void
    LANGUAGE sql AS $$
      SELECT trellis_tell_project(project, jsonb_build_object('kind', kind, 'id', changed))
    $$`
  yield* sql`
    CREATE OR REPLACE FUNCTION trellis_settings_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      row_json jsonb := to_jsonb(CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END);
      kind text := CASE TG_TABLE_NAME WHEN 'project_agents' THEN 'agent' WHEN 'prompts' THEN 'prompt' ELSE 'skill' END;
    BEGIN
      IF row_json->>'project_id' IS NOT NULL THEN
        PERFORM trellis_project_changed(row_json->>'project_id', kind, row_json->>'id');
      ELSE
        PERFORM trellis_tell_project(p.id, jsonb_build_object('kind', kind, 'id', row_json->>'id', 'organization', true))
          FROM projects p WHERE p.organization_id = row_json->>'organization_id';
      END IF;
      RETURN NULL;
    END
    $$`
})
