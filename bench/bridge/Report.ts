/** The printed report: each figure beside its same-run baselines, the ratios, and the issue's targets (PASS/MISS). */
import { median } from "../mcp-overhead/Report.js"
import type { ClaimRun } from "./Claims.js"
import { othersPercent, type CpuShare } from "./Cpu.js"
import type { IngestRound } from "./Ingest.js"
import type { InProcessResults } from "./InProcess.js"
import { HEADERS_WAIT_MS } from "./Latency.js"
import type { ServerResults, Settings } from "./ServerPhase.js"

/** The issue's targets. */
const INGEST_CHUNKS_PER_SECOND = 10_000
const SSE_P99_MS = 50
const CLAIMS_PER_SECOND = 1_000

export interface RunDescription {
  readonly database: string
  readonly postgres: boolean
  readonly cores: number
}

const count = (value: number): string => Math.round(value).toLocaleString("en-US")
const ms = (value: number): string => value.toFixed(2)
const ratio = (a: number, b: number): string => (a / b).toFixed(2)
const verdict = (pass: boolean): string => (pass ? "PASS" : "MISS")

const row = (cells: ReadonlyArray<string>): string => cells.map((cell, i) => (i === 0 ? cell.padEnd(36) : cell.padStart(10))).join(" ")

const mean = (values: ReadonlyArray<number>) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length)

/** Mean CPU shares over measurements, in percent of one core (others: everything else on the machine). */
const cpuCells = (shares: ReadonlyArray<CpuShare | undefined>): string => {
  const known = shares.filter((s): s is CpuShare => s !== undefined)
  if (known.length === 0) return ""
  const part = (name: string, values: ReadonlyArray<number | undefined>) => {
    const present = values.filter((v): v is number => v !== undefined)
    return present.length === 0 ? [] : [`${name} ${mean(present).toFixed(0)}%`]
  }
  return [
    ...part("server", known.map((s) => s.serverPercent)),
    ...part("postgres", known.map((s) => s.postgresPercent)),
    ...part("bench", known.map((s) => s.benchPercent)),
    ...part("others", known.map(othersPercent))
  ].join(", ")
}

/** Server CPU time per operation: steadier than the wall-clock figures when the machine is shared. */
const serverCost = (shares: ReadonlyArray<CpuShare | undefined>, operations: number, what: string): string => {
  const seconds = shares.map((s) => s?.serverSeconds)
  if (operations === 0 || seconds.some((v) => v === undefined)) return ""
  const micros = (1e6 * seconds.reduce((a: number, b) => a + (b ?? 0), 0)) / operations
  return `server CPU ${micros >= 1000 ? `${(micros / 1000).toFixed(2)} ms` : `${micros.toFixed(0)} µs`} per ${what}`
}

const ingestSummary = (rounds: ReadonlyArray<IngestRound>) => ({
  chunksPerSecond: median(rounds.map((r) => r.chunksPerSecond)),
  p50Ms: median(rounds.map((r) => r.p50Ms)),
  p99Ms: median(rounds.map((r) => r.p99Ms)),
  cpu: cpuCells(rounds.map((r) => r.cpu)),
  chunks: rounds.reduce((n, r) => n + r.chunks, 0),
  requests: rounds.reduce((n, r) => n + r.requests, 0),
  shares: rounds.map((r) => r.cpu)
})

const exactly = (run: ClaimRun): string =>
  run.exactlyOnce.ok
    ? `${run.exactlyOnce.once}/${run.exactlyOnce.expected}`
    : `NO: ${run.exactlyOnce.once}/${run.exactlyOnce.expected} (${run.exactlyOnce.repeated} repeated, ${run.exactlyOnce.missing} missing, ${run.exactlyOnce.foreign} foreign)`

const claimRow = (label: string, run: ClaimRun): string =>
  `${row([label, count(run.claimsPerSecond), ms(run.p50Ms), ms(run.p99Ms), exactly(run)])}   ${cpuCells([run.cpu])}`

