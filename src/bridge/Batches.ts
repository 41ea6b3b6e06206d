import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import type { Principal } from "../platform/auth/Principal.js"
import type { RuntimeTransport } from "../../catalog/domain/CliType.js"
import { InvalidArgument } from "../../catalog/domain/Errors.js"
import { type AgentSessionId, ThreadMessageId } from "../../catalog/domain/Ids.js"
import { StoredMessageStatus } from "../../catalog/domain/Thread.js"
import { type BatchResponse, BatchUserMessage } from "../../catalog/bridge/AgentApi.js"
import { LiveEvents } from "../platform/notifications/LiveEvents.js"
import { ClaimFence } from "./ClaimFence.js"
import { expireInteractions, failBatch, releaseClaim } from "./ClaimRelease.js"
import { runtimeSessionSet } from "./ChunkUploads.js"
import { assistantText } from "../threads/AssistantText.js"
import { touchGroup } from "../threads/GroupActivity.js"
import { IsoTimestamp } from "./IsoTimestamp.js"
import { LiveSessions } from "../machines/LiveSessions.js"

/** A batch's user message is the contract's record; only its time arrives as a timestamp. */
const BatchMessageRow = Schema.Struct({ ...BatchUserMessage.fields, createdAt: IsoTimestamp })
const RuntimeSessionRow = Schema.Struct({ runtimeSessionId: Schema.NullOr(Schema.String) })

/** What the CLI gets for its batch request: the contract's answer. */
type Batch = typeof BatchResponse.Type

/** How the runtime ended a batch: completed, or failed (retryable) with the error it gave. */
export type BatchOutcome = { readonly _tag: "Completed" } | { readonly _tag: "Failed"; readonly errorMessage: string }

/**
 * A batch: every user message waiting on a claimed thread, answered by one assistant message
 * that streams until the CLI reports how the runtime ended it.
 */
