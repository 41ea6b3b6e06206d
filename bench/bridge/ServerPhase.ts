/**
 * Everything measured against the running `trellis serve`: setup through the public surface
 * (CLIs register over the bridge, threads are created with the create_thread tool over MCP,
 * claimed and started over the bridge), then ingest, SSE latency and claims over HTTP.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { Effect, Schema } from "effect"
import { performance } from "node:perf_hooks"
import { ProjectId } from "../../catalog/domain/Ids.js"
import type { McpTarget } from "../task-tools/Mcp.js"
import { bridgeClient, createThreads, registerCli, type BridgeClient, type Cli } from "./Bridge.js"
import { httpClaims, type ClaimRun, type ClaimSetup } from "./Claims.js"
import { formatCpu } from "./Cpu.js"
import { uploadRound, type IngestRound } from "./Ingest.js"
import { sseHeadersDelay, sseLatency, type LatencyRun } from "./Latency.js"
import { INGEST_STREAMS, shortened, streamLines, type StreamLines, type Uploader } from "./Workload.js"

export interface Settings {
  readonly uploaders: number
  readonly batch: number
  /** Chunks per ingest round, all uploaders together. */
  readonly roundChunks: number
  readonly rounds: number
  readonly warmupChunks: number
  readonly latencyUploads: number
  readonly latencyWarmup: number
  readonly clis: number
  readonly claimThreads: number
  /** Threads claimed (not measured) before the measured claims at each level, so the claim path is warm. */
  readonly claimWarmup: number
  readonly pendingStreams: boolean
  readonly seedConcurrency: number
}

export interface ServerResults {
  readonly ingest: { readonly warmup: IngestRound | undefined; readonly rounds: ReadonlyArray<IngestRound> }
  readonly latency: LatencyRun
  /** See Latency.ts's sseHeadersDelay. */
  readonly sseHeadersAfterMs: number | undefined
  readonly claims: ReadonlyArray<{ readonly setup: ClaimSetup; readonly run: ClaimRun }>
  readonly claimWarmup: ClaimSetup | undefined
  /** What the in-process phase needs to replay the same work. */
  readonly ingestCli: Cli
  readonly uploaders: ReadonlyArray<Uploader>
  readonly perUploader: number
  readonly latencyUploader: Uploader
  readonly setupSeconds: number
}

const HEARTBEAT_EVERY = "15 seconds"

/** Claims `threadId` for the CLI and starts its batch: the thread is then streaming, ready for chunks. */
const startStreaming = (client: BridgeClient, cli: Cli, threadId: string, stream: StreamLines) =>
  Effect.gen(function*() {
    const { thread } = yield* client.agent.claim({ payload: { sessionId: cli.sessionId, threadId } }).pipe(Effect.orDie)
    if (thread === null || thread.threadId !== threadId) return yield* Effect.dieMessage(`could not claim ${threadId}`)
    const batch = yield* client.agent.startBatch({
      path: { threadId },
      payload: {
        sessionId: cli.sessionId,
        epoch: thread.epoch,
        ...(stream.source.transport === undefined ? {} : { transport: stream.source.transport })
      }
    }).pipe(Effect.orDie)
    if (batch.drained) return yield* Effect.dieMessage(`${threadId}: no message to answer`)
    return { threadId, messageId: batch.assistantMessageId, epoch: thread.epoch, stream } satisfies Uploader
  })

const formatRound = (label: string, round: IngestRound): string =>
  `${label} ${round.chunks} chunks in ${round.requests} requests, ${round.seconds.toFixed(2)} s: ` +
  `${round.chunksPerSecond.toFixed(0)} chunks/s, request p50 ${round.p50Ms.toFixed(1)} ms, p99 ${round.p99Ms.toFixed(1)} ms; ${
    formatCpu(round.cpu)
  }`

export const formatClaims = (label: string, run: ClaimRun): string =>
  `${label} ${run.claims} claims (${run.requests} requests) in ${run.seconds.toFixed(2)} s: ${run.claimsPerSecond.toFixed(0)} claims/s, ` +
  `request p50 ${run.p50Ms.toFixed(1)} ms, p99 ${run.p99Ms.toFixed(1)} ms; exactly once ${run.exactlyOnce.ok ? "yes" : "NO"}` +
  (run.pendingFrames === undefined ? "" : `; ${run.pendingFrames} pending frames`) +
  (run.cpu === undefined ? "" : `; ${formatCpu(run.cpu)}`)

