import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Browser sign-in: a session stands for the API key it was opened with (so revoking the key ends
 * it), and a one-time sign-in link opens such a session once. Only SHA-256 digests are stored.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE web_sessions (
      token_sha256 text PRIMARY KEY,
      api_key_id text NOT NULL REFERENCES api_keys (id),
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      ended_at timestamptz
    )`
  yield* sql`CREATE INDEX web_sessions_api_key_idx ON web_sessions (api_key_id)`
  yield* sql`
    CREATE TABLE sign_in_links (
      token_sha256 text PRIMARY KEY,
      api_key_id text NOT NULL REFERENCES api_keys (id),
      expires_at timestamptz NOT NULL,
      used_at timestamptz
    )`
})
