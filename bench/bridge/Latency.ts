/**
 * Upload-to-viewer latency: one SSE client on a thread's events (GET /api/threads/:id/events),
 * single-chunk uploads one at a time, each timed from the start of its upload request to the
 * arrival of its frame. The floor is the database's share of that path: an autocommitted INSERT
 * of the same row and a `pg_notify`, until a LISTEN connection of the same pool settings hears it.
 */
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Deferred, Effect, Stream } from "effect"
import { performance } from "node:perf_hooks"
import { chunkKey, frameChunkKey, openSse, type BridgeClient, type Cli } from "./Bridge.js"
import { startCpu, type CpuShare } from "./Cpu.js"
import { percentile, rowBatches, uploadBatches, type Uploader } from "./Workload.js"

export interface LatencyRun {
  readonly samples: number
  /** Upload request start → its SSE frame arrived. */
  readonly frame: { readonly p50Ms: number; readonly p99Ms: number; readonly maxMs: number }
  /** Upload request start → its response arrived (the HTTP round trip alone). */
  readonly response: { readonly p50Ms: number; readonly p99Ms: number }
  /** How many frames came before their upload's response. */
  readonly framesBeforeResponse: number
  readonly cpu: CpuShare | undefined
}

const FRAME_TIMEOUT_MS = 10_000
export const HEADERS_WAIT_MS = 2_000

const summarize = (
  frame: ReadonlyArray<number>,
  response: ReadonlyArray<number>,
  early: number,
  cpu: CpuShare | undefined
): LatencyRun => ({
  samples: frame.length,
  frame: { p50Ms: percentile(frame, 0.5), p99Ms: percentile(frame, 0.99), maxMs: percentile(frame, 1) },
  response: { p50Ms: percentile(response, 0.5), p99Ms: percentile(response, 0.99) },
  framesBeforeResponse: early,
  cpu
})

/** Waiters for chunk frames, by chunk key; a frame nobody waits for is dropped. */
const makeWaiters = () => {
  const waiting = new Map<string, Deferred.Deferred<number>>()
  return {
    expect: (key: string) => Effect.tap(Deferred.make<number>(), (deferred) => Effect.sync(() => waiting.set(key, deferred))),
    arrived: (key: string | undefined, at: number) => {
      if (key === undefined) return
      const deferred = waiting.get(key)
      if (deferred === undefined) return
      waiting.delete(key)
      Deferred.unsafeDone(deferred, Effect.succeed(at))
    }
  }
}

const awaitFrame = (deferred: Deferred.Deferred<number>, what: string, failure: () => Error | undefined = () => undefined) =>
  Deferred.await(deferred).pipe(
    Effect.timeoutFail({
      duration: FRAME_TIMEOUT_MS,
      onTimeout: () =>
        new Error(`no frame for ${what} within ${FRAME_TIMEOUT_MS} ms${failure() === undefined ? "" : `: ${failure()?.message}`}`)
    }),
    Effect.orDie
  )

/**
 * Over HTTP: `warmup` uploads (not counted), then `count`, one at a time, each waiting for both
 * its response and its frame before the next starts. Chunks are numbered from `firstSeq`.
 */
export const sseLatency = (
  client: BridgeClient,
  cli: Cli,
  uploader: Uploader,
  options: {
    readonly baseUrl: string
    readonly apiKey: string
    readonly warmup: number
    readonly count: number
    readonly firstSeq: number
  },
  serverPid: number | undefined
) =>
  Effect.gen(function*() {
    const waiters = makeWaiters()
    const stream = yield* Effect.acquireRelease(
      Effect.sync(() =>
        openSse(`${options.baseUrl}/api/threads/${uploader.threadId}/events`, options.apiKey, (frame) =>
          waiters.arrived(frameChunkKey(frame), frame.arrivedAt))
      ),
      (stream) =>
        Effect.sync(stream.close)
    )
    let failure: Error | undefined
    stream.ready.catch((error: unknown) => {
      failure = error instanceof Error ? error : new Error(String(error))
    })
    const chunks = uploadBatches(uploader, 1, options.firstSeq).flat()
    const frames: Array<number> = []
    const responses: Array<number> = []
    let early = 0
    let cpu: (() => CpuShare) | undefined
    for (let i = 0; i < options.warmup + options.count; i++) {
      const chunk = chunks[i % chunks.length]
      if (chunk === undefined) {
        return yield* Effect.dieMessage("no lines to upload")
      }
      const seq = options.firstSeq + i
      if (i === options.warmup) {
        cpu = startCpu(serverPid)
      }
      const arrival = yield* waiters.expect(chunkKey(uploader.messageId, seq))
      const started = performance.now()
      yield* client.agent.uploadChunks({
        path: { threadId: uploader.threadId },
        payload: { sessionId: cli.sessionId, epoch: uploader.epoch, messageId: uploader.messageId, chunks: [{ ...chunk, seq }] }
      }).pipe(Effect.orDie)
      const responded = performance.now()
      const arrivedAt = yield* awaitFrame(arrival, `seq ${seq}`, () =>
        failure)
      if (i < options.warmup) continue
      frames.push(arrivedAt - started)
      responses.push(responded - started)
      if (arrivedAt < responded) early++
    }
    const share = cpu?.()
    if (stream.frameCount() < options.warmup + options.count) return yield* Effect.dieMessage("the SSE stream lost frames")
    return summarize(frames, responses, early, share)
  }).pipe(Effect.scoped)

