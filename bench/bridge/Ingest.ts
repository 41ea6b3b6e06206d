/**
 * Chunk ingest: uploaders on different threads, each sending its batches one request after
 * another, all uploaders at once. Over HTTP (POST /api/agent/threads/:id/chunks: session check,
 * fenced transaction, normalization, INSERT, lease UPDATE, NOTIFY), and as the bare INSERT of the
 * same rows through a pool configured as the server's (no HTTP, no normalization, no fencing).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { performance } from "node:perf_hooks"
import type { Principal } from "../../src/platform/auth/Principal.js"
import { ChunkUploads } from "../../src/bridge/ChunkUploads.js"
import type { BridgeClient, Cli } from "./Bridge.js"
import { startCpu, type CpuShare } from "./Cpu.js"
import { percentile, rowBatches, uploadBatches, type ChunkRow, type Uploader, type UploadChunk } from "./Workload.js"

export interface IngestRound {
  readonly chunks: number
  readonly requests: number
  readonly seconds: number
  readonly chunksPerSecond: number
  /** Per request (one batch). */
  readonly p50Ms: number
  readonly p99Ms: number
  readonly cpu: CpuShare
}

/** Runs every uploader's batches (one request in flight per uploader) and times the whole. */
const timed = <E, R>(
  batchesPerUploader: ReadonlyArray<ReadonlyArray<ReadonlyArray<unknown>>>,
  send: (uploader: number, batch: ReadonlyArray<unknown>) => Effect.Effect<void, E, R>,
  serverPid: number | undefined
) =>
  Effect.gen(function*() {
    const latencies: Array<number> = []
    const cpu = startCpu(serverPid)
    const started = performance.now()
    yield* Effect.forEach(
      batchesPerUploader,
      (batches, uploader) =>
        Effect.forEach(batches, (batch) =>
          Effect.suspend(() => {
            const sent = performance.now()
            return Effect.tap(send(uploader, batch), () => Effect.sync(() => latencies.push(performance.now() - sent)))
          }), { discard: true }),
      { concurrency: "unbounded", discard: true }
    )
    const seconds = (performance.now() - started) / 1000
    const chunks = batchesPerUploader.reduce((total, batches) => total + batches.reduce((n, batch) => n + batch.length, 0), 0)
    return {
      chunks,
      requests: latencies.length,
      seconds,
      chunksPerSecond: chunks / seconds,
      p50Ms: percentile(latencies, 0.5),
      p99Ms: percentile(latencies, 0.99),
      cpu: cpu()
    } satisfies IngestRound
  })

/** One round over HTTP: every uploader uploads its lines numbered from `firstSeq`. */
export const uploadRound = (
  client: BridgeClient,
  cli: Cli,
  uploaders: ReadonlyArray<Uploader>,
  batch: number,
  firstSeq: number,
  serverPid: number | undefined
) => {
  const batches = uploaders.map((uploader) => uploadBatches(uploader, batch, firstSeq))
  return timed(batches, (index, chunks) => {
    const uploader = uploaders[index] as Uploader
    const sent = chunks as ReadonlyArray<UploadChunk>
    return client.agent.uploadChunks({
      path: { threadId: uploader.threadId },
      payload: { sessionId: cli.sessionId, epoch: uploader.epoch, messageId: uploader.messageId, chunks: sent }
    }).pipe(
      Effect.orDie,
      Effect.flatMap((result) =>
        result.accepted === sent.length && result.duplicates === 0
          ? Effect.void
          : Effect.dieMessage(`upload to ${uploader.threadId}: ${JSON.stringify(result)} for ${sent.length} new chunks`)
      )
    )
  }, serverPid)
}

/** One round through the service the endpoint calls (ChunkUploads.uploadChunks), in process: no HTTP. */
export const serviceUploadRound = (principal: Principal, cli: Cli, uploaders: ReadonlyArray<Uploader>, batch: number, firstSeq: number) =>
  Effect.gen(function*() {
    const uploads = yield* ChunkUploads
    const batches = uploaders.map((uploader) => uploadBatches(uploader, batch, firstSeq))
    return yield* timed(batches, (index, chunks) => {
      const uploader = uploaders[index] as Uploader
      const sent = chunks as ReadonlyArray<UploadChunk>
      return uploads.uploadChunks(principal, cli.sessionId, uploader.threadId, uploader.epoch, {
        messageId: uploader.messageId,
        chunks: sent
      }).pipe(
        Effect.orDie,
        Effect.flatMap((result) =>
          result.accepted === sent.length
            ? Effect.void
            : Effect.dieMessage(`service upload stored ${result.accepted} of ${sent.length} chunks`)
        )
      )
    }, undefined)
  })

/**
 * One round of the baseline: the same rows (normalized beforehand, outside the timing) inserted
 * with the statement ChunkUploads.uploadChunks issues, one autocommitted INSERT per batch.
 */
export const bareInsertRound = (uploaders: ReadonlyArray<Uploader>, batch: number, firstSeq: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const batches = uploaders.map((uploader) => rowBatches(uploader, batch, firstSeq))
    return yield* timed(batches, (_, rows) =>
      sql<{ id: string }>`
        INSERT INTO thread_chunks ${
        sql.insert(rows as ReadonlyArray<ChunkRow>)
      } ON CONFLICT (message_id, seq) DO NOTHING RETURNING id::text`.pipe(
        Effect.orDie,
        Effect.flatMap((inserted) =>
          inserted.length === rows.length ? Effect.void : Effect.dieMessage(`bare INSERT stored ${inserted.length} of ${rows.length} rows`)
        )
      ), undefined)
  })

/** How many chunks below `seqLimit` (the HTTP rounds' range) the uploaders' messages hold. */
export const storedChunks = (uploaders: ReadonlyArray<Uploader>, seqLimit: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ n: number }>`
      SELECT count(*)::int AS n FROM thread_chunks
      WHERE ${sql.in("message_id", uploaders.map((u) => u.messageId))} AND seq < ${seqLimit}`
    return rows[0]?.n ?? 0
  })
