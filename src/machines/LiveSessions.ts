import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { keyReaches, type Principal } from "../platform/auth/Principal.js"
import { Forbidden, NotFound } from "../../catalog/domain/Errors.js"
import { TrellisConfig } from "../platform/TrellisConfig.js"
import { SessionExpired } from "../../catalog/bridge/BridgeErrors.js"

/** Which profile, project and user a CLI session serves, and its machine: fixed for the session's life. */
export const SessionOwner = Schema.Struct({
  profileId: Schema.String,
  projectId: Schema.String,
  userId: Schema.String,
  machineId: Schema.NullOr(Schema.String)
})
export type SessionOwner = typeof SessionOwner.Type

/** A CLI session as the bridge's checks read it. */
export const SessionRow = Schema.Struct({
  ...SessionOwner.fields,
  /** Not ended, and heard from within the session TTL. */
  live: Schema.Boolean
})
export type SessionRow = typeof SessionRow.Type

/** Whether `principal` may act for a session owned by `owner` (none: no such session). */
export const reachSession = (
  principal: Principal,
  sessionId: string,
  owner: { readonly userId: string; readonly projectId: string } | undefined
) =>
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
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* TrellisConfig
    const ttlSeconds = config.bridge.sessionTtlMs / 1000

    const findSession = SqlSchema.findOne({
      Request: Schema.String,
      Result: SessionRow,
      execute: (sessionId) =>
        sql`
          SELECT s.profile_id AS "profileId", p.project_id AS "projectId", s.machine_id AS "machineId", p.user_id AS "userId",
            (s.ended_at IS NULL AND s.last_heartbeat_at > now() - make_interval(secs => ${ttlSeconds})) AS live
          FROM agent_sessions s JOIN cli_profiles p ON p.id = s.profile_id
          WHERE s.id = ${sessionId}`
    })

    const findOwner = SqlSchema.findOne({
      Request: Schema.String,
      Result: SessionOwner,
      execute: (sessionId) =>
        sql`
          SELECT s.profile_id AS "profileId", p.project_id AS "projectId", p.user_id AS "userId", s.machine_id AS "machineId"
          FROM agent_sessions s JOIN cli_profiles p ON p.id = s.profile_id WHERE s.id = ${sessionId}`
    })

    /** Who a session serves, whoever asks and whether it is live: none when no such session exists. */
    const owner = (sessionId: string) => findOwner(sessionId).pipe(Effect.orDie)

    /** The caller's session, live or not. */
    const own = Effect.fn("LiveSessions.own")(function*(principal: Principal, sessionId: string) {
      const row = Option.getOrUndefined(yield* findSession(sessionId).pipe(Effect.orDie))
      yield* reachSession(principal, sessionId, row)
      return yield* Effect.fromNullable(row).pipe(Effect.orDie)
    })

    /** The caller's session, which must be live. */
    const live = Effect.fn("LiveSessions.live")(function*(principal: Principal, sessionId: string) {
      const row = yield* own(principal, sessionId)
      if (!row.live) return yield* new SessionExpired({ message: `Session ${sessionId} has expired: register again`, action: "register" })
      return row
    })

    return { own, live, owner } as const
  })
}) {}
