import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { keyReaches, type Principal } from "../platform/auth/Principal.js"
import { Forbidden, NotFound } from "../../catalog/domain/Errors.js"
import { TrellisConfig } from "../platform/TrellisConfig.js"
import { SessionExpired } from "../../catalog/bridge/BridgeErrors.js"

/** A CLI session as the bridge's checks read it. */
export interface SessionRow {
  readonly profileId: string
  readonly projectId: string
  readonly machineId: string | null
  /** Not ended, and heard from within the session TTL. */
  readonly live: boolean
}

/** Whether `principal` may act for a session owned by `owner` (none: no such session). */
export const reachSession = (principal: Principal, sessionId: string, owner: { readonly userId: string; readonly projectId: string } | undefined) =>
  owner === undefined || owner.userId !== principal.userId
    ? new NotFound({ message: `sessionId: session ${sessionId} not found` })
    : keyReaches(principal, owner.projectId)
    ? Effect.void
    : new Forbidden({ message: `sessionId: this API key is not allowed to access project ${owner.projectId}` })

/**
 * The one lookup of the caller's CLI session, for every route that takes a `sessionId`
 * (heartbeat, claims, uploads, the pending-thread stream): a session of another user is not
 * found, one whose project the key does not reach is forbidden, and one that ended or went
 * silent past the TTL must register again.
 */
export class LiveSessions extends Effect.Service<LiveSessions>()("trellis/LiveSessions", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const config = yield* TrellisConfig
    const ttlSeconds = config.bridge.sessionTtlMs / 1000

    /** The caller's session, live or not. */
    const own = Effect.fn("LiveSessions.own")(function* (principal: Principal, sessionId: string) {
      const [row] = yield* sql<SessionRow & { readonly userId: string }>`
        SELECT s.profile_id AS "profileId", p.project_id AS "projectId", s.machine_id AS "machineId", p.user_id AS "userId",
          (s.ended_at IS NULL AND s.last_heartbeat_at > now() - make_interval(secs => ${ttlSeconds})) AS live
        FROM agent_sessions s JOIN cli_profiles p ON p.id = s.profile_id
        WHERE s.id = ${sessionId}`.pipe(Effect.orDie)
      yield* reachSession(principal, sessionId, row)
      return yield* Effect.fromNullable(row).pipe(Effect.orDie)
    })

    /** The caller's session, which must be live. */
    const live = Effect.fn("LiveSessions.live")(function* (principal: Principal, sessionId: string) {
      const row = yield* own(principal, sessionId)
      if (!row.live) return yield* new SessionExpired({ message: `Session ${sessionId} has expired: register again`, action: "register" })
      return row
    })

    return { own, live } as const
  })
}) {}
