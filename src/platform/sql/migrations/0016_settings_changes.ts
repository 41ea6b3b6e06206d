import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Project agents, prompts and Skills written tell the changes stream too (kinds `agent`, `prompt`,
 * `skill`), so their pages follow edits made elsewhere. An organization's prompt or Skill is told
 * to each project of the organization, marked `organization` so that the stream can keep an
 * organization Skill from a key narrowed to projects (SPEC: such a key cannot reach them).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE FUNCTION trellis_settings_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      row_json jsonb := to_jsonb(CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END);
      kind text := CASE TG_TABLE_NAME WHEN 'project_agents' THEN 'agent' WHEN 'prompts' THEN 'prompt' ELSE 'skill' END;
    BEGIN
      IF row_json->>'project_id' IS NOT NULL THEN
        PERFORM trellis_project_changed(row_json->>'project_id', kind, row_json->>'id');
      ELSE
        PERFORM pg_notify('trellis_project', json_build_object(
          'projectId', p.id, 'kind', kind, 'id', row_json->>'id', 'organization', true)::text)
          FROM projects p WHERE p.organization_id = row_json->>'organization_id';
      END IF;
      RETURN NULL;
    END
    $$`
  for (const table of ["project_agents", "prompts", "skills"]) {
    yield* sql.unsafe(
      `CREATE TRIGGER ${table}_project_changed AFTER INSERT OR UPDATE OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION trellis_settings_changed()`
    )
  }
})
