import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { assistantText } from "../threads/AssistantText.js"
import { touchGroup } from "../threads/GroupActivity.js"

/**
 * How a claim and its batch end, statement by statement, for the queue modules to run inside
 * their own (fenced) transactions: nothing here checks who may do it.
 */

/** Whether a user message is waiting: one probe of the partial pending index, never a count. */
const pendingExists = (sql: SqlClient.SqlClient, threadId: string) =>
  sql`EXISTS (SELECT 1 FROM thread_messages WHERE thread_id = ${threadId} AND role = 'user' AND status = 'pending')`

/** Status once nothing streams: failed while the newest assistant answer is a failure. */
const restingStatus = (sql: SqlClient.SqlClient, threadId: string) =>
  sql`CASE WHEN (SELECT status FROM thread_messages WHERE thread_id = ${threadId} AND role = 'assistant'
      ORDER BY created_at DESC, id DESC LIMIT 1) = 'failed' THEN 'failed' ELSE 'idle' END`

/** Ends a streaming batch as failed: the answer keeps what arrived, its user messages become retryable. */
export const failBatch = (sql: SqlClient.SqlClient, assistantMessageId: string, errorMessage: string) =>
  Effect.gen(function*() {
    const text = yield* assistantText(sql, assistantMessageId)
    yield* sql`
      UPDATE thread_messages SET status = 'failed', error_message = ${errorMessage}, text = ${text.text},
        truncated = ${text.truncated === true}, completed_at = now()
      WHERE id = ${assistantMessageId} AND status = 'streaming'`
    yield* sql`UPDATE thread_messages SET status = 'failed' WHERE batch_message_id = ${assistantMessageId} AND status = 'streaming'`
  })

/** Requests nobody answered while the batch ran go with it: the runtime that asked is gone. */
export const expireInteractions = (sql: SqlClient.SqlClient, threadId: string) =>
  Effect.zipRight(
    sql`UPDATE thread_interactions SET status = 'expired' WHERE thread_id = ${threadId} AND status = 'pending'`,
    sql`UPDATE threads SET has_pending_interaction = false WHERE id = ${threadId}`
  )

/** Lets go of a claim, abandoning any batch in flight; the thread is claimable again if work waits. */
export const releaseClaim = (sql: SqlClient.SqlClient, threadId: string, activeAssistantMessageId: string | null, reason: string) =>
  Effect.gen(function*() {
    yield* expireInteractions(sql, threadId)
    if (activeAssistantMessageId !== null) yield* failBatch(sql, activeAssistantMessageId, reason)
    yield* sql`
      UPDATE threads SET claimed_by_session_id = NULL, claimed_at = NULL, claim_lease_expires_at = NULL,
        active_assistant_message_id = NULL,
        has_pending_user_messages = ${pendingExists(sql, threadId)},
        processing_state = CASE WHEN ${pendingExists(sql, threadId)} THEN 'pending' ELSE 'idle' END,
        status = CASE WHEN ${pendingExists(sql, threadId)} THEN 'pending' ELSE ${restingStatus(sql, threadId)} END,
        last_activity_at = now()
      WHERE id = ${threadId}`
    yield* touchGroup(sql, threadId)
  })
