import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import type { Principal } from "../platform/auth/Principal.js"
import { InvalidArgument, NotFound } from "../../catalog/domain/Errors.js"
import { MESSAGE_PAGE_SIZE } from "../../catalog/bridge/MessagePage.js"
import { wholeAssistantText } from "./AssistantText.js"
import { MessageRow, messageView, withTexts } from "./ThreadMessages.js"
import { ThreadRows } from "./ThreadRows.js"

export interface PageRequest {
  readonly order?: "newest" | "oldest" | undefined
  readonly cursor?: string | undefined
  readonly limit?: number | undefined
}

const columns = (sql: SqlClient.SqlClient) =>
  sql`
  m.id, m.role, m.status, m.content, m.text, m.truncated, m.error_message AS "errorMessage",
  m.sent_by_thread_id AS "sentByThreadId", s.title AS "sentByTitle", m.created_at AS "createdAt"`

/**
 * The whole conversation of a thread in pages, for clients that show all of it: the MCP tool's
 * window (the latest 20, no cursor) is SPEC's contract for agents, and a person scrolls back further.
 * The cursor is a message ID: a page starts past that message, in (created_at, id) order, so a
 * message written meanwhile never shifts a page (an offset would).
 */
export class MessagePages extends Effect.Service<MessagePages>()("trellis/MessagePages", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* ThreadRows

    const Request = Schema.Struct({
      threadId: Schema.String,
      newest: Schema.Boolean,
      cursor: Schema.NullOr(Schema.String),
      limit: Schema.Number
    })
    const pageRows = SqlSchema.findAll({
      Request,
      Result: MessageRow,
      execute: ({ cursor, limit, newest, threadId }) => {
        const past = cursor === null
          ? sql`true`
          : newest
          ? sql`(m.created_at, m.id) < (SELECT created_at, id FROM thread_messages WHERE id = ${cursor})`
          : sql`(m.created_at, m.id) > (SELECT created_at, id FROM thread_messages WHERE id = ${cursor})`
        return sql`
          SELECT ${columns(sql)}
          FROM thread_messages m LEFT JOIN threads s ON s.id = m.sent_by_thread_id
          WHERE m.thread_id = ${threadId} AND ${past}
          ORDER BY m.created_at ${newest ? sql`DESC` : sql`ASC`}, m.id ${newest ? sql`DESC` : sql`ASC`}
          LIMIT ${limit}`
      }
    })

    const oneRow = SqlSchema.findOne({
      Request: Schema.Struct({ threadId: Schema.String, messageId: Schema.String }),
      Result: MessageRow,
      execute: ({ messageId, threadId }) =>
        sql`
          SELECT ${columns(sql)}
          FROM thread_messages m LEFT JOIN threads s ON s.id = m.sent_by_thread_id
          WHERE m.thread_id = ${threadId} AND m.id = ${messageId}`
    })

    /** A readable ordinary thread, else the error its routes answer (404 as `get_thread`'s, 400 for a container). */
    const readableThread = Effect.fn("MessagePages.readableThread")(function*(principal: Principal, threadId: string) {
      const thread = yield* rows.get(principal, threadId)
      if (thread.kind !== "thread") {
        return yield* new InvalidArgument({
          message: `threadId: ${threadId} is a thread group or workflow run, which has no messages; open one of its threads`
        })
      }
      return thread
    })

    /** Up to `limit` messages past the cursor, oldest first in the page, and the cursor of the next page. */
    const page = Effect.fn("MessagePages.page")(function*(principal: Principal, threadId: string, request: PageRequest) {
      yield* readableThread(principal, threadId)
      const limit = request.limit ?? MESSAGE_PAGE_SIZE
      const cursor = request.cursor ?? null
      if (cursor !== null && Option.isNone(yield* oneRow({ threadId, messageId: cursor }).pipe(Effect.orDie))) {
        return yield* new InvalidArgument({
          message: `cursor: ${cursor} is not a message of thread ${threadId}; pass a nextCursor this route returned`
        })
      }
      const newest = request.order !== "oldest"
      // One more than asked says whether a next page exists without counting the thread.
      const found = yield* pageRows({ threadId, newest, cursor, limit: limit + 1 }).pipe(Effect.orDie)
      const taken = found.slice(0, limit)
      const nextCursor = found.length > limit ? taken[taken.length - 1]?.id ?? null : null
      const chronological = newest ? [...taken].reverse() : taken
      const messages = yield* withTexts(sql, chronological)
      return { messages: messages.map(messageView), nextCursor }
    })

    /** One message with its whole text: a user's as sent, an assistant's as its text events compose it. */
    const message = Effect.fn("MessagePages.message")(function*(principal: Principal, threadId: string, messageId: string) {
      yield* readableThread(principal, threadId)
      const found = yield* oneRow({ threadId, messageId }).pipe(Effect.orDie)
      if (Option.isNone(found)) return yield* new NotFound({ message: `messageId: message ${messageId} not found in thread ${threadId}` })
      const row = found.value
      if (row.role === "user") return messageView({ row, text: row.content, truncated: false })
      const composed = yield* wholeAssistantText(sql, row.id)
      // A message stored without events (written before events were kept) has only its stored text.
      return messageView({ row, text: composed === "" ? row.text ?? "" : composed, truncated: false })
    })

    return { page, message } as const
  }),
  dependencies: [ThreadRows.Default]
}) {}
