import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE projects ADD COLUMN task_counter integer NOT NULL DEFAULT 0`
  yield* sql`ALTER TABLE projects ADD COLUMN task_statuses jsonb NOT NULL
    DEFAULT '["To Do", "In Progress", "In Review", "Done", "Canceled"]'::jsonb`

  // The minimal project agents a task can be delegated to; the full resource extends this table.
  yield* sql`
    CREATE TABLE project_agents (
      id text PRIMARY KEY,
      project_id text NOT NULL REFERENCES projects (id),
      name text NOT NULL,
      archived_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX project_agents_project_idx ON project_agents (project_id)`

  yield* sql`
    CREATE TABLE tasks (
      id text PRIMARY KEY,
      project_id text NOT NULL REFERENCES projects (id),
      number integer NOT NULL,
      ref text NOT NULL,
      parent_id text REFERENCES tasks (id),
      list_id text NOT NULL REFERENCES task_lists (id),
      name text NOT NULL,
      description jsonb,
      description_text text NOT NULL DEFAULT '',
      task_type_key text NOT NULL DEFAULT 'task',
      priority text NOT NULL DEFAULT 'None' CHECK (priority IN ('None', 'Low', 'Medium', 'High', 'Critical')),
      status text NOT NULL,
      due_at timestamptz,
      assignee_id text REFERENCES users (id),
      delegated_to_agent_id text REFERENCES project_agents (id),
      tags jsonb NOT NULL DEFAULT '[]'::jsonb,
      label_id text REFERENCES labels (id),
      rank text COLLATE "C" NOT NULL,
      created_by text NOT NULL REFERENCES users (id),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      archived_at timestamptz,
      deleted_at timestamptz,
      search tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('simple', name), 'A') || setweight(to_tsvector('simple', description_text), 'B')
      ) STORED,
      UNIQUE (project_id, number)
    )`
  yield* sql`CREATE INDEX tasks_project_rank_idx ON tasks (project_id, rank, id) WHERE deleted_at IS NULL`
  yield* sql`CREATE INDEX tasks_parent_idx ON tasks (parent_id) WHERE deleted_at IS NULL`
  yield* sql`CREATE INDEX tasks_list_idx ON tasks (list_id) WHERE deleted_at IS NULL`
  yield* sql`CREATE INDEX tasks_label_idx ON tasks (label_id) WHERE label_id IS NOT NULL`
  yield* sql`CREATE INDEX tasks_search_idx ON tasks USING gin (search)`
  // Refs are matched whole (see Tasks.search): in the text index "DEMO-3" would also yield "demo", matching every task.
  yield* sql`CREATE INDEX tasks_project_ref_idx ON tasks (project_id, ref)`
  yield* sql`CREATE INDEX tasks_deleted_idx ON tasks (deleted_at) WHERE deleted_at IS NOT NULL`

  yield* sql`
    CREATE TABLE task_links (
      task_id text NOT NULL REFERENCES tasks (id),
      id text NOT NULL,
      position integer NOT NULL,
      link jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (task_id, id)
    )`

  yield* sql`
    CREATE TABLE task_comments (
      id text PRIMARY KEY,
      task_id text NOT NULL REFERENCES tasks (id),
      author_id text NOT NULL REFERENCES users (id),
      content text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX task_comments_task_idx ON task_comments (task_id, created_at DESC, id DESC)`
})