export const report = (run: RunDescription, settings: Settings, server: ServerResults, inProcess: InProcessResults): string => {
  const http = ingestSummary(server.ingest.rounds)
  const service = ingestSummary(inProcess.ingest.service)
  const bare = ingestSummary(inProcess.ingest.bare)
  const lines = server.uploaders.reduce((n, u) => n + u.stream.lines.length, 0)
  const bytes = server.uploaders.reduce((n, u) => n + u.stream.averageBytes * u.stream.lines.length, 0) / lines
  const mbPerSecond = (chunksPerSecond: number) => ((chunksPerSecond * bytes) / 1e6).toFixed(1)
  const ingestRow = (label: string, s: ReturnType<typeof ingestSummary>) =>
    `${row([label, count(s.chunksPerSecond), mbPerSecond(s.chunksPerSecond), ms(s.p50Ms), ms(s.p99Ms)])}   ${s.cpu}`
  const { latency, claims } = server
  const { floor, checks } = inProcess
  const target = (label: string, figure: string, pass: boolean) =>
    `${label.padEnd(52)} ${figure.padStart(12)}   ${run.postgres ? verdict(pass) : "(not applicable: embedded PGlite)"}`
  const runtimes = [...new Set(server.uploaders.map((u) => u.stream.name))].join(", ")

  return [
    `CLI bridge over HTTP (trellis serve, a child process) vs the same work in process, on ${run.database}`,
    `machine: ${run.cores} cores shared by the server, PostgreSQL and this process (the load generator); node ${process.version}`,
    ...(run.postgres
      ? []
      : ["NOTE: no BENCH_DATABASE_URL, so the embedded database (PGlite, one connection): the figures are not comparable to PostgreSQL's"]),
    `levels:  HTTP = the endpoint, from here over loopback; service = the bridge service method it calls, in this process (no HTTP);`,
    `         bare = only the core statement (INSERT of the same rows / the claim's UPDATE … SKIP LOCKED), no normalization,`,
    `         fencing, session check or NOTIFY; in process through a pool configured as the server's, after the server stopped`,
    `cpu:     % of one core during the measurement: the server process, every postgres process, this process, everything else`,
    `setup:   ${server.setupSeconds.toFixed(1)} s through the bridge and create_thread over MCP (not measured)`,
    "",
    `ingest:  ${settings.uploaders} uploaders on ${settings.uploaders} streaming threads (${runtimes}; the largest fixtures, ` +
    `avg ${count(bytes)} bytes per chunk), ${settings.batch} chunks per request, one request in flight per uploader;`,
    `         ${settings.rounds} round(s) of ${count(server.perUploader * settings.uploaders)} chunks after ${
      count(server.ingest.warmup?.chunks ?? 0)
    } warm-up, median`,
    row(["", "chunks/s", "MB/s", "batch p50", "batch p99"]),
    ingestRow("HTTP uploadChunks", http),
    ingestRow("service ChunkUploads.uploadChunks", service),
    ingestRow("bare INSERT of the same rows", bare),
    `         HTTP / bare ${ratio(http.chunksPerSecond, bare.chunksPerSecond)}, service / bare ${
      ratio(service.chunksPerSecond, bare.chunksPerSecond)
    }, ` +
    `HTTP / service ${ratio(http.chunksPerSecond, service.chunksPerSecond)}; ` +
    `${serverCost(http.shares, http.chunks, "chunk")} (${serverCost(http.shares, http.requests, "request").replace("server CPU ", "")})`,
    "",
    `latency: ${latency.samples} single-chunk uploads (Claude lines), one at a time after ${settings.latencyWarmup} warm-up, ` +
    `an SSE client on the thread's events; from the upload request's start`,
    row(["", "p50 ms", "p99 ms", "max ms"]),
    row(["to the SSE frame", ms(latency.frame.p50Ms), ms(latency.frame.p99Ms), ms(latency.frame.maxMs)]),
    row(["to the upload's response", ms(latency.response.p50Ms), ms(latency.response.p99Ms)]),
    row(["floor: INSERT + NOTIFY → LISTEN", ms(floor.frame.p50Ms), ms(floor.frame.p99Ms), ms(floor.frame.maxMs)]),
    `         SSE frame / floor: p50 ${ratio(latency.frame.p50Ms, floor.frame.p50Ms)}, p99 ${
      ratio(latency.frame.p99Ms, floor.frame.p99Ms)
    }; ` +
    `${latency.framesBeforeResponse} of ${latency.samples} frames came before their upload's response`,
    `         cpu: ${cpuCells([latency.cpu])}; ${serverCost([latency.cpu], latency.samples, "upload")}`,
    server.sseHeadersAfterMs === undefined
      ? `         on a thread with no event yet, the SSE response headers had not come ${
        count(HEADERS_WAIT_MS)
      } ms after the GET (held back until a first frame)`
      : `         on a thread with no event yet, the SSE response headers came ${ms(server.sseHeadersAfterMs)} ms after the GET`,
    "",
    `claims:  claim requests until every queue is empty (the final empty answers included in the latencies); each claim returns`,
    `         one thread, tallied by thread ID. HTTP: ` +
    (settings.pendingStreams ? "each CLI holds its pending-threads SSE stream open, as the CLI does" : "no pending-threads streams") +
    `; in process the queues are made pending again`,
    row(["", "claims/s", "req p50", "req p99", "exactly once"]),
    ...claims.flatMap(({ setup, run: httpRun }, i) => {
      const serviceRun = inProcess.claims.service[i]
      const bareRun = inProcess.claims.bare[i]
      if (serviceRun === undefined || bareRun === undefined) return []
      return [
        `  ${setup.key}: ${setup.title}`,
        claimRow("HTTP POST /api/agent/claim", httpRun),
        claimRow("service ThreadClaims.claim", serviceRun),
        claimRow("bare UPDATE … SKIP LOCKED", bareRun),
        `         HTTP / bare ${ratio(httpRun.claimsPerSecond, bareRun.claimsPerSecond)}, service / bare ` +
        `${ratio(serviceRun.claimsPerSecond, bareRun.claimsPerSecond)}, HTTP / service ${
          ratio(httpRun.claimsPerSecond, serviceRun.claimsPerSecond)
        }; ` +
        `${serverCost([httpRun.cpu], httpRun.requests, "HTTP request")}` +
        (httpRun.pendingFrames === undefined ? "" : `; ${count(httpRun.pendingFrames)} pending frames sent to the CLIs`)
      ]
    }),
    "",
    `checks:  ${checks.storedChunks.stored}/${checks.storedChunks.uploaded} chunks uploaded over HTTP are stored; threads held by the session ` +
    `that claimed them, at the level's claim_epoch (per setup): HTTP ${checks.claimsStored.http.join("+")}, ` +
    `service ${checks.claimsStored.service.join("+")}, bare ${checks.claimsStored.bare.join("+")}`,
    "",
    "targets (the issue's, on PostgreSQL):",
    target(
      `ingest ≥ ${count(INGEST_CHUNKS_PER_SECOND)} chunks/s, ${settings.batch} per request`,
      `${count(http.chunksPerSecond)}/s`,
      http.chunksPerSecond >= INGEST_CHUNKS_PER_SECOND
    ),
    target(`upload → SSE client p99 < ${SSE_P99_MS} ms`, `${ms(latency.frame.p99Ms)} ms`, latency.frame.p99Ms < SSE_P99_MS),
    ...claims.map(({ setup, run: claimRun }) =>
      target(
        `claims ≥ ${count(CLAIMS_PER_SECOND)}/s, exactly once: ${setup.key}`,
        `${count(claimRun.claimsPerSecond)}/s`,
        claimRun.claimsPerSecond >= CLAIMS_PER_SECOND && claimRun.exactlyOnce.ok
      )
    )
  ].join("\n")
}
