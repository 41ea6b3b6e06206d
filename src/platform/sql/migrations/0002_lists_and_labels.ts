import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE task_lists (
      id text PRIMARY KEY,
      project_id text NOT NULL REFERENCES projects (id),
      name text NOT NULL CHECK (name = btrim(name) AND char_length(name) BETWEEN 1 AND 80),
      ref text NOT NULL CHECK (ref ~ '^[A-Z][A-Z0-9_-]{0,19}$'),
      color text,
      default_view_mode text CHECK (default_view_mode IN ('list', 'board')),
      default_board_group_by text CHECK (default_board_group_by IN ('status', 'priority', 'assignee', 'label')),
      is_system boolean NOT NULL DEFAULT false,
      rank text COLLATE "C" NOT NULL,
      archived_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK (default_board_group_by IS NULL OR default_view_mode = 'board')
    )`
  yield* sql`CREATE UNIQUE INDEX task_lists_project_name_key ON task_lists (project_id, lower(name))`
  yield* sql`CREATE UNIQUE INDEX task_lists_project_ref_key ON task_lists (project_id, ref)`
  yield* sql`CREATE INDEX task_lists_project_rank_idx ON task_lists (project_id, rank, id)`

  // Every project has its system Backlog, from creation on; projects made before Lists existed get theirs
  // here. Written in SQL, not with the application's ID generator, so this migration never changes.
  yield* sql`
    INSERT INTO task_lists (id, project_id, name, ref, is_system, rank)
    SELECT 'list_' || replace(gen_random_uuid()::text, '-', ''), p.id, 'Backlog', 'BACKLOG', true, 'a0'
    FROM projects p`

  yield* sql`
    CREATE TABLE labels (
      id text PRIMARY KEY,
      project_id text NOT NULL REFERENCES projects (id),
      name text NOT NULL CHECK (name = btrim(name) AND char_length(name) BETWEEN 1 AND 50),
      color text NOT NULL,
      rank text COLLATE "C" NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE UNIQUE INDEX labels_project_name_key ON labels (project_id, lower(name))`
  yield* sql`CREATE INDEX labels_project_rank_idx ON labels (project_id, rank, id)`
})
