import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import type { Principal } from "../platform/auth/Principal.js"
import { LiveEvents } from "../platform/notifications/LiveEvents.js"
import { Conflict, Forbidden, InvalidArgument } from "../../catalog/domain/Errors.js"
import { ThreadMessageId } from "../../catalog/domain/Ids.js"
import { capText, MessageRole, StoredMessageStatus, ThreadStatus } from "../../catalog/domain/Thread.js"
import type { SendThreadMessage } from "../../catalog/Threads.js"
import type * as Tool from "../../catalog/Tool.js"
import { assistantText } from "./AssistantText.js"
import { touchGroup } from "./GroupActivity.js"
import { ThreadRows } from "./ThreadRows.js"

export const MessageRow = Schema.Struct({
  id: Schema.String,
  role: MessageRole,
  status: StoredMessageStatus,
  content: Schema.String,
  text: Schema.NullOr(Schema.String),
  truncated: Schema.Boolean,
  errorMessage: Schema.NullOr(Schema.String),
  sentByThreadId: Schema.NullOr(Schema.String),
  sentByTitle: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf
})
export type MessageRow = typeof MessageRow.Type

export type SendMessageInput = Tool.InputOf<typeof SendThreadMessage>

const slashCommandRule = "runtimeCommand: content must be the whole slash command and start with /"

/** A runtime command is sent as the whole slash command; anything else is refused before a thread is read. */
export const requireSlashCommand = (input: { readonly content: string; readonly runtimeCommand: boolean }) =>
  input.runtimeCommand && !input.content.startsWith("/") ? new InvalidArgument({ message: slashCommandRule }) : Effect.void

/**
 * Each row with the text a reader sees: a user message capped as the tool caps it, an assistant's
 * stored text, or (still streaming) what its text events have composed so far.
 */
export const withTexts = (sql: SqlClient.SqlClient, rows: ReadonlyArray<MessageRow>) =>
  Effect.forEach(rows, (row) => {
    if (row.role === "user") return Effect.succeed({ row, ...capText(row.content) })
    if (row.text !== null) return Effect.succeed({ row, text: row.text, truncated: row.truncated })
    return Effect.map(assistantText(sql, row.id), (derived) => ({ row, text: derived.text, truncated: derived.truncated === true }))
  })

/** A message as the tool and the client routes show it. */
export const messageView = (
  { row, text, truncated }: { readonly row: MessageRow; readonly text: string; readonly truncated: boolean }
) => ({
  messageId: row.id,
  role: row.role,
  status: row.status,
  createdAt: row.createdAt.toISOString(),
  text,
  ...(truncated ? { truncated: true as const } : {}),
  ...(row.sentByThreadId === null ? {} : { sentBy: { threadId: row.sentByThreadId, title: row.sentByTitle ?? "" } }),
  ...(row.errorMessage === null ? {} : { errorMessage: row.errorMessage })
})

