import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { AgentSessions } from "../../src/bridge/AgentSessions.js"
import { ClaimLeases } from "../../src/bridge/ClaimLeases.js"

/**
 * Expiry driven by the test instead of a wall clock. Leases and session TTLs are compared with the
 * database's `now()`, so a test moves the timestamp into the past and runs one sweep: the rule is
 * exercised exactly, however slow the machine, and the server keeps its normal timings (a lease of
 * a second raced several HTTP calls on a loaded machine).
 */

/** Puts the thread's claim lease `secondsAgo` in the past, as if nobody had renewed it in time. */
export const ageLease = (threadId: string, secondsAgo = 1) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`UPDATE threads SET claim_lease_expires_at = now() - make_interval(secs => ${secondsAgo}) WHERE id = ${threadId}`
  ).pipe(Effect.orDie)

/** `seconds` more of silence from the CLI: its last heartbeat moves that far back. */
export const ageHeartbeat = (sessionId: string, seconds: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`UPDATE agent_sessions SET last_heartbeat_at = last_heartbeat_at - make_interval(secs => ${seconds}) WHERE id = ${sessionId}`
  ).pipe(Effect.orDie)

/** One pass of the bridge sweeper: silent sessions end, unrenewed leases are released. */
export const sweepOnce = Effect.gen(function*() {
  const sessions = yield* AgentSessions
  const leases = yield* ClaimLeases
  const [sessionClaims, staleClaims] = yield* Effect.all([sessions.expireSilent(), leases.releaseStaleClaims()])
  return { sessionClaims, staleClaims }
})
