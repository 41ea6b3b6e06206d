import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Schema } from "effect"
import type { Principal } from "../platform/auth/Principal.js"
import { threadNotFound, threadReadableBy } from "../threads/ThreadVisibility.js"
import { CliType, RuntimeTransport } from "../../catalog/domain/CliType.js"
import type { AgentSessionId } from "../../catalog/domain/Ids.js"
import { TrellisConfig } from "../platform/TrellisConfig.js"
import { ClaimLost } from "../../catalog/bridge/BridgeErrors.js"
import { LiveSessions } from "../machines/LiveSessions.js"

/**
 * The fencing of SPEC's "Thread and message lifecycle in the CLI bridge": a claim is a
 * thread-level lease held by one session under `claim_epoch`, and every write a CLI makes names
 * the epoch it claimed under and is refused, changing nothing, once a newer claim exists.
 */

const FenceRow = Schema.Struct({
  claimedBySessionId: Schema.NullOr(Schema.String),
  claimEpoch: Schema.Number,
  activeAssistantMessageId: Schema.NullOr(Schema.String),
  cliType: Schema.NullOr(CliType),
  transport: Schema.NullOr(RuntimeTransport)
})
export type FenceRow = typeof FenceRow.Type
const decodeFence = Schema.decodeUnknown(Schema.Array(FenceRow))

export class ClaimFence extends Effect.Service<ClaimFence>()("trellis/ClaimFence", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* TrellisConfig
    const sessions = yield* LiveSessions
    const leaseSeconds = config.bridge.claimLeaseMs / 1000

    /** A fenced write's statements run together; a database error inside one is a defect. */
    const transaction = <A, E>(effect: Effect.Effect<A, E | SqlError>) =>
      sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", Effect.die))

    /** When a lease taken or renewed now runs out: every sign of progress from the CLI renews it. */
    const renewedLease = sql`now() + make_interval(secs => ${leaseSeconds})`

    /**
     * Locks the thread and checks that this session's claim under `epoch` is the current one. A
     * thread the caller cannot read is filtered out by the same statement, so it is neither locked
     * nor told apart from a missing one (its claim and epoch would tell that it exists).
     */
    const fence = Effect.fn("ClaimFence.fence")(function*(
      principal: Principal,
      threadId: string,
      sessionId: string,
      epoch: number
    ) {
      const rows = yield* sql`
        SELECT t.claimed_by_session_id AS "claimedBySessionId", t.claim_epoch::float8 AS "claimEpoch",
          t.active_assistant_message_id AS "activeAssistantMessageId", t.cli_type AS "cliType", m.transport
        FROM threads t LEFT JOIN thread_messages m ON m.id = t.active_assistant_message_id
        WHERE t.id = ${threadId} AND t.kind = 'thread' AND t.deleted_at IS NULL AND ${threadReadableBy(sql, principal)}
        FOR UPDATE OF t`.pipe(Effect.flatMap(decodeFence), Effect.orDie)
      const row = rows[0]
      if (row === undefined) return yield* threadNotFound
      if (row.claimedBySessionId !== sessionId || row.claimEpoch !== epoch) {
        return yield* new ClaimLost({
          message: `Thread ${threadId} is no longer claimed by this session under epoch ${epoch}; stop working on it`,
          threadId,
          currentEpoch: row.claimEpoch
        })
      }
      return row
    })

    /** Runs a write under the caller's current claim (fenced), given the streaming message if any. */
    const underClaim = <A, E>(
      principal: Principal,
      sessionId: AgentSessionId,
      threadId: string,
      epoch: number,
      write: (activeAssistantMessageId: string | null) => Effect.Effect<A, E | SqlError>
    ) =>
      Effect.gen(function*() {
        yield* sessions.live(principal, sessionId)
        return yield* transaction(Effect.gen(function*() {
          const fenced = yield* fence(principal, threadId, sessionId, epoch)
          return yield* write(fenced.activeAssistantMessageId)
        }))
      })

    return { transaction, renewedLease, fence, underClaim } as const
  }),
  dependencies: [LiveSessions.Default]
}) {}