/** A thread's conversation: reading its latest messages, sending one, and retrying a failed run. */
export class ThreadMessages extends Effect.Service<ThreadMessages>()("trellis/ThreadMessages", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* ThreadRows
    const live = yield* LiveEvents

    const latestMessages = SqlSchema.findAll({
      Request: Schema.Struct({ threadId: Schema.String, limit: Schema.Number }),
      Result: MessageRow,
      execute: ({ limit, threadId }) =>
        sql`
          SELECT m.id, m.role, m.status, m.content, m.text, m.truncated, m.error_message AS "errorMessage",
            m.sent_by_thread_id AS "sentByThreadId", s.title AS "sentByTitle", m.created_at AS "createdAt"
          FROM thread_messages m LEFT JOIN threads s ON s.id = m.sent_by_thread_id
          WHERE m.thread_id = ${threadId}
          ORDER BY m.created_at DESC, m.id DESC LIMIT ${limit}`
    })

    /** The newest `limit` messages, oldest first, with assistant text derived from normalized text events. */
    const listMessages = Effect.fn("ThreadMessages.listMessages")(function*(principal: Principal, threadId: string, limit: number) {
      const thread = yield* rows.findReadable(principal, threadId)
      if (thread === undefined) return []
      if (thread.kind !== "thread") {
        return yield* new InvalidArgument({
          message: `threadId: ${threadId} is a thread ${
            thread.kind === "group" ? "group" : "workflow run"
          }; list its members with list_threads`
        })
      }
      const latest = yield* latestMessages({ threadId, limit }).pipe(Effect.orDie)
      return yield* withTexts(sql, [...latest].reverse())
    })

    const queueMessage = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ status: ThreadStatus }),
      execute: (threadId) =>
        sql`
          UPDATE threads SET has_pending_user_messages = true, last_activity_at = now(),
            processing_state = CASE WHEN processing_state = 'idle' THEN 'pending' ELSE processing_state END,
            status = CASE WHEN processing_state = 'idle' THEN 'pending' ELSE status END
          WHERE id = ${threadId} RETURNING status`
    })

    /** SPEC's `send_thread_message` rules: own threads only, same project, never to a container. */
    const send = Effect.fn("ThreadMessages.send")(function*(principal: Principal, input: SendMessageInput) {
      yield* requireSlashCommand(input)
      const target = yield* rows.findOwn(principal, input.threadId, "threadId")
      if (target.kind !== "thread") {
        return yield* new InvalidArgument({
          message: `threadId: ${target.id} is a thread group or workflow run, which cannot receive messages`
        })
      }
      if (input.sourceThreadId !== undefined) {
        const source = yield* rows.findOwn(principal, input.sourceThreadId, "sourceThreadId")
        if (source.kind !== "thread") {
          return yield* new InvalidArgument({
            message: `sourceThreadId: ${source.id} is a thread group or workflow run, which cannot send messages`
          })
        }
        if (source.projectId !== target.projectId) {
          return yield* new Forbidden({ message: "sourceThreadId: must be in the same project as threadId" })
        }
      }
      const messageId = ThreadMessageId.generate()
      const updated = yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`
          INSERT INTO thread_messages (id, thread_id, role, status, content, runtime_command, sent_by_thread_id)
          VALUES (${messageId}, ${target.id}, 'user', 'pending', ${input.content}, ${input.runtimeCommand},
            ${input.sourceThreadId ?? null})`
        // An idle thread becomes pending; a claimed one picks the message up on its next batch.
        const queued = yield* queueMessage(target.id).pipe(Effect.orDie)
        yield* touchGroup(sql, target.id)
        return queued
      })).pipe(Effect.catchTag("SqlError", Effect.die))
      yield* live.threadChanged(target.id, target.profileId)
      return {
        messageId,
        threadId: target.id,
        status: Option.match(updated, { onNone: () => "pending" as const, onSome: (row) => row.status }),
        hasPendingUserMessages: true
      } satisfies Tool.OutputOf<typeof SendThreadMessage>
    })

    const latestAnswer = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ id: Schema.String, status: StoredMessageStatus }),
      execute: (threadId) =>
        sql`
          SELECT id, status FROM thread_messages WHERE thread_id = ${threadId} AND role = 'assistant'
          ORDER BY created_at DESC, id DESC LIMIT 1 FOR UPDATE`
    })

    /** Requeues the failed batch: its user messages wait again and the failed answer is removed. */
    const retry = Effect.fn("ThreadMessages.retry")(function*(principal: Principal, threadId: string) {
      const thread = yield* rows.findOwn(principal, threadId, "threadId")
      if (thread.kind !== "thread") return yield* new InvalidArgument({ message: `threadId: ${threadId} is not an ordinary thread` })
      yield* sql.withTransaction(Effect.gen(function*() {
        const latest = Option.getOrUndefined(yield* latestAnswer(threadId).pipe(Effect.orDie))
        if (latest === undefined || latest.status !== "failed") {
          return yield* new Conflict({ message: `threadId: the latest run of thread ${threadId} did not fail; nothing to retry` })
        }
        yield* sql`
          UPDATE thread_messages SET status = 'pending', batch_message_id = NULL WHERE batch_message_id = ${latest.id}`
        yield* sql`DELETE FROM thread_messages WHERE id = ${latest.id}`
        yield* sql`
          UPDATE threads SET has_pending_user_messages = true, last_activity_at = now(),
            processing_state = CASE WHEN processing_state = 'idle' THEN 'pending' ELSE processing_state END,
            status = CASE WHEN processing_state = 'idle' THEN 'pending' ELSE 'running' END
          WHERE id = ${threadId}`
      })).pipe(Effect.catchTag("SqlError", Effect.die))
      yield* live.threadChanged(threadId, thread.profileId)
      return yield* rows.get(principal, threadId)
    })

    return { listMessages, send, retry } as const
  }),
  dependencies: [ThreadRows.Default, LiveEvents.Default]
}) {}
