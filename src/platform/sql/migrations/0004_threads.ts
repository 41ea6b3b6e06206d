import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  // A machine's CLI as registered by its owner, serving one project.
  yield* sql`
    CREATE TABLE cli_profiles (
      id text PRIMARY KEY,
      user_id text NOT NULL REFERENCES users (id),
      project_id text NOT NULL REFERENCES projects (id),
      name text NOT NULL,
      hostname text NOT NULL,
      app_version text NOT NULL,
      available_clis jsonb NOT NULL DEFAULT '[]'::jsonb,
      last_connected_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX cli_profiles_owner_idx ON cli_profiles (user_id, project_id)`

  // Checkouts and worktrees on one profile's machine: a path id means nothing on another machine.
  yield* sql`
    CREATE TABLE cli_paths (
      id text PRIMARY KEY,
      profile_id text NOT NULL REFERENCES cli_profiles (id),
      path text NOT NULL,
      label text NOT NULL,
      git_remote_url text,
      kind text NOT NULL CHECK (kind IN ('checkout', 'worktree')),
      parent_path_id text REFERENCES cli_paths (id),
      branch text,
      created_at timestamptz NOT NULL DEFAULT now(),
      removed_at timestamptz,
      UNIQUE (profile_id, path)
    )`

  yield* sql`
    CREATE TABLE agent_sessions (
      id text PRIMARY KEY,
      profile_id text NOT NULL REFERENCES cli_profiles (id),
      api_key_id text NOT NULL REFERENCES api_keys (id),
      started_at timestamptz NOT NULL DEFAULT now(),
      last_heartbeat_at timestamptz NOT NULL DEFAULT now(),
      ended_at timestamptz,
      end_reason text
    )`
  yield* sql`CREATE INDEX agent_sessions_live_idx ON agent_sessions (profile_id) WHERE ended_at IS NULL`

  yield* sql`
    CREATE TABLE threads (
      id text PRIMARY KEY,
      project_id text NOT NULL REFERENCES projects (id),
      created_by text NOT NULL REFERENCES users (id),
      kind text NOT NULL DEFAULT 'thread' CHECK (kind IN ('thread', 'group', 'workflow_run')),
      title text NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'idle', 'failed')),
      done_at timestamptz,
      associated_task_id text REFERENCES tasks (id),
      parent_thread_id text REFERENCES threads (id),
      spawned_by_thread_id text REFERENCES threads (id),
      origin_thread_id text REFERENCES threads (id),
      profile_id text REFERENCES cli_profiles (id),
      path_id text REFERENCES cli_paths (id),
      cli_type text,
      cli_model text,
      cli_effort text,
      cli_mode text,
      project_agent_id text REFERENCES project_agents (id),
      agent_prompt text,
      worktree jsonb,
      runtime_session_id text,
      processing_state text NOT NULL DEFAULT 'idle'
        CHECK (processing_state IN ('idle', 'pending', 'claimed', 'streaming')),
      has_pending_user_messages boolean NOT NULL DEFAULT false,
      has_pending_interaction boolean NOT NULL DEFAULT false,
      queue_held_at timestamptz,
      claimed_by_session_id text REFERENCES agent_sessions (id),
      claimed_at timestamptz,
      claim_lease_expires_at timestamptz,
      claim_epoch bigint NOT NULL DEFAULT 0,
      active_assistant_message_id text,
      pinned_at timestamptz,
      shared_at timestamptz,
      member_count integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_activity_at timestamptz NOT NULL DEFAULT now(),
      deleted_at timestamptz
    )`
  // The claim queue: a profile's claimable threads, oldest activity first.
  yield* sql`CREATE INDEX threads_claimable_idx ON threads (profile_id, last_activity_at, id)
    WHERE processing_state = 'pending' AND deleted_at IS NULL`
  yield* sql`CREATE INDEX threads_owner_activity_idx ON threads (project_id, created_by, last_activity_at DESC, id)
    WHERE deleted_at IS NULL AND parent_thread_id IS NULL`
  yield* sql`CREATE INDEX threads_parent_idx ON threads (parent_thread_id) WHERE parent_thread_id IS NOT NULL`
  yield* sql`CREATE INDEX threads_claimed_idx ON threads (claim_lease_expires_at) WHERE claimed_by_session_id IS NOT NULL`

  yield* sql`ALTER TABLE project_agents ADD COLUMN prompt text NOT NULL DEFAULT ''`

  yield* sql`
    CREATE TABLE thread_messages (
      id text PRIMARY KEY,
      thread_id text NOT NULL REFERENCES threads (id),
      role text NOT NULL CHECK (role IN ('user', 'assistant')),
      status text NOT NULL,
      content text NOT NULL DEFAULT '',
      runtime_command boolean NOT NULL DEFAULT false,
      sent_by_thread_id text REFERENCES threads (id),
      batch_message_id text REFERENCES thread_messages (id),
      transport text,
      text text,
      truncated boolean NOT NULL DEFAULT false,
      error_message text,
      created_at timestamptz NOT NULL DEFAULT now(),
      completed_at timestamptz
    )`
  yield* sql`CREATE INDEX thread_messages_thread_idx ON thread_messages (thread_id, created_at DESC, id DESC)`
  // "Is anything waiting?" is one first-match probe on this index, never a count.
  yield* sql`CREATE INDEX thread_messages_pending_idx ON thread_messages (thread_id, created_at, id)
    WHERE role = 'user' AND status = 'pending'`
  yield* sql`CREATE INDEX thread_messages_batch_idx ON thread_messages (batch_message_id) WHERE batch_message_id IS NOT NULL`

  yield* sql`
    CREATE TABLE thread_chunks (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      thread_id text NOT NULL REFERENCES threads (id),
      message_id text NOT NULL REFERENCES thread_messages (id) ON DELETE CASCADE,
      seq integer NOT NULL,
      type text NOT NULL,
      data text NOT NULL,
      normalized_event jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (message_id, seq)
    )`
  yield* sql`CREATE INDEX thread_chunks_thread_idx ON thread_chunks (thread_id, id)`

  yield* sql`
    CREATE TABLE thread_interactions (
      id text PRIMARY KEY,
      thread_id text NOT NULL REFERENCES threads (id),
      message_id text REFERENCES thread_messages (id) ON DELETE SET NULL,
      kind text NOT NULL CHECK (kind IN ('permission', 'question')),
      request jsonb NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'answered', 'denied', 'expired')),
      answer jsonb,
      answered_by text REFERENCES users (id),
      created_at timestamptz NOT NULL DEFAULT now(),
      answered_at timestamptz
    )`
  yield* sql`CREATE INDEX thread_interactions_pending_idx ON thread_interactions (thread_id, created_at)
    WHERE status = 'pending'`
})
