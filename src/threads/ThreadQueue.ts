import { SqlClient, type Statement } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Array as Arr, Cache, Duration, Effect, Exit, Option, Schema } from "effect"
import type { Principal } from "../platform/auth/Principal.js"
import { threadNotFound, threadReadableBy } from "./ThreadVisibility.js"
import { CliType, RuntimeTransport } from "../../catalog/domain/CliType.js"
import { InvalidArgument } from "../../catalog/domain/Errors.js"
import { AgentSessionId, ThreadMessageId } from "../../catalog/domain/Ids.js"
import * as GroupCommit from "../platform/sql/GroupCommit.js"
import { messageText } from "../../catalog/events/compose.js"
import { normalizeChunk } from "./normalizers/normalize.js"
import { NormalizedEvent } from "../../catalog/events/NormalizedEvent.js"
import { TrellisConfig } from "../platform/TrellisConfig.js"
import { ClaimLost } from "../../catalog/bridge/BridgeErrors.js"
import { CliProfiles } from "./CliProfiles.js"
import { LiveEvents } from "../platform/notifications/LiveEvents.js"
import { LiveSessions, reachSession } from "./LiveSessions.js"

/**
 * The claim queue of SPEC's "Thread and message lifecycle in the CLI bridge". A claim is a
 * thread-level lease held by one session, fenced by `claim_epoch`: every write a CLI makes
 * names the epoch it claimed under and is refused, changing nothing, once a newer claim exists.
 */

export interface RawChunk {
  readonly seq: number
  readonly type: string
  readonly data: string
}

const ThreadTarget = Schema.Struct({
  threadId: Schema.String,
  title: Schema.String,
  epoch: Schema.Number,
  leaseExpiresAt: Schema.DateFromSelf,
  cliType: CliType,
  cliModel: Schema.NullOr(Schema.String),
  cliEffort: Schema.NullOr(Schema.String),
  cliMode: Schema.NullOr(Schema.String),
  pathId: Schema.NullOr(Schema.String),
  path: Schema.NullOr(Schema.String),
  worktree: Schema.NullOr(Schema.Unknown),
  runtimeSessionId: Schema.NullOr(Schema.String),
  agentPrompt: Schema.NullOr(Schema.String)
})
export type ClaimedThread = typeof ThreadTarget.Type
const decodeTargets = Schema.decodeUnknown(Schema.Array(ThreadTarget))
const decodeOrderedTargets = Schema.decodeUnknown(Schema.Array(Schema.extend(ThreadTarget, Schema.Struct({ ord: Schema.Number }))))

const BatchMessage = Schema.Struct({
  messageId: ThreadMessageId,
  content: Schema.String,
  runtimeCommand: Schema.Boolean,
  sentByThreadId: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf
})
export type BatchMessage = typeof BatchMessage.Type
const decodeBatchMessages = Schema.decodeUnknown(Schema.Array(BatchMessage))

const FenceRow = Schema.Struct({
  claimedBySessionId: Schema.NullOr(Schema.String),
  claimEpoch: Schema.Number,
  activeAssistantMessageId: Schema.NullOr(Schema.String),
  cliType: Schema.NullOr(CliType),
  transport: Schema.NullOr(RuntimeTransport)
})
const decodeFence = Schema.decodeUnknown(Schema.Array(FenceRow))
const decodeEvents = Schema.decodeUnknown(Schema.Array(NormalizedEvent))

interface ClaimRequest {
  readonly sessionId: string
  readonly profileId: string
  readonly machineId: string | null
}

interface SessionOwner {
  readonly profileId: string
  readonly projectId: string
  readonly userId: string
  readonly machineId: string | null
}

export type Batch =
  | { readonly _tag: "Drained" }
  | {
    readonly _tag: "Batch"
    readonly assistantMessageId: ThreadMessageId
    readonly messages: ReadonlyArray<BatchMessage>
    readonly runtimeSessionId: string | null
  }

