import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import type { ThreadUsage as UsageSchema } from "../../catalog/Threads.js"

type Usage = typeof UsageSchema.Type

const UsageRow = Schema.Struct({
  threadId: Schema.String,
  costUsd: Schema.NullOr(Schema.NumberFromString),
  contextTokens: Schema.NullOr(Schema.NumberFromString)
})
const decodeRows = Schema.decodeUnknown(Schema.Array(UsageRow))

/**
 * What runs cost, read from their normalized events: the costs a runtime reported (a `metadata`
 * event, alone or in a bundle) summed, and the context window at its latest report. Only a
 * task's few runs are asked for, so it is read when asked rather than kept up to date per chunk.
 */
export class ThreadUsage extends Effect.Service<ThreadUsage>()("trellis/ThreadUsage", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const usageOf = Effect.fn("ThreadUsage.usageOf")(function*(threadIds: ReadonlyArray<string>) {
      const usage = new Map<string, Usage>()
      if (threadIds.length === 0) return usage
      // A bundle is a metadata event whose otherJson is `{"events":[…]}`; any other otherJson is not unpacked.
      const rows = yield* sql`
        WITH events AS (
          SELECT c.thread_id, c.id, e.position, e.value AS event
          FROM thread_chunks c
          CROSS JOIN LATERAL jsonb_array_elements(
            CASE WHEN c.normalized_event->>'kind' = 'metadata' AND left(c.normalized_event->>'otherJson', 10) = '{"events":'
              THEN (c.normalized_event->>'otherJson')::jsonb->'events'
              ELSE jsonb_build_array(c.normalized_event) END
          ) WITH ORDINALITY AS e(value, position)
          WHERE c.thread_id IN ${sql.in(threadIds)}
            AND c.normalized_event->>'kind' IN ('metadata', 'context-window')
        )
        SELECT t.id AS "threadId",
          (SELECT sum((event->>'costUsd')::numeric) FROM events
            WHERE events.thread_id = t.id AND event->>'kind' = 'metadata' AND event ? 'costUsd')::text AS "costUsd",
          (SELECT (event->>'usedTokens')::numeric FROM events
            WHERE events.thread_id = t.id AND event->>'kind' = 'context-window'
            ORDER BY events.id DESC, events.position DESC LIMIT 1)::text AS "contextTokens"
        FROM threads t WHERE t.id IN ${sql.in(threadIds)}`.pipe(Effect.flatMap(decodeRows), Effect.orDie)
      for (const row of rows) usage.set(row.threadId, { costUsd: row.costUsd, contextTokens: row.contextTokens })
      return usage
    })

    return { usageOf } as const
  })
}) {}
