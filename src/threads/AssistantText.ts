import type { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { composeEvents, messageText } from "../../catalog/events/compose.js"
import { NormalizedEvent } from "../../catalog/events/NormalizedEvent.js"

const decodeTextEvents = Schema.decodeUnknown(Schema.Array(Schema.Struct({ event: NormalizedEvent })))

const textEvents = (sql: SqlClient.SqlClient, messageId: string) =>
  sql`
    SELECT normalized_event AS event FROM thread_chunks
    WHERE message_id = ${messageId} AND normalized_event->>'kind' IN ('text', 'metadata')
    ORDER BY seq`.pipe(
    Effect.flatMap(decodeTextEvents),
    Effect.map((rows) => rows.map((row) => row.event)),
    Effect.orDie
  )

/**
 * An assistant message's text as its normalized events compose it. Only text and bundles (which
 * may hold text) can add to it: the rest is not read.
 */
export const assistantText = (sql: SqlClient.SqlClient, messageId: string) => Effect.map(textEvents(sql, messageId), messageText)

/** The same text uncapped, joined as the tool joins it: what "Show all" reads. */
export const wholeAssistantText = (sql: SqlClient.SqlClient, messageId: string) =>
  Effect.map(
    textEvents(sql, messageId),
    (events) => composeEvents(events).parts.flatMap((part) => (part.type === "text" && part.text !== "" ? [part.text] : [])).join("\n\n")
  )
