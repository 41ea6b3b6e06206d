/**
 * CLI bridge benchmark: against a real `trellis serve` on a fresh database, measures chunk ingest
 * (batched uploads of real runtime lines, several uploaders), upload-to-SSE latency, and claims by
 * competing CLI sessions with an exactly-once tally; then, with the server stopped, the bare SQL
 * of the same work on the same database (INSERT of the same rows, INSERT + NOTIFY → LISTEN, an
 * UPDATE … SKIP LOCKED loop), and prints ratios and the targets.
 * PostgreSQL with BENCH_DATABASE_URL (a fresh database is created there and dropped at the end);
 * without it, the embedded PGlite, which the report says is not comparable.
 * Progress goes to stderr, the report to stdout. A MISS is reported, not an error.
 */
import { mkdtemp, rm } from "node:fs/promises"
import { cpus, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { MAX_CHUNKS_PER_UPLOAD } from "../../catalog/bridge/AgentApi.js"
import { intEnv } from "../mcp-overhead/ChildProcess.js"
import { createDatabase } from "../task-tools/PgDatabase.js"
import { readCredentials, startServer, targetOf } from "../task-tools/Server.js"
import { runInProcess } from "./InProcess.js"
import { findServerPid } from "./Cpu.js"
import { report } from "./Report.js"
import { runServerPhase, type Settings } from "./ServerPhase.js"
import { makeCleanups, progress, runBenchmark } from "../BenchmarkRun.js"

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url))

const readSettings = () => {
  const settings: Settings = {
    uploaders: intEnv("BRIDGE_UPLOADERS", 8, 1),
    batch: intEnv("BRIDGE_BATCH", 200, 1),
    roundChunks: intEnv("BRIDGE_CHUNKS", 40_000, 1),
    rounds: intEnv("BRIDGE_ROUNDS", 3, 1),
    warmupChunks: intEnv("BRIDGE_WARMUP_CHUNKS", 10_000, 0),
    latencyUploads: intEnv("BRIDGE_LATENCY_UPLOADS", 500, 1),
    latencyWarmup: intEnv("BRIDGE_LATENCY_WARMUP", 50, 1),
    clis: intEnv("BRIDGE_CLIS", 20, 1),
    claimThreads: intEnv("BRIDGE_CLAIM_THREADS", 1_000, 1),
    claimWarmup: intEnv("BRIDGE_CLAIM_WARMUP", 100, 0),
    pendingStreams: intEnv("BRIDGE_PENDING_STREAMS", 1, 0) !== 0,
    seedConcurrency: intEnv("BRIDGE_SEED_CONCURRENCY", 8, 1)
  }
  if (settings.batch > MAX_CHUNKS_PER_UPLOAD) throw new Error(`BRIDGE_BATCH must be ≤ ${MAX_CHUNKS_PER_UPLOAD} (the upload limit)`)
  return {
    settings,
    /** A PostgreSQL server to create the run's database on; none: the embedded database. */
    databaseServerUrl: process.env["BENCH_DATABASE_URL"] || undefined,
    /** Keep the home directory and the database afterwards, to inspect them. */
    keep: process.env["BENCH_KEEP"] === "1"
  }
}

const cleanups = makeCleanups()

const describeDatabase = (serverUrl: string | undefined, name: string | undefined): string => {
  if (serverUrl === undefined) return "the embedded database (PGlite, in the server process)"
  const url = new URL(serverUrl)
  return `PostgreSQL at ${url.host} (fresh database ${name ?? "?"}; the server's pg pool and the baseline's: default size 10)`
}

const main = async (): Promise<void> => {
  const { settings, databaseServerUrl, keep } = readSettings()
  if (databaseServerUrl === undefined) {
    progress("BENCH_DATABASE_URL is not set: benchmarking the embedded PGlite; its figures are not comparable to PostgreSQL's")
  }

  const home = await mkdtemp(join(tmpdir(), "trellis-bench-bridge-"))
  cleanups.push(() => keep ? Promise.resolve(progress(`kept ${home}`)) : rm(home, { recursive: true, force: true }))
  const database = databaseServerUrl === undefined ? undefined : await createDatabase(databaseServerUrl)
  if (database !== undefined) {
    progress(`created database ${database.name}`)
    cleanups.push(() => keep ? Promise.resolve(progress(`kept database ${database.name}`)) : database.drop())
  }
  const databaseUrl = database?.url

  // 1. Over HTTP, against trellis serve.
  progress("starting trellis serve…")
  const server = await startServer(REPO_ROOT, home, databaseUrl)
  cleanups.push(server.stop)
  const credentials = await readCredentials(home)
  const serverPid = findServerPid()
  const serverResults = await runServerPhase(
    {
      mcp: targetOf(server, credentials),
      apiKey: credentials.apiKey,
      projectId: credentials.projectId,
      serverPid
    },
    settings,
    progress
  )
  await server.stop()

  // 2. The baselines, in this process, on the same database.
  progress("server stopped; measuring the services and the bare SQL in process…")
  const inProcess = await runInProcess({ home, databaseUrl, apiKey: credentials.apiKey }, settings, serverResults, progress)

  process.stdout.write(`${
    report(
      {
        database: describeDatabase(databaseServerUrl, database?.name),
        postgres: database !== undefined,
        cores: cpus().length
      },
      settings,
      serverResults,
      inProcess
    )
  }\n`)
}

await runBenchmark(main, cleanups)
