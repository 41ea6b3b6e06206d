import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  // Tasks and threads already reference project_agents, so the full resource extends the table in place.
  yield* sql`ALTER TABLE project_agents ADD COLUMN description text`
  yield* sql`ALTER TABLE project_agents ADD COLUMN category text`
  yield* sql`ALTER TABLE project_agents ADD COLUMN color text NOT NULL DEFAULT 'blue'`
  yield* sql`ALTER TABLE project_agents ADD COLUMN automation jsonb`
  // A cleared prompt is null, like description and category; '' from before meant "no prompt".
  yield* sql`ALTER TABLE project_agents ALTER COLUMN prompt DROP NOT NULL`
  yield* sql`ALTER TABLE project_agents ALTER COLUMN prompt DROP DEFAULT`
  yield* sql`UPDATE project_agents SET prompt = NULL WHERE prompt = ''`
  yield* sql`CREATE INDEX project_agents_active_idx ON project_agents (project_id, name, id) WHERE archived_at IS NULL`

  // A prompt belongs to a project or to an organization; organization_id is set for both, for access checks.
  yield* sql`
    CREATE TABLE prompts (
      id text PRIMARY KEY,
      scope text NOT NULL CHECK (scope IN ('project', 'organization')),
      organization_id text NOT NULL REFERENCES organizations (id),
      project_id text REFERENCES projects (id),
      key text NOT NULL CHECK (key ~ '^[a-z0-9:-]{2,40}$'),
      description text,
      category text,
      content text NOT NULL,
      auto_expand boolean NOT NULL DEFAULT false,
      auto_submit boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((scope = 'project') = (project_id IS NOT NULL))
    )`
  yield* sql`CREATE UNIQUE INDEX prompts_project_key ON prompts (project_id, key) WHERE scope = 'project'`
  yield* sql`CREATE UNIQUE INDEX prompts_organization_key ON prompts (organization_id, key) WHERE scope = 'organization'`

  // Files (SKILL.md included) are one jsonb object path -> content: a save reads and writes the whole set at once.
  yield* sql`
    CREATE TABLE skills (
      id text PRIMARY KEY,
      scope text NOT NULL CHECK (scope IN ('project', 'organization')),
      organization_id text NOT NULL REFERENCES organizations (id),
      project_id text REFERENCES projects (id),
      name text NOT NULL CHECK (name ~ '^[a-z0-9-]{2,64}$'),
      description text,
      category text,
      version integer NOT NULL DEFAULT 1,
      files jsonb NOT NULL,
      created_by text NOT NULL REFERENCES users (id),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((scope = 'project') = (project_id IS NOT NULL))
    )`
  yield* sql`CREATE UNIQUE INDEX skills_project_name ON skills (project_id, name) WHERE scope = 'project'`
  yield* sql`CREATE UNIQUE INDEX skills_organization_name ON skills (organization_id, name) WHERE scope = 'organization'`
})
