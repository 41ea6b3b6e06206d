/**
 * The in-process phase, with the server stopped: the benchmark opens the same database with
 * src/platform/sql/Database.ts's layer (PGlite on the same data dir, or a pg pool configured as the
 * server's), checks what the server stored, then does the same work again at two levels below
 * HTTP: through the services the endpoints call (ThreadClaims and ChunkUploads, with their LISTEN/NOTIFY), and as bare
 * SQL. The embedded database is one process's at a time, hence after the server, not beside it.
 */
import { Effect, Layer, Option, Redacted } from "effect"
import { ApiKeys } from "../../src/platform/auth/ApiKeys.js"
import { ChunkUploads } from "../../src/bridge/ChunkUploads.js"
import { ThreadClaims } from "../../src/bridge/ThreadClaims.js"
import * as Database from "../../src/platform/sql/Database.js"
import { TrellisConfig } from "../../src/platform/TrellisConfig.js"
import { bareClaims, checkStored, refreshSessions, resetClaims, serviceClaims, type ClaimRun, type ClaimSetup } from "./Claims.js"
import { formatCpu } from "./Cpu.js"
import { bareInsertRound, serviceUploadRound, storedChunks, type IngestRound } from "./Ingest.js"
import { notifyFloor, type LatencyRun } from "./Latency.js"
import type { ServerResults, Settings } from "./ServerPhase.js"
import { formatClaims } from "./ServerPhase.js"
import { shortened, type Uploader } from "./Workload.js"

/** Service-level rows are numbered from here, bare ones from twice this: far above anything uploaded over HTTP. */
const LEVEL_SEQ = 100_000_000

export interface Checks {
  /** Chunks the ingest threads hold from the HTTP rounds, and how many were uploaded. */
  readonly storedChunks: { readonly stored: number; readonly uploaded: number }
  /**
   * Per claim setup, after each level: threads at the level's claim_epoch (HTTP 1, service 2,
   * bare 3) held by the session that claimed them.
   */
  readonly claimsStored: Readonly<Record<"http" | "service" | "bare", ReadonlyArray<number>>>
}

export interface InProcessResults {
  readonly ingest: Readonly<Record<"service" | "bare", ReadonlyArray<IngestRound>>>
  readonly floor: LatencyRun
  readonly claims: Readonly<Record<"service" | "bare", ReadonlyArray<ClaimRun>>>
  readonly checks: Checks
}

const layerFor = (options: { readonly home: string; readonly databaseUrl: string | undefined }) =>
  Layer.mergeAll(ThreadClaims.Default, ChunkUploads.Default, ApiKeys.Default).pipe(
    Layer.provide(TrellisConfig.layer()),
    Layer.provideMerge(Database.layer({
      databaseUrl: Option.map(Option.fromNullable(options.databaseUrl), Redacted.make),
      home: options.home,
      command: "npm run bench:bridge"
    }))
  )

const formatRound = (label: string, round: IngestRound): string =>
  `${label} ${round.chunksPerSecond.toFixed(0)} chunks/s, batch p50 ${round.p50Ms.toFixed(1)} ms, p99 ${round.p99Ms.toFixed(1)} ms; ${
    formatCpu(round.cpu)
  }`

export const runInProcess = (
  options: { readonly home: string; readonly databaseUrl: string | undefined; readonly apiKey: string },
  settings: Settings,
  server: ServerResults,
  progress: (line: string) => void
): Promise<InProcessResults> =>
  Effect.runPromise(
    Effect.gen(function*() {
      const { uploaders, perUploader, ingestCli } = server
      const principal = yield* (yield* ApiKeys).authenticate(options.apiKey).pipe(Effect.orDie)
      const httpRounds = server.ingest.rounds.length + (server.ingest.warmup === undefined ? 0 : 1)
      const uploaded = server.ingest.rounds.reduce((n, r) => n + r.chunks, server.ingest.warmup?.chunks ?? 0)
      const stored = yield* storedChunks(uploaders, perUploader * httpRounds)
      const httpClaimsStored = yield* Effect.forEach(server.claims, ({ setup, run }) => checkStored(setup, run, 1))
      progress(`checked: ${stored}/${uploaded} chunks stored; claims held at epoch 1: ${httpClaimsStored.join(", ")}`)

      // Ingest: the same batches and concurrency as over HTTP, a warm-up round first, at each level.
      const warmupUploaders = shortened(uploaders, Math.ceil(settings.warmupChunks / settings.uploaders))
      // The CLI's session has been silent since the server stopped: heartbeat it, as the CLI would.
      yield* refreshSessions([ingestCli.sessionId])
      const levels = {
        service: (list: ReadonlyArray<Uploader>, firstSeq: number) =>
          serviceUploadRound(principal, ingestCli, list, settings.batch, LEVEL_SEQ + firstSeq),
        bare: (list: ReadonlyArray<Uploader>, firstSeq: number) => bareInsertRound(list, settings.batch, 2 * LEVEL_SEQ + firstSeq)
      } as const
      const ingest: Record<"service" | "bare", Array<IngestRound>> = { service: [], bare: [] }
      for (const level of ["service", "bare"] as const) {
        let round = 0
        if (server.ingest.warmup !== undefined) yield* levels[level](warmupUploaders, perUploader * round++)
        for (let r = 1; r <= settings.rounds; r++) {
          const measured = yield* levels[level](uploaders, perUploader * round++)
          ingest[level].push(measured)
          progress(formatRound(`${level === "service" ? "service uploadChunks" : "bare INSERT"} round ${r}/${settings.rounds}:`, measured))
        }
      }

      const floor = yield* notifyFloor(server.latencyUploader, {
        warmup: settings.latencyWarmup,
        count: settings.latencyUploads,
        firstSeq: 2 * LEVEL_SEQ
      })
      progress(`INSERT + NOTIFY → LISTEN: p50 ${floor.frame.p50Ms.toFixed(2)} ms, p99 ${floor.frame.p99Ms.toFixed(2)} ms`)

      // Claims: make the same queues pending again, claim them through the service, again with the bare loop;
      // each level first claims the warm-up queue (not measured), as over HTTP.
      const claims: Record<"service" | "bare", Array<ClaimRun>> = { service: [], bare: [] }
      const claimsStored: Record<"http" | "service" | "bare", Array<number>> = { http: [...httpClaimsStored], service: [], bare: [] }
      for (const [level, epoch] of [["service", 2], ["bare", 3]] as const) {
        const claimAll = (setup: ClaimSetup) =>
          Effect.gen(function*() {
            yield* resetClaims(setup)
            return yield* (level === "service" ? serviceClaims(principal, setup) : bareClaims(setup))
          })
        const label = level === "service" ? "service claim" : "bare UPDATE … SKIP LOCKED"
        if (server.claimWarmup !== undefined) {
          progress(formatClaims(`${label} warm-up (${server.claimWarmup.title}):`, yield* claimAll(server.claimWarmup)))
        }
        for (const { setup } of server.claims) {
          const run = yield* claimAll(setup)
          claims[level].push(run)
          claimsStored[level].push(yield* checkStored(setup, run, epoch))
          progress(formatClaims(`${label} (${setup.title}):`, run))
        }
      }

      return { ingest, floor, claims, checks: { storedChunks: { stored, uploaded }, claimsStored } } satisfies InProcessResults
    }).pipe(Effect.scoped, Effect.provide(layerFor(options)))
  )
