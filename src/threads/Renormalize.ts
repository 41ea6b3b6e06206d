import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { CliType, RuntimeTransport } from "../../catalog/domain/CliType.js"
import { normalizeChunk } from "./normalizers/normalize.js"

/**
 * Recomputes stored normalized events from the raw chunks after a normalizer upgrade: in id
 * order, one batch per transaction, writing only the chunks whose event changed. Safe to stop and
 * rerun; concurrent uploads are normalized by the new code already.
 */

const ChunkRow = Schema.Struct({
  id: Schema.String,
  type: Schema.String,
  data: Schema.String,
  event: Schema.Unknown,
  cliType: Schema.NullOr(CliType),
  transport: Schema.NullOr(RuntimeTransport)
})
const decodeRows = Schema.decodeUnknown(Schema.Array(ChunkRow))
const decodeCount = Schema.decodeUnknown(Schema.Array(Schema.Struct({ total: Schema.Number })))

export interface Progress {
  readonly done: number
  readonly total: number
  readonly changed: number
}

export const renormalize = Effect.fn("Renormalize.run")(function*(options: {
  readonly threadId?: string | undefined
  readonly batchSize: number
  readonly onProgress: (progress: Progress) => Effect.Effect<void>
}) {
  const sql = yield* SqlClient.SqlClient
  const scope = options.threadId === undefined ? sql`true` : sql`c.thread_id = ${options.threadId}`
  const counted = yield* sql`SELECT count(*)::int AS total FROM thread_chunks c WHERE ${scope}`.pipe(Effect.flatMap(decodeCount))
  const total = counted[0]?.total ?? 0
  let cursor = "0"
  let done = 0
  let changed = 0
  while (true) {
    const rows = yield* sql`
      SELECT c.id::text AS id, c.type, c.data, c.normalized_event AS event, t.cli_type AS "cliType", m.transport
      FROM thread_chunks c JOIN threads t ON t.id = c.thread_id JOIN thread_messages m ON m.id = c.message_id
      WHERE ${scope} AND c.id > ${cursor}::bigint ORDER BY c.id LIMIT ${options.batchSize}`.pipe(Effect.flatMap(decodeRows))
    const last = rows.at(-1)
    if (last === undefined) break
    const updates = rows.flatMap((row) => {
      const event = JSON.stringify(
        normalizeChunk({ cliType: row.cliType ?? "other", transport: row.transport ?? undefined }, row.type, row.data)
      )
      return event === JSON.stringify(row.event) ? [] : [{ id: row.id, event }]
    })
    if (updates.length > 0) {
      yield* sql.withTransaction(
        Effect.forEach(updates, (u) => sql`UPDATE thread_chunks SET normalized_event = ${u.event}::jsonb WHERE id = ${u.id}::bigint`, {
          discard: true
        })
      )
    }
    cursor = last.id
    done += rows.length
    changed += updates.length
    yield* options.onProgress({ done, total, changed })
  }
  return { done, total, changed } satisfies Progress
})
