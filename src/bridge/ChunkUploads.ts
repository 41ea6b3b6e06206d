import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Principal } from "../platform/auth/Principal.js"
import { InvalidArgument } from "../../catalog/domain/Errors.js"
import type { AgentSessionId } from "../../catalog/domain/Ids.js"
import type { ChunkUpload } from "../../catalog/bridge/AgentApi.js"
import { LiveEvents } from "../platform/notifications/LiveEvents.js"
import { normalizeChunk } from "../threads/normalizers/normalize.js"
import { ClaimFence } from "./ClaimFence.js"
import { LiveSessions } from "../machines/LiveSessions.js"

/** The upload as the queue takes it: the contract's payload without the claim it is fenced by. */
export type Upload = Pick<typeof ChunkUpload.Type, "messageId" | "chunks" | "runtimeSessionId">

/** The runtime session the CLI named, kept with the machine that holds it (a SET list's tail). */
export const runtimeSessionSet = (sql: SqlClient.SqlClient, runtimeSessionId: string | undefined, machineId: string | null) =>
  runtimeSessionId === undefined ? sql`` : sql`, runtime_session_id = ${runtimeSessionId}, runtime_machine_id = ${machineId}`

/**
 * A batch's output: raw runtime lines stored with their normalized events. This is the bridge's
 * hottest write, so the inserted rows are counted, never decoded.
 */
export class ChunkUploads extends Effect.Service<ChunkUploads>()("trellis/ChunkUploads", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const live = yield* LiveEvents
    const sessions = yield* LiveSessions
    const fences = yield* ClaimFence

    /** Stores raw chunks with their normalized events; a chunk already stored (same message and seq) is skipped. */
    const uploadChunks = Effect.fn("ChunkUploads.uploadChunks")(function*(
      principal: Principal,
      sessionId: AgentSessionId,
      threadId: string,
      epoch: number,
      input: Upload
    ) {
      const { machineId } = yield* sessions.live(principal, sessionId)
      const result = yield* fences.transaction(Effect.gen(function*() {
        const fenced = yield* fences.fence(principal, threadId, sessionId, epoch)
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
        const inserted = rows.length === 0 ? [] : yield* sql`
          INSERT INTO thread_chunks ${sql.insert(rows)} ON CONFLICT (message_id, seq) DO NOTHING RETURNING id::text`
        yield* sql`
          UPDATE threads SET claim_lease_expires_at = ${fences.renewedLease}, last_activity_at = now()
            ${runtimeSessionSet(sql, input.runtimeSessionId, machineId)}
          WHERE id = ${threadId}`
        return { accepted: inserted.length, duplicates: rows.length - inserted.length }
      }))
      if (result.accepted > 0) yield* live.chunksAdded(threadId)
      return result
    })

    return { uploadChunks } as const
  }),
  dependencies: [LiveEvents.Default, LiveSessions.Default, ClaimFence.Default]
}) {}