export class Batches extends Effect.Service<Batches>()("trellis/Batches", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const live = yield* LiveEvents
    const sessions = yield* LiveSessions
    const fences = yield* ClaimFence

    const messageColumns = sql`id AS "messageId", content, runtime_command AS "runtimeCommand",
      sent_by_thread_id AS "sentByThreadId", created_at AS "createdAt"`

    const producedYet = SqlSchema.single({
      Request: Schema.String,
      Result: Schema.Struct({ produced: Schema.Boolean }),
      execute: (messageId) => sql`SELECT EXISTS (SELECT 1 FROM thread_chunks WHERE message_id = ${messageId}) AS produced`
    })
    const messagesOfBatch = SqlSchema.findAll({
      Request: Schema.String,
      Result: BatchMessageRow,
      execute: (assistantMessageId) =>
        sql`
          SELECT ${messageColumns} FROM thread_messages WHERE batch_message_id = ${assistantMessageId}
          ORDER BY created_at, id`
    })
    const waitingMessages = SqlSchema.findAll({
      Request: Schema.String,
      Result: BatchMessageRow,
      execute: (threadId) =>
        sql`
          SELECT ${messageColumns} FROM thread_messages WHERE thread_id = ${threadId} AND role = 'user' AND status = 'pending'
          ORDER BY created_at, id FOR UPDATE`
    })
    const runtimeSessionOf = SqlSchema.findOne({
      Request: Schema.String,
      Result: RuntimeSessionRow,
      execute: (threadId) => sql`SELECT runtime_session_id AS "runtimeSessionId" FROM threads WHERE id = ${threadId}`
    })
    const startStreaming = SqlSchema.findOne({
      Request: Schema.Struct({ threadId: Schema.String, assistantMessageId: Schema.String }),
      Result: RuntimeSessionRow,
      execute: ({ assistantMessageId, threadId }) =>
        sql`
          UPDATE threads SET processing_state = 'streaming', status = 'running',
            active_assistant_message_id = ${assistantMessageId}, has_pending_user_messages = false,
            claim_lease_expires_at = ${fences.renewedLease}, last_activity_at = now()
          WHERE id = ${threadId} RETURNING runtime_session_id AS "runtimeSessionId"`
    })
    const settledStatus = SqlSchema.findOne({
      Request: Schema.Struct({ messageId: Schema.String, threadId: Schema.String }),
      Result: Schema.Struct({ status: StoredMessageStatus }),
      execute: ({ messageId, threadId }) =>
        sql`SELECT status FROM thread_messages WHERE id = ${messageId} AND thread_id = ${threadId} AND role = 'assistant'`
    })
    const runtimeSessionIdOf = Option.match({ onNone: () => null, onSome: (row: typeof RuntimeSessionRow.Type) => row.runtimeSessionId })

    /**
     * Takes every unprocessed user message into one batch under a new assistant envelope, or, with
     * none left, makes the thread idle and releases the claim ("drained").
     */
    const startBatch = Effect.fn("Batches.startBatch")(function*(
      principal: Principal,
      sessionId: AgentSessionId,
      threadId: string,
      epoch: number,
      transport: RuntimeTransport | undefined
    ) {
      const { profileId } = yield* sessions.live(principal, sessionId)
      const batch = yield* fences.transaction(Effect.gen(function*() {
        const fenced = yield* fences.fence(principal, threadId, sessionId, epoch)
        if (fenced.activeAssistantMessageId !== null) {
          // A retried request whose first answer was lost: the batch has no output yet, so it is handed out again.
          const started = yield* producedYet(fenced.activeAssistantMessageId).pipe(Effect.orDie)
          if (!started.produced) {
            return {
              drained: false,
              assistantMessageId: fenced.activeAssistantMessageId,
              messages: yield* messagesOfBatch(fenced.activeAssistantMessageId).pipe(Effect.orDie),
              runtimeSessionId: runtimeSessionIdOf(yield* runtimeSessionOf(threadId).pipe(Effect.orDie))
            } satisfies Batch
          }
          yield* failBatch(sql, fenced.activeAssistantMessageId, "The CLI started a new batch without finishing this one")
        }
        const messages = yield* waitingMessages(threadId).pipe(Effect.orDie)
        if (messages.length === 0) {
          yield* releaseClaim(sql, threadId, null, "")
          return { drained: true } satisfies Batch
        }
        const assistantMessageId = ThreadMessageId.generate()
        yield* sql`
          INSERT INTO thread_messages (id, thread_id, role, status, transport)
          VALUES (${assistantMessageId}, ${threadId}, 'assistant', 'streaming', ${transport ?? null})`
        yield* sql`
          UPDATE thread_messages SET status = 'streaming', batch_message_id = ${assistantMessageId}
          WHERE ${sql.in("id", messages.map((m) => m.messageId))}`
        const streaming = yield* startStreaming({ threadId, assistantMessageId }).pipe(Effect.orDie)
        yield* touchGroup(sql, threadId)
        return { drained: false, assistantMessageId, messages, runtimeSessionId: runtimeSessionIdOf(streaming) } satisfies Batch
      }))
      yield* live.threadChanged(threadId, profileId)
      return batch
    })

    /** Ends the streaming batch: completed, or failed (retryable) with the error the runtime gave. */
    const finishBatch = Effect.fn("Batches.finishBatch")(function*(
      principal: Principal,
      sessionId: AgentSessionId,
      threadId: string,
      epoch: number,
      input: {
        readonly messageId: string
        readonly outcome: BatchOutcome
        readonly runtimeSessionId?: string | undefined
      }
    ) {
      const { machineId, profileId } = yield* sessions.live(principal, sessionId)
      yield* fences.transaction(Effect.gen(function*() {
        const fenced = yield* fences.fence(principal, threadId, sessionId, epoch)
        if (fenced.activeAssistantMessageId !== input.messageId) {
          // A retried request whose first answer was lost: the message already ended the same way.
          const settled = yield* settledStatus({ messageId: input.messageId, threadId }).pipe(Effect.orDie)
          const expected = input.outcome._tag === "Failed" ? "failed" : "completed"
          if (Option.exists(settled, (row) => row.status === expected)) return
          return yield* new InvalidArgument({
            message: `messageId: ${input.messageId} is not the message streaming on thread ${threadId}`
          })
        }
        yield* expireInteractions(sql, threadId)
        if (input.outcome._tag === "Failed") {
          yield* failBatch(sql, input.messageId, input.outcome.errorMessage)
        } else {
          const text = yield* assistantText(sql, input.messageId)
          yield* sql`
            UPDATE thread_messages SET status = 'completed', text = ${text.text}, truncated = ${text.truncated === true},
              completed_at = now()
            WHERE id = ${input.messageId}`
          yield* sql`UPDATE thread_messages SET status = 'completed' WHERE batch_message_id = ${input.messageId}`
        }
        yield* sql`
          UPDATE threads SET processing_state = 'claimed', active_assistant_message_id = NULL,
            status = ${input.outcome._tag === "Failed" ? "failed" : "running"},
            claim_lease_expires_at = ${fences.renewedLease}, last_activity_at = now()
            ${runtimeSessionSet(sql, input.runtimeSessionId, machineId)}
          WHERE id = ${threadId}`
        yield* touchGroup(sql, threadId)
      }))
      yield* live.threadChanged(threadId, profileId)
    })

    return { startBatch, finishBatch } as const
  }),
  dependencies: [LiveEvents.Default, LiveSessions.Default, ClaimFence.Default]
}) {}
