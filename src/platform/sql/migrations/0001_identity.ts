import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE organizations (
      id text PRIMARY KEY,
      slug text NOT NULL UNIQUE,
      name text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE users (
      id text PRIMARY KEY,
      name text NOT NULL,
      email text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE UNIQUE INDEX users_email_key ON users (lower(email))`
  yield* sql`
    CREATE TABLE organization_members (
      organization_id text NOT NULL REFERENCES organizations (id),
      user_id text NOT NULL REFERENCES users (id),
      role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (organization_id, user_id)
    )`
  yield* sql`CREATE INDEX organization_members_user_idx ON organization_members (user_id)`
  yield* sql`
    CREATE TABLE projects (
      id text PRIMARY KEY,
      organization_id text NOT NULL REFERENCES organizations (id),
      name text NOT NULL,
      ref text NOT NULL CHECK (ref ~ '^[A-Z][A-Z0-9]{1,9}$'),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, ref)
    )`
  yield* sql`
    CREATE TABLE project_members (
      project_id text NOT NULL REFERENCES projects (id),
      user_id text NOT NULL REFERENCES users (id),
      role text NOT NULL CHECK (role IN ('admin', 'member', 'viewer')),
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (project_id, user_id)
    )`
  yield* sql`CREATE INDEX project_members_user_idx ON project_members (user_id)`
  yield* sql`
    CREATE TABLE api_keys (
      id text PRIMARY KEY,
      user_id text NOT NULL REFERENCES users (id),
      name text NOT NULL,
      lookup_prefix text NOT NULL,
      secret_sha256 text NOT NULL UNIQUE,
      narrowed boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_used_at timestamptz,
      revoked_at timestamptz
    )`
  yield* sql`CREATE INDEX api_keys_user_idx ON api_keys (user_id)`
  yield* sql`
    CREATE TABLE api_key_projects (
      api_key_id text NOT NULL REFERENCES api_keys (id),
      project_id text NOT NULL REFERENCES projects (id),
      PRIMARY KEY (api_key_id, project_id)
    )`
})