export const runServerPhase = (
  options: { readonly mcp: McpTarget; readonly apiKey: string; readonly projectId: string; readonly serverPid: number | undefined },
  settings: Settings,
  progress: (line: string) => void
): Promise<ServerResults> =>
  Effect.runPromise(
    Effect.gen(function*() {
      const baseUrl = new URL(options.mcp.url).origin
      const projectId = Schema.decodeUnknownSync(ProjectId)(options.projectId)
      const client = yield* bridgeClient(baseUrl, options.apiKey)
      const setupStarted = performance.now()

      // 1. Set up: the ingest CLI with one streaming thread per uploader (runtimes in turn) and one
      //    for latency; the claiming CLIs with their pending threads.
      const perUploader = Math.ceil(settings.roundChunks / settings.uploaders)
      // Sessions expire after 60 s of silence, and claims after 60 s without renewal: from now until
      // the end of the phase, every CLI registered so far heartbeats and renews its streaming
      // threads' claims, as the CLI does.
      const registered: Array<Cli> = []
      const streaming: Array<{ readonly cli: Cli; readonly uploader: Uploader }> = []
      const register = (name: string) =>
        registerCli(client, projectId, name).pipe(Effect.orDie, Effect.tap((cli) => Effect.sync(() => registered.push(cli))))
      const stream = (cli: Cli, threadId: string, lines: StreamLines) =>
        startStreaming(client, cli, threadId, lines).pipe(Effect.tap((uploader) => Effect.sync(() => streaming.push({ cli, uploader }))))
      const keepAlive = Effect.suspend(() =>
        Effect.zipRight(
          Effect.forEach([...registered], (cli) => client.agent.heartbeat({ payload: { sessionId: cli.sessionId } }), {
            concurrency: 4,
            discard: true
          }),
          Effect.forEach(
            [...streaming],
            ({ cli, uploader }) =>
              client.agent.renew({ path: { threadId: uploader.threadId }, payload: { sessionId: cli.sessionId, epoch: uploader.epoch } }),
            {
              concurrency: 4,
              discard: true
            }
          )
        )
      )
      yield* keepAlive.pipe(Effect.orDie, Effect.delay(HEARTBEAT_EVERY), Effect.forever, Effect.forkScoped)
      const ingestCli = yield* register("bench-ingest")
      const streams = Array.from(
        { length: settings.uploaders },
        (_, i) => streamLines(INGEST_STREAMS[i % INGEST_STREAMS.length] as (typeof INGEST_STREAMS)[number], perUploader)
      )
      const claudeLines = streamLines(
        INGEST_STREAMS[0] as (typeof INGEST_STREAMS)[number],
        Math.max(perUploader, settings.latencyWarmup + settings.latencyUploads)
      )
      const uploaders = yield* Effect.forEach(
        streams,
        (lines) =>
          Effect.flatMap(createThreads(options.mcp, ingestCli, 1, lines.source.cliType, 1), ([threadId]) =>
            stream(ingestCli, threadId ?? "", lines))
      )
      const latencyUploader = yield* Effect.flatMap(
        createThreads(options.mcp, ingestCli, 1, "claude", 1),
        ([threadId]) =>
          stream(ingestCli, threadId ?? "", claudeLines)
      )
      const sseHeadersAfterMs = yield* sseHeadersDelay({ baseUrl, apiKey: options.apiKey, threadId: latencyUploader.threadId })
      progress(
        `ingest: ${uploaders.length} streaming threads (${streams.map((s) => s.name).join(", ")}), ${perUploader} chunks each per round`
      )

      const perCli = Math.ceil(settings.claimThreads / settings.clis)
      const spreadClis = yield* Effect.forEach(
        Array.from({ length: settings.clis }, (_, i) => i),
        (i) => register(`bench-cli-${i + 1}`)
      )
      const spread: ClaimSetup = {
        key: "spread",
        title: `${settings.clis} CLIs × ${perCli} threads, 1 claim in flight each`,
        queues: yield* Effect.forEach(
          spreadClis,
          (cli) =>
            Effect.map(createThreads(options.mcp, cli, perCli, "claude", settings.seedConcurrency), (threadIds) => ({ cli, threadIds }))
        ),
        claimersPerCli: 1
      }
      progress(`claims: ${settings.clis} CLIs with ${perCli} pending threads each`)
      const sharedCli = yield* register("bench-cli-shared")
      const shared: ClaimSetup = {
        key: "shared",
        title: `1 CLI × ${perCli * settings.clis} threads, ${settings.clis} claims in flight`,
        queues: [{
          cli: sharedCli,
          threadIds: yield* createThreads(options.mcp, sharedCli, perCli * settings.clis, "claude", settings.seedConcurrency)
        }],
        claimersPerCli: settings.clis
      }
      const warmupCli = yield* register("bench-cli-warmup")
      const claimWarmup: ClaimSetup | undefined = settings.claimWarmup === 0 ? undefined : {
        key: "warm-up",
        title: `1 CLI × ${settings.claimWarmup} threads, ${settings.clis} claims in flight (not measured)`,
        queues: [{
          cli: warmupCli,
          threadIds: yield* createThreads(options.mcp, warmupCli, settings.claimWarmup, "claude", settings.seedConcurrency)
        }],
        claimersPerCli: settings.clis
      }
      const setupSeconds = (performance.now() - setupStarted) / 1000
      progress(`claims: 1 CLI with ${perCli * settings.clis} pending threads; setup took ${setupSeconds.toFixed(1)} s`)

      // 2. Ingest: a warm-up round, then the measured rounds; chunk numbers continue round to round.
      let round = 0
      const nextRound = () => uploadRound(client, ingestCli, uploaders, settings.batch, perUploader * round++, options.serverPid)
      let warmup: IngestRound | undefined
      if (settings.warmupChunks > 0) {
        const warmupUploaders = shortened(uploaders, Math.ceil(settings.warmupChunks / settings.uploaders))
        warmup = yield* uploadRound(client, ingestCli, warmupUploaders, settings.batch, perUploader * round++, options.serverPid)
        progress(formatRound("ingest warm-up:", warmup))
      }
      const rounds: Array<IngestRound> = []
      for (let r = 1; r <= settings.rounds; r++) {
        const measured = yield* nextRound()
        rounds.push(measured)
        progress(formatRound(`ingest round ${r}/${settings.rounds}:`, measured))
      }

      // 3. Latency: single-chunk uploads with an SSE client on the thread.
      const latency = yield* sseLatency(client, ingestCli, latencyUploader, {
        baseUrl,
        apiKey: options.apiKey,
        warmup: settings.latencyWarmup,
        count: settings.latencyUploads,
        firstSeq: 0
      }, options.serverPid)
      progress(
        `latency: ${latency.samples} uploads: frame p50 ${latency.frame.p50Ms.toFixed(2)} ms, p99 ${latency.frame.p99Ms.toFixed(2)} ms; ` +
          `response p50 ${latency.response.p50Ms.toFixed(2)} ms, p99 ${latency.response.p99Ms.toFixed(2)} ms`
      )

      // 4. Claims: a warm-up queue, the spread setup, then the shared one.
      const httpClaimOptions = { baseUrl, apiKey: options.apiKey, pendingStreams: settings.pendingStreams }
      if (claimWarmup !== undefined) {
        progress(
          formatClaims(`claims warm-up (${claimWarmup.title}):`, yield* httpClaims(claimWarmup, httpClaimOptions, options.serverPid))
        )
      }
      const claims: Array<{ setup: ClaimSetup; run: ClaimRun }> = []
      for (const setup of [spread, shared]) {
        const run = yield* httpClaims(setup, httpClaimOptions, options.serverPid)
        claims.push({ setup, run })
        progress(formatClaims(`claims (${setup.title}):`, run))
      }

      return {
        ingest: { warmup, rounds },
        latency,
        sseHeadersAfterMs,
        claims,
        claimWarmup,
        ingestCli,
        uploaders,
        perUploader,
        latencyUploader,
        setupSeconds
      } satisfies ServerResults
    }).pipe(Effect.scoped, Effect.provide(NodeHttpClient.layerUndici))
  )
