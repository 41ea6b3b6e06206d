import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import type { Principal } from "../platform/auth/Principal.js"
import type { AgentSessionId } from "../../catalog/domain/Ids.js"
import { LiveEvents } from "../platform/notifications/LiveEvents.js"
import { ClaimFence } from "./ClaimFence.js"
import { releaseClaim } from "./ClaimRelease.js"
import { LiveSessions } from "../machines/LiveSessions.js"

/** A claimed thread as a release reads it: the batch it abandons, and whose queue it rejoins. */
const ClaimHolding = Schema.Struct({
  id: Schema.String,
  active: Schema.NullOr(Schema.String),
  profileId: Schema.String
})
export type ClaimHolding = typeof ClaimHolding.Type

/**
 * A claim's lease: renewed by the CLI that holds it, given up by it, or taken back by the backend
 * when the session ends or nobody renewed it in time, so another session can claim the thread.
 */
export class ClaimLeases extends Effect.Service<ClaimLeases>()("trellis/ClaimLeases", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const live = yield* LiveEvents
    const sessions = yield* LiveSessions
    const fences = yield* ClaimFence

    const extendLease = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ leaseExpiresAt: Schema.DateFromSelf }),
      execute: (threadId) =>
        sql`
          UPDATE threads SET claim_lease_expires_at = ${fences.renewedLease}
          WHERE id = ${threadId} RETURNING claim_lease_expires_at AS "leaseExpiresAt"`
    })

    const renew = Effect.fn("ClaimLeases.renew")(function*(
      principal: Principal,
      sessionId: AgentSessionId,
      threadId: string,
      epoch: number
    ) {
      return yield* fences.transaction(Effect.gen(function*() {
        yield* sessions.live(principal, sessionId)
        yield* fences.fence(principal, threadId, sessionId, epoch)
        const lease = yield* extendLease(threadId).pipe(Effect.orDie)
        return Option.match(lease, { onNone: () => new Date(), onSome: (row) => row.leaseExpiresAt })
      }))
    })

    const release = Effect.fn("ClaimLeases.release")(function*(
      principal: Principal,
      sessionId: AgentSessionId,
      threadId: string,
      epoch: number
    ) {
      const { profileId } = yield* sessions.live(principal, sessionId)
      yield* fences.transaction(Effect.gen(function*() {
        const fenced = yield* fences.fence(principal, threadId, sessionId, epoch)
        yield* releaseClaim(sql, threadId, fenced.activeAssistantMessageId, "The CLI released the thread mid-run")
      }))
      yield* live.threadChanged(threadId, profileId)
    })

    const heldBySession = SqlSchema.findAll({
      Request: Schema.String,
      Result: ClaimHolding,
      execute: (sessionId) =>
        sql`
          SELECT id, active_assistant_message_id AS active, profile_id AS "profileId"
          FROM threads WHERE claimed_by_session_id = ${sessionId} FOR UPDATE`
    })

    /** Releases every claim a session holds (it ended, or another session replaced it). */
    const releaseSessionClaims = Effect.fn("ClaimLeases.releaseSessionClaims")(function*(sessionId: string, reason: string) {
      const threads = yield* heldBySession(sessionId).pipe(Effect.orDie)
      for (const thread of threads) yield* releaseClaim(sql, thread.id, thread.active, reason).pipe(Effect.orDie)
      return threads
    })

    const staleClaims = SqlSchema.findAll({
      Request: Schema.Void,
      Result: ClaimHolding,
      execute: () =>
        sql`
          SELECT id, active_assistant_message_id AS active, profile_id AS "profileId"
          FROM threads WHERE claimed_by_session_id IS NOT NULL AND claim_lease_expires_at < now()
          FOR UPDATE SKIP LOCKED`
    })

    /** The sweeper's half: leases nobody renewed in time are released, so another session can claim. */
    const releaseStaleClaims = Effect.fn("ClaimLeases.releaseStaleClaims")(function*() {
      const released = yield* fences.transaction(Effect.gen(function*() {
        const stale = yield* staleClaims(undefined).pipe(Effect.orDie)
        for (const thread of stale) {
          yield* releaseClaim(sql, thread.id, thread.active, "The claim lease expired: the CLI stopped renewing it")
        }
        return stale
      }))
      for (const thread of released) yield* live.threadChanged(thread.id, thread.profileId)
      return released.length
    })

    return { renew, release, releaseSessionClaims, releaseStaleClaims } as const
  }),
  dependencies: [LiveEvents.Default, LiveSessions.Default, ClaimFence.Default]
}) {}