const FLOOR_CHANNEL = "trellis_bench_latency"

/**
 * How long after the GET a thread's SSE response headers come while the thread has no event to
 * send; undefined when they had not come within HEADERS_WAIT_MS (the server holds them back).
 */
export const sseHeadersDelay = (options: { readonly baseUrl: string; readonly apiKey: string; readonly threadId: string }) =>
  Effect.gen(function*() {
    const opened = performance.now()
    const stream = yield* Effect.acquireRelease(
      Effect.sync(() => openSse(`${options.baseUrl}/api/threads/${options.threadId}/events`, options.apiKey, () => undefined)),
      (stream) => Effect.sync(stream.close)
    )
    // A refusal (not 200) fails the benchmark rather than passing for held-back headers.
    return yield* Effect.promise(() => stream.ready.then((at): number | undefined => at - opened)).pipe(
      Effect.timeoutTo({ duration: HEADERS_WAIT_MS, onTimeout: () => undefined, onSuccess: (ms) => ms })
    )
  }).pipe(Effect.scoped)

/** The floor, in process: INSERT the same rows one at a time, then pg_notify, and wait for LISTEN to hear it. */
export const notifyFloor = (uploader: Uploader, options: { readonly warmup: number; readonly count: number; readonly firstSeq: number }) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const pg = yield* PgClient.PgClient
    const waiters = makeWaiters()
    yield* pg.listen(FLOOR_CHANNEL).pipe(
      Stream.tap((payload) => Effect.sync(() => waiters.arrived(payload, performance.now()))),
      Stream.runDrain,
      Effect.orDie,
      Effect.forkScoped
    )
    // LISTEN is issued once the stream runs: notify until the listener hears it.
    const probe = yield* waiters.expect("probe")
    yield* pg`SELECT pg_notify(${FLOOR_CHANNEL}, 'probe')`.pipe(
      Effect.orDie,
      Effect.zipRight(Effect.sleep("50 millis")),
      Effect.forever,
      Effect.race(Deferred.await(probe)),
      Effect.timeoutFail({ duration: FRAME_TIMEOUT_MS, onTimeout: () => new Error("LISTEN never heard a notification") }),
      Effect.orDie
    )

    const rows = rowBatches(uploader, 1, options.firstSeq).flat()
    const frames: Array<number> = []
    for (let i = 0; i < options.warmup + options.count; i++) {
      const row = rows[i % rows.length]
      if (row === undefined) return yield* Effect.dieMessage("no rows to insert")
      const key = chunkKey(uploader.messageId, options.firstSeq + i)
      const arrival = yield* waiters.expect(key)
      const started = performance.now()
      yield* sql`INSERT INTO thread_chunks ${
        sql.insert({ ...row, seq: options.firstSeq + i })
      } ON CONFLICT (message_id, seq) DO NOTHING RETURNING id::text`.pipe(Effect.orDie)
      yield* pg`SELECT pg_notify(${FLOOR_CHANNEL}, ${key})`.pipe(Effect.orDie)
      const arrivedAt = yield* awaitFrame(arrival, key)
      if (i >= options.warmup) frames.push(arrivedAt - started)
    }
    return summarize(frames, [], 0, undefined)
  }).pipe(Effect.scoped)