export class ThreadQueue extends Effect.Service<ThreadQueue>()("trellis/ThreadQueue", {
  scoped: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const config = yield* TrellisConfig
    const live = yield* LiveEvents
    const profiles = yield* CliProfiles
    const sessions = yield* LiveSessions
    const leaseSeconds = config.bridge.claimLeaseMs / 1000
    const ttlSeconds = config.bridge.sessionTtlMs / 1000

    const transaction = <A, E>(effect: Effect.Effect<A, E | SqlError>) =>
      sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", Effect.die))

    const liveSession = sessions.live

    /**
     * Locks the thread and checks that this session's claim under `epoch` is the current one. A
     * thread the caller cannot read is filtered out by the same statement, so it is neither locked
     * nor told apart from a missing one (its claim and epoch would tell that it exists).
     */
    const fence = Effect.fn("ThreadQueue.fence")(function* (
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

    /** Whether a user message is waiting: one probe of the partial pending index, never a count. */
    const pendingExists = (threadId: string) =>
      sql`EXISTS (SELECT 1 FROM thread_messages WHERE thread_id = ${threadId} AND role = 'user' AND status = 'pending')`

    /** Status once nothing streams: failed while the newest assistant answer is a failure. */
    const restingStatus = (threadId: string) =>
      sql`CASE WHEN (SELECT status FROM thread_messages WHERE thread_id = ${threadId} AND role = 'assistant'
          ORDER BY created_at DESC, id DESC LIMIT 1) = 'failed' THEN 'failed' ELSE 'idle' END`

    /** Only text and bundles (which may hold text) can add to the message text: the rest is not read. */
    const assistantText = (messageId: string) =>
      sql<{ event: unknown }>`
        SELECT normalized_event AS event FROM thread_chunks
        WHERE message_id = ${messageId} AND normalized_event->>'kind' IN ('text', 'metadata')
        ORDER BY seq`.pipe(
        Effect.flatMap((rows) => decodeEvents(rows.map((r) => r.event))),
        Effect.map((events) => messageText(events)),
        Effect.orDie
      )

    /** Ends a streaming batch as failed: the answer keeps what arrived, its user messages become retryable. */
    const failBatch = (assistantMessageId: string, errorMessage: string) =>
      Effect.gen(function* () {
        const text = yield* assistantText(assistantMessageId)
        yield* sql`
          UPDATE thread_messages SET status = 'failed', error_message = ${errorMessage}, text = ${text.text},
            truncated = ${text.truncated === true}, completed_at = now()
          WHERE id = ${assistantMessageId} AND status = 'streaming'`
        yield* sql`UPDATE thread_messages SET status = 'failed' WHERE batch_message_id = ${assistantMessageId} AND status = 'streaming'`
      })

    /** A group's row sorts by its latest member activity: a member's run starting or ending touches it. */
    const touchGroup = (threadId: string) =>
      sql`UPDATE threads SET last_activity_at = now() WHERE id = (SELECT parent_thread_id FROM threads WHERE id = ${threadId})`

    /** The runtime session the CLI named, kept with the machine that holds it. */
    const runtimeSession = (runtimeSessionId: string | undefined, machineId: string | null) =>
      runtimeSessionId === undefined ? sql`` : sql`, runtime_session_id = ${runtimeSessionId}, runtime_machine_id = ${machineId}`

    /** Requests nobody answered while the batch ran go with it: the runtime that asked is gone. */
    const expireInteractions = (threadId: string) =>
      Effect.zipRight(
        sql`UPDATE thread_interactions SET status = 'expired' WHERE thread_id = ${threadId} AND status = 'pending'`,
        sql`UPDATE threads SET has_pending_interaction = false WHERE id = ${threadId}`
      )

    /** Lets go of a claim, abandoning any batch in flight; the thread is claimable again if work waits. */
    const releaseClaim = (threadId: string, activeAssistantMessageId: string | null, reason: string) =>
      Effect.gen(function* () {
        yield* expireInteractions(threadId)
        if (activeAssistantMessageId !== null) yield* failBatch(activeAssistantMessageId, reason)
        yield* sql`
          UPDATE threads SET claimed_by_session_id = NULL, claimed_at = NULL, claim_lease_expires_at = NULL,
            active_assistant_message_id = NULL,
            has_pending_user_messages = ${pendingExists(threadId)},
            processing_state = CASE WHEN ${pendingExists(threadId)} THEN 'pending' ELSE 'idle' END,
            status = CASE WHEN ${pendingExists(threadId)} THEN 'pending' ELSE ${restingStatus(threadId)} END,
            last_activity_at = now()
          WHERE id = ${threadId}`
        yield* touchGroup(threadId)
      })

    /**
     * Which profile, project and user a session serves never changes, so it is looked up once per
     * session; only its liveness is read with each claim. A miss or a failed read is not kept.
     */
    const sessionOwners = yield* Cache.makeWith({
      capacity: 10_000,
      lookup: (sessionId: string) =>
        sql<SessionOwner>`
          SELECT s.profile_id AS "profileId", p.project_id AS "projectId", p.user_id AS "userId", s.machine_id AS "machineId"
          FROM agent_sessions s JOIN cli_profiles p ON p.id = s.profile_id WHERE s.id = ${sessionId}`.pipe(
          Effect.map((rows) => Option.fromNullable(rows[0]))
        ),
      timeToLive: (exit) => Exit.isSuccess(exit) && Option.isSome(exit.value) ? Duration.minutes(10) : Duration.zero
    })

    /** The claimed thread's target, as the CLI needs it to run. */
    const claimedColumns = sql`
      c.id AS "threadId", c.title, c.claim_epoch::float8 AS epoch, c.claim_lease_expires_at AS "leaseExpiresAt",
      c.cli_type AS "cliType", c.cli_model AS "cliModel", c.cli_effort AS "cliEffort", c.cli_mode AS "cliMode",
      c.path_id AS "pathId", (SELECT path FROM cli_paths WHERE id = c.path_id) AS path, c.worktree,
      c.runtime_session_id AS "runtimeSessionId", c.agent_prompt AS "agentPrompt"`
    const claimSet = (sessionId: Statement.Fragment) =>
      sql`processing_state = 'claimed', status = 'running', claimed_by_session_id = ${sessionId}, claimed_at = now(),
        claim_lease_expires_at = now() + make_interval(secs => ${leaseSeconds}), claim_epoch = t.claim_epoch + 1`
    const claimable = sql`t.processing_state = 'pending' AND t.deleted_at IS NULL AND t.claimed_by_session_id IS NULL
      AND t.queue_held_at IS NULL AND t.kind = 'thread'`
    /** A thread whose runtime session is on another machine waits for that machine (or a fresh start). */
    const runsOn = (machineId: Statement.Fragment) =>
      sql`(t.runtime_machine_id IS NULL OR t.runtime_machine_id = ${machineId})`
    const sessionLive = (sessionId: Statement.Fragment) =>
      sql`EXISTS (SELECT 1 FROM agent_sessions s WHERE s.id = ${sessionId} AND s.ended_at IS NULL
        AND s.last_heartbeat_at > now() - make_interval(secs => ${ttlSeconds}))`

    /** A named thread for one session: the pick and the claim in one statement. */
    const claimNamed = (request: ClaimRequest, threadId: string) =>
      sql`
        WITH next AS (
          SELECT t.id FROM threads t
          WHERE t.id = ${threadId} AND t.profile_id = ${request.profileId} AND ${claimable}
            AND ${runsOn(sql`${request.machineId}`)} AND ${sessionLive(sql`${request.sessionId}`)}
          FOR UPDATE OF t SKIP LOCKED
        ), claimed AS (
          UPDATE threads t SET ${claimSet(sql`${request.sessionId}`)} FROM next WHERE t.id = next.id RETURNING t.*
        )
        SELECT ${claimedColumns} FROM claimed c`.pipe(
        Effect.flatMap(decodeTargets),
        Effect.map((rows) => rows[0]),
        Effect.orDie
      )

    /**
     * The longest-waiting threads for a group of sessions, one each, in one statement: each
     * profile's queue is read once per machine, in index order, taking as many unlocked rows as
     * it has requests (a row another transaction holds is skipped), and the k-th request of a
     * profile and machine gets its k-th row. A request whose session is no longer live gets nothing.
     */
    const claimGroup = (requests: Arr.NonEmptyReadonlyArray<ClaimRequest>) =>
      sql`
        WITH request AS (
          SELECT r.ord, r.session_id, r.profile_id, coalesce(r.machine_id, '') AS machine,
            row_number() OVER (PARTITION BY r.profile_id, r.machine_id ORDER BY r.ord) AS k
          FROM (VALUES ${sql.csv(requests.map((request, ord) =>
            sql`(${ord}::int, ${request.sessionId}::text, ${request.profileId}::text, ${request.machineId}::text)`))})
            AS r (ord, session_id, profile_id, machine_id)
          WHERE ${sessionLive(sql`r.session_id`)}
        ), wanted AS (
          SELECT profile_id, machine, count(*) AS n FROM request GROUP BY profile_id, machine
        ), next AS (
          SELECT w.profile_id, w.machine, x.id,
            row_number() OVER (PARTITION BY w.profile_id, w.machine ORDER BY x.last_activity_at, x.id) AS k
          FROM wanted w CROSS JOIN LATERAL (
            SELECT t.id, t.last_activity_at FROM threads t
            WHERE t.profile_id = w.profile_id AND ${claimable} AND ${runsOn(sql`w.machine`)}
            ORDER BY t.last_activity_at, t.id LIMIT w.n
            FOR UPDATE OF t SKIP LOCKED
          ) x
        ), claimed AS (
          UPDATE threads t SET ${claimSet(sql`request.session_id`)}
          FROM next JOIN request ON request.profile_id = next.profile_id AND request.machine = next.machine AND request.k = next.k
          WHERE t.id = next.id
          RETURNING request.ord, t.*
        )
        SELECT c.ord, ${claimedColumns} FROM claimed c`.pipe(
        Effect.flatMap(decodeOrderedTargets),
        Effect.map((rows) => {
          const byOrd = new Map(rows.map((row) => [row.ord, row]))
          return requests.map((_, ord) => byOrd.get(ord))
        }),
        Effect.orDie
      )

    // Claims come in bursts (every CLI asks when its queue changes): they share statements.
    const claims = yield* GroupCommit.make({
      run: claimGroup,
      maxSize: 64,
      workers: 2
    })

    /**
     * Claims the given pending thread, or the profile's longest-waiting one; none when nothing waits.
     * The session's owner is checked here; its liveness, the pick and the claim go to the database
     * as one statement, shared with other sessions' claims arriving at the same time. Only when
     * nothing was claimed is the session looked at again, to tell "nothing waits" from an expired session.
     */
    const claim = Effect.fn("ThreadQueue.claim")(function* (
      principal: Principal,
      sessionId: AgentSessionId,
      threadId?: string
    ) {
      const owner = Option.getOrUndefined(yield* sessionOwners.get(sessionId).pipe(Effect.orDie))
      yield* reachSession(principal, sessionId, owner)
      const { machineId, profileId } = yield* Effect.fromNullable(owner).pipe(Effect.orDie)
      const thread = threadId === undefined
        ? yield* claims.submit({ sessionId, profileId, machineId })
        : yield* claimNamed({ sessionId, profileId, machineId }, threadId)
      if (thread === undefined) yield* liveSession(principal, sessionId)
      return thread
    })

    const renew = Effect.fn("ThreadQueue.renew")(function* (
      principal: Principal,
      sessionId: AgentSessionId,
      threadId: string,
      epoch: number
    ) {
      return yield* transaction(Effect.gen(function* () {
        yield* liveSession(principal, sessionId)
        yield* fence(principal, threadId, sessionId, epoch)
        const rows = yield* sql<{ leaseExpiresAt: Date }>`
          UPDATE threads SET claim_lease_expires_at = now() + make_interval(secs => ${leaseSeconds})
          WHERE id = ${threadId} RETURNING claim_lease_expires_at AS "leaseExpiresAt"`
        return rows[0]?.leaseExpiresAt ?? new Date()
      }))
    })

    /**
     * Takes every unprocessed user message into one batch under a new assistant envelope, or, with
     * none left, makes the thread idle and releases the claim ("drained").
     */
    const startBatch = Effect.fn("ThreadQueue.startBatch")(function* (
      principal: Principal,
      sessionId: AgentSessionId,
      threadId: string,
      epoch: number,
      transport: RuntimeTransport | undefined
    ) {
      const { profileId } = yield* liveSession(principal, sessionId)
      const batch = yield* transaction(Effect.gen(function* () {
        const fenced = yield* fence(principal, threadId, sessionId, epoch)
        if (fenced.activeAssistantMessageId !== null) {
          // A retried request whose first answer was lost: the batch has no output yet, so it is handed out again.
          const started = yield* sql<{ produced: boolean }>`
            SELECT EXISTS (SELECT 1 FROM thread_chunks WHERE message_id = ${fenced.activeAssistantMessageId}) AS produced`
          if (started[0]?.produced === false) {
            const again = yield* sql`
              SELECT id AS "messageId", content, runtime_command AS "runtimeCommand", sent_by_thread_id AS "sentByThreadId",
                created_at AS "createdAt"
              FROM thread_messages WHERE batch_message_id = ${fenced.activeAssistantMessageId}
              ORDER BY created_at, id`.pipe(Effect.flatMap(decodeBatchMessages), Effect.orDie)
            const session = yield* sql<{ runtimeSessionId: string | null }>`
              SELECT runtime_session_id AS "runtimeSessionId" FROM threads WHERE id = ${threadId}`
            return {
              _tag: "Batch",
              assistantMessageId: ThreadMessageId.make(fenced.activeAssistantMessageId),
              messages: again,
              runtimeSessionId: session[0]?.runtimeSessionId ?? null
            } satisfies Batch
          }
          yield* failBatch(fenced.activeAssistantMessageId, "The CLI started a new batch without finishing this one")
        }
        const messages = yield* sql`
          SELECT id AS "messageId", content, runtime_command AS "runtimeCommand", sent_by_thread_id AS "sentByThreadId",
            created_at AS "createdAt"
          FROM thread_messages WHERE thread_id = ${threadId} AND role = 'user' AND status = 'pending'
          ORDER BY created_at, id FOR UPDATE`.pipe(Effect.flatMap(decodeBatchMessages), Effect.orDie)
        if (messages.length === 0) {
          yield* releaseClaim(threadId, null, "")
          return { _tag: "Drained" } satisfies Batch
        }
        const assistantMessageId = ThreadMessageId.generate()
        yield* sql`
          INSERT INTO thread_messages (id, thread_id, role, status, transport)
          VALUES (${assistantMessageId}, ${threadId}, 'assistant', 'streaming', ${transport ?? null})`
        yield* sql`
          UPDATE thread_messages SET status = 'streaming', batch_message_id = ${assistantMessageId}
          WHERE ${sql.in("id", messages.map((m) => m.messageId))}`
        const updated = yield* sql<{ runtimeSessionId: string | null }>`
          UPDATE threads SET processing_state = 'streaming', status = 'running',
            active_assistant_message_id = ${assistantMessageId}, has_pending_user_messages = false,
            claim_lease_expires_at = now() + make_interval(secs => ${leaseSeconds}), last_activity_at = now()
          WHERE id = ${threadId} RETURNING runtime_session_id AS "runtimeSessionId"`
        yield* touchGroup(threadId)
        return {
          _tag: "Batch",
          assistantMessageId,
          messages,
          runtimeSessionId: updated[0]?.runtimeSessionId ?? null
        } satisfies Batch
      }))
      yield* live.threadChanged(threadId, profileId)
      return batch
    })

    /** Stores raw chunks with their normalized events; a chunk already stored (same message and seq) is skipped. */
    const uploadChunks = Effect.fn("ThreadQueue.uploadChunks")(function* (
      principal: Principal,
      sessionId: AgentSessionId,
      threadId: string,
      epoch: number,
      input: { readonly messageId: string; readonly chunks: ReadonlyArray<RawChunk>; readonly runtimeSessionId?: string | undefined }
    ) {
      const { machineId } = yield* liveSession(principal, sessionId)
      const result = yield* transaction(Effect.gen(function* () {
        const fenced = yield* fence(principal, threadId, sessionId, epoch)
        if (fenced.activeAssistantMessageId !== input.messageId) {
          return yield* new InvalidArgument({
            message: `messageId: ${input.messageId} is not the message streaming on thread ${threadId}`
          })
        }
        const source = { cliType: fenced.cliType ?? "other", transport: fenced.transport ?? undefined } as const
        const rows = input.chunks.map((chunk) => ({
          thread_id: threadId,
          message_id: input.messageId,
          seq: chunk.seq,
          type: chunk.type,
          data: chunk.data,
          normalized_event: JSON.stringify(normalizeChunk(source, chunk.type, chunk.data))
        }))
        const inserted = rows.length === 0 ? [] : yield* sql<{ id: string }>`
          INSERT INTO thread_chunks ${sql.insert(rows)} ON CONFLICT (message_id, seq) DO NOTHING RETURNING id::text`
        yield* sql`
          UPDATE threads SET claim_lease_expires_at = now() + make_interval(secs => ${leaseSeconds}), last_activity_at = now()
            ${runtimeSession(input.runtimeSessionId, machineId)}
          WHERE id = ${threadId}`
        return { accepted: inserted.length, duplicates: rows.length - inserted.length }
      }))
      if (result.accepted > 0) yield* live.chunksAdded(threadId)
      return result
    })

    /** Ends the streaming batch: completed, or failed (retryable) with the error the runtime gave. */
    const finishBatch = Effect.fn("ThreadQueue.finishBatch")(function* (
      principal: Principal,
      sessionId: AgentSessionId,
      threadId: string,
      epoch: number,
      input: {
        readonly messageId: string
        readonly outcome: { readonly _tag: "Completed" } | { readonly _tag: "Failed"; readonly errorMessage: string }
        readonly runtimeSessionId?: string | undefined
      }
    ) {
      const { machineId, profileId } = yield* liveSession(principal, sessionId)
      yield* transaction(Effect.gen(function* () {
        const fenced = yield* fence(principal, threadId, sessionId, epoch)
        if (fenced.activeAssistantMessageId !== input.messageId) {
          // A retried request whose first answer was lost: the message already ended the same way.
          const settled = yield* sql<{ status: string }>`
            SELECT status FROM thread_messages WHERE id = ${input.messageId} AND thread_id = ${threadId} AND role = 'assistant'`
          const expected = input.outcome._tag === "Failed" ? "failed" : "completed"
          if (settled[0]?.status === expected) return
          return yield* new InvalidArgument({
            message: `messageId: ${input.messageId} is not the message streaming on thread ${threadId}`
          })
        }
        yield* expireInteractions(threadId)
        if (input.outcome._tag === "Failed") {
          yield* failBatch(input.messageId, input.outcome.errorMessage)
        } else {
          const text = yield* assistantText(input.messageId)
          yield* sql`
            UPDATE thread_messages SET status = 'completed', text = ${text.text}, truncated = ${text.truncated === true},
              completed_at = now()
            WHERE id = ${input.messageId}`
          yield* sql`UPDATE thread_messages SET status = 'completed' WHERE batch_message_id = ${input.messageId}`
        }
        yield* sql`
          UPDATE threads SET processing_state = 'claimed', active_assistant_message_id = NULL,
            status = ${input.outcome._tag === "Failed" ? "failed" : "running"},
            claim_lease_expires_at = now() + make_interval(secs => ${leaseSeconds}), last_activity_at = now()
            ${runtimeSession(input.runtimeSessionId, machineId)}
          WHERE id = ${threadId}`
        yield* touchGroup(threadId)
      }))
      yield* live.threadChanged(threadId, profileId)
    })

    /** Runs a write under the caller's current claim (fenced), given the streaming message if any. */
    const underClaim = <A, E>(
      principal: Principal,
      sessionId: AgentSessionId,
      threadId: string,
      epoch: number,
      write: (activeAssistantMessageId: string | null) => Effect.Effect<A, E | SqlError>
    ) =>
      Effect.gen(function* () {
        yield* liveSession(principal, sessionId)
        return yield* transaction(Effect.gen(function* () {
          const fenced = yield* fence(principal, threadId, sessionId, epoch)
          return yield* write(fenced.activeAssistantMessageId)
        }))
      })

    /** The CLI made the thread's worktree: it becomes a `worktree` path under the thread's checkout. */
    const reportWorktree = Effect.fn("ThreadQueue.reportWorktree")(function* (
      principal: Principal,
      sessionId: AgentSessionId,
      threadId: string,
      epoch: number,
      input: { readonly path: string; readonly branch: string }
    ) {
      return yield* underClaim(principal, sessionId, threadId, epoch, () =>
        Effect.gen(function* () {
          const rows = yield* sql<{ profileId: string; pathId: string | null }>`
            SELECT profile_id AS "profileId", path_id AS "pathId" FROM threads WHERE id = ${threadId}`
          const thread = rows[0]
          if (thread === undefined || thread.pathId === null) {
            return yield* new InvalidArgument({ message: `threadId: thread ${threadId} has no checkout to put a worktree under` })
          }
          const worktreePathId = yield* profiles.addWorktree(thread.profileId, {
            path: input.path,
            branch: input.branch,
            parentPathId: thread.pathId
          })
          yield* sql`
            UPDATE threads SET worktree = COALESCE(worktree, '{}'::jsonb) || ${JSON.stringify({ pathId: worktreePathId, path: input.path })}::jsonb
            WHERE id = ${threadId}`
          return worktreePathId
        }))
    })

    const release = Effect.fn("ThreadQueue.release")(function* (
      principal: Principal,
      sessionId: AgentSessionId,
      threadId: string,
      epoch: number
    ) {
      const { profileId } = yield* liveSession(principal, sessionId)
      yield* transaction(Effect.gen(function* () {
        const fenced = yield* fence(principal, threadId, sessionId, epoch)
        yield* releaseClaim(threadId, fenced.activeAssistantMessageId, "The CLI released the thread mid-run")
      }))
      yield* live.threadChanged(threadId, profileId)
    })

    /** Releases every claim a session holds (it ended, or another session replaced it). */
    const releaseSessionClaims = Effect.fn("ThreadQueue.releaseSessionClaims")(function* (sessionId: string, reason: string) {
      const threads = yield* sql<{ id: string; active: string | null; profileId: string }>`
        SELECT id, active_assistant_message_id AS active, profile_id AS "profileId"
        FROM threads WHERE claimed_by_session_id = ${sessionId} FOR UPDATE`.pipe(Effect.orDie)
      for (const thread of threads) yield* releaseClaim(thread.id, thread.active, reason).pipe(Effect.orDie)
      return threads
    })

    /** The sweeper's half: leases nobody renewed in time are released, so another session can claim. */
    const releaseStaleClaims = Effect.fn("ThreadQueue.releaseStaleClaims")(function* () {
      const released = yield* transaction(Effect.gen(function* () {
        const stale = yield* sql<{ id: string; active: string | null; profileId: string }>`
          SELECT id, active_assistant_message_id AS active, profile_id AS "profileId"
          FROM threads WHERE claimed_by_session_id IS NOT NULL AND claim_lease_expires_at < now()
          FOR UPDATE SKIP LOCKED`
        for (const thread of stale) {
          yield* releaseClaim(thread.id, thread.active, "The claim lease expired: the CLI stopped renewing it")
        }
        return stale
      }))
      for (const thread of released) yield* live.threadChanged(thread.id, thread.profileId)
      return released.length
    })

    return {
      claim,
      renew,
      startBatch,
      uploadChunks,
      finishBatch,
      release,
      releaseSessionClaims,
      releaseStaleClaims,
      underClaim,
      reportWorktree,
      touchGroup,
      assistantText
    } as const
  }),
  dependencies: [LiveEvents.Default, CliProfiles.Default, LiveSessions.Default]
}) {}
