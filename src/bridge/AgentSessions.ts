import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import type { Principal } from "../platform/auth/Principal.js"
import { AgentSessionId } from "../../catalog/domain/Ids.js"
import { Projects } from "../projects/Projects.js"
import { requireWrite } from "../tasks/TaskAccess.js"
import { TrellisConfig } from "../platform/TrellisConfig.js"
import { SessionConflict } from "../../catalog/bridge/BridgeErrors.js"
import type { RegisterPayload } from "../../catalog/bridge/AgentApi.js"
import { CliProfiles } from "../machines/CliProfiles.js"
import { LiveEvents } from "../platform/notifications/LiveEvents.js"
import { LiveSessions } from "../machines/LiveSessions.js"
import { ClaimLeases } from "./ClaimLeases.js"

const SessionIdRow = Schema.Struct({ id: Schema.String })

/**
 * CLI sessions (SPEC "Session lifecycle"): one per registered CLI process, alive while it
 * heartbeats. The session heartbeat says the process is online; claim leases are renewed apart.
 */
export class AgentSessions extends Effect.Service<AgentSessions>()("trellis/AgentSessions", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* TrellisConfig
    const profiles = yield* CliProfiles
    const projects = yield* Projects
    const leases = yield* ClaimLeases
    const live = yield* LiveEvents
    const sessions = yield* LiveSessions
    const ttlSeconds = config.bridge.sessionTtlMs / 1000

    const endSession = (sessionId: string, reason: string) =>
      Effect.gen(function*() {
        yield* sql`UPDATE agent_sessions SET ended_at = now(), end_reason = ${reason} WHERE id = ${sessionId} AND ended_at IS NULL`
        return yield* leases.releaseSessionClaims(sessionId, `The CLI session ended (${reason})`)
      })

    const liveSessionsOf = SqlSchema.findAll({
      Request: Schema.String,
      Result: SessionIdRow,
      execute: (profileId) =>
        sql`
          SELECT id FROM agent_sessions
          WHERE profile_id = ${profileId} AND ended_at IS NULL
            AND last_heartbeat_at > now() - make_interval(secs => ${ttlSeconds})
          FOR UPDATE`
    })

    const silentSessions = SqlSchema.findAll({
      Request: Schema.Void,
      Result: SessionIdRow,
      execute: () =>
        sql`
          SELECT id FROM agent_sessions
          WHERE ended_at IS NULL AND last_heartbeat_at <= now() - make_interval(secs => ${ttlSeconds})
          FOR UPDATE SKIP LOCKED`
    })

    /**
     * Registers the profile's CLI process. A second live session for the same profile is a
     * conflict unless `force`, which ends the old session and releases its claims.
     */
    const register = Effect.fn("AgentSessions.register")(function*(
      principal: Principal,
      input: typeof RegisterPayload.Type
    ) {
      yield* requireWrite(yield* projects.access(principal, input.projectId), "CLI profiles")
      const result = yield* sql.withTransaction(Effect.gen(function*() {
        const profileId = yield* profiles.upsert(principal, input)
        const liveSessions = yield* liveSessionsOf(profileId).pipe(Effect.orDie)
        const current = liveSessions[0]
        if (current !== undefined && !input.force) {
          return yield* new SessionConflict({
            message: `Profile ${profileId} already has a live CLI session (${current.id}); register with force=true to replace it`,
            sessionId: current.id
          })
        }
        const released = []
        for (const session of liveSessions) released.push(...(yield* endSession(session.id, "replaced")))
        const sessionId = AgentSessionId.generate()
        yield* sql`
          INSERT INTO agent_sessions (id, profile_id, api_key_id, machine_id)
          VALUES (${sessionId}, ${profileId}, ${principal.apiKeyId}, ${input.machineId ?? null})`
        return { sessionId, profileId, released }
      })).pipe(Effect.catchTag("SqlError", Effect.die))
      for (const thread of result.released) yield* live.threadChanged(thread.id, thread.profileId)
      yield* live.machinesChanged([result.sessionId])
      const profile = yield* profiles.getOwn(principal, result.profileId)
      return { sessionId: result.sessionId, profile }
    })

    /** Keeps the session alive; an ended or expired one is told to register again. */
    const heartbeat = Effect.fn("AgentSessions.heartbeat")(function*(principal: Principal, sessionId: string) {
      const session = yield* sessions.live(principal, sessionId)
      yield* sql`UPDATE agent_sessions SET last_heartbeat_at = now() WHERE id = ${sessionId}`.pipe(Effect.orDie)
      yield* sql`UPDATE cli_profiles SET last_connected_at = now() WHERE id = ${session.profileId}`.pipe(Effect.orDie)
      return { heartbeatIntervalMs: config.bridge.heartbeatIntervalMs, sessionTtlMs: config.bridge.sessionTtlMs }
    })

    /** Ends the session and releases its claims; ending an ended session is a no-op. */
    const disconnect = Effect.fn("AgentSessions.disconnect")(function*(principal: Principal, sessionId: string) {
      yield* sessions.own(principal, sessionId)
      const released = yield* sql.withTransaction(endSession(sessionId, "disconnected")).pipe(Effect.catchTag("SqlError", Effect.die))
      for (const thread of released) yield* live.threadChanged(thread.id, thread.profileId)
      yield* live.machinesChanged([sessionId])
    })

    /** The sweeper's half: sessions silent past the TTL end, and their claims are released. */
    const expireSilent = Effect.fn("AgentSessions.expireSilent")(function*() {
      const { released, silent } = yield* sql.withTransaction(Effect.gen(function*() {
        const silent = yield* silentSessions(undefined).pipe(Effect.orDie)
        const released = []
        for (const session of silent) released.push(...(yield* endSession(session.id, "expired")))
        return { released, silent }
      })).pipe(Effect.catchTag("SqlError", Effect.die))
      for (const thread of released) yield* live.threadChanged(thread.id, thread.profileId)
      yield* live.machinesChanged(silent.map((session) => session.id))
      return released.length
    })

    return { register, heartbeat, disconnect, expireSilent } as const
  }),
  dependencies: [CliProfiles.Default, Projects.Default, ClaimLeases.Default, LiveEvents.Default, LiveSessions.Default]
}) {}
