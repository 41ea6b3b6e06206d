/**
 * Live streams benchmark (issue 27 §2): against a real `trellis serve`, rounds of STREAMS_COUNT
 * (1,000) concurrent SSE readers of one thread's events: open them all, wait, upload one chunk,
 * time its arrival at every reader, close them all, wait STREAMS_SETTLE_MS (20 s) and read the
 * server's RSS. Another request is timed during each fan-out. The embedded database by default;
 * with DATABASE_URL (or BENCH_DATABASE_URL), a fresh PostgreSQL database on that server, dropped
 * at the end. Loopback only. Progress goes to stderr, the report to stdout; a MISS is reported, not an error.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { cpus, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { makeCleanups, progress, runBenchmark } from "../BenchmarkRun.js"
import { findServerPid } from "../bridge/Cpu.js"
import { intEnv } from "../mcp-overhead/ChildProcess.js"
import { createDatabase } from "../task-tools/PgDatabase.js"
import { readCredentials, startServer, targetOf } from "../task-tools/Server.js"
import { openReaders, timedGet } from "./Clients.js"
import { report, type Round } from "./Report.js"
import { streamedThread } from "./Thread.js"

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url))

const settings = {
  streams: intEnv("STREAMS_COUNT", 1_000, 1),
  rounds: intEnv("STREAMS_ROUNDS", 4, 1),
  /** How long the open streams sit before the upload (what their timers and reads cost while idle shows here). */
  openWaitMs: intEnv("STREAMS_OPEN_WAIT_MS", 5_000, 0),
  settleMs: intEnv("STREAMS_SETTLE_MS", 20_000, 0),
  connectTimeoutMs: intEnv("STREAMS_CONNECT_TIMEOUT_MS", 30_000, 1_000),
  fanOutTimeoutMs: intEnv("STREAMS_FANOUT_TIMEOUT_MS", 20_000, 1_000)
}

const cleanups = makeCleanups()
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The server's resident set, from /proc (Linux). */
const rssMb = async (pid: number): Promise<number> => {
  const status = await readFile(`/proc/${pid}/status`, "utf8")
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]
  if (kb === undefined) throw new Error(`/proc/${pid}/status has no VmRSS`)
  return Number(kb) / 1024
}

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN

const main = async (): Promise<void> => {
  const serverUrl = process.env["DATABASE_URL"] || process.env["BENCH_DATABASE_URL"] || undefined
  const home = await mkdtemp(join(tmpdir(), "trellis-bench-streams-"))
  cleanups.push(() => rm(home, { recursive: true, force: true }))
  const database = serverUrl === undefined ? undefined : await createDatabase(serverUrl)
  if (database !== undefined) {
    progress(`created database ${database.name}`)
    cleanups.push(database.drop)
  }

  progress("starting trellis serve…")
  const server = await startServer(REPO_ROOT, home, database?.url)
  cleanups.push(server.stop)
  const pid = findServerPid()
  if (pid === undefined) throw new Error("cannot find the trellis serve process (its RSS is read from /proc)")
  const credentials = await readCredentials(home)
  const base = new URL(server.url)
  const thread = await streamedThread(base, credentials.apiKey, credentials.projectId, targetOf(server, credentials))
  cleanups.push(thread.close)
  const eventsPath = `/api/threads/${thread.threadId}/events`
  const otherUrl = new URL(`/api/threads/${thread.threadId}/interactions`, base)

  // The level before: a first event stored and read once, the server's caches warm, then left to settle.
  const first = await thread.upload("The first event, before any round.", settings.fanOutTimeoutMs)
  if (first.status !== 200) throw new Error(`the first upload answered ${first.status}`)
  const warm = await openReaders(base, credentials.apiKey, eventsPath, 10, settings.connectTimeoutMs)
  warm.close()
  const idle: Array<{ status: number; ms: number }> = []
  for (let i = 0; i < 5; i++) idle.push(await timedGet(otherUrl, credentials.apiKey, settings.fanOutTimeoutMs))
  await sleep(settings.settleMs)
  const rssBeforeMb = await rssMb(pid)
  const otherIdle = { status: idle.at(-1)?.status ?? 0, ms: median(idle.map((r) => r.ms)) }
  progress(`before: RSS ${rssBeforeMb.toFixed(0)} MB; another request ${otherIdle.ms.toFixed(0)} ms`)

  const rounds: Array<Round> = []
  for (let r = 1; r <= settings.rounds; r++) {
    const readers = await openReaders(base, credentials.apiKey, eventsPath, settings.streams, settings.connectTimeoutMs)
    progress(`round ${r}: ${readers.opened} opened`)
    await sleep(settings.openWaitMs)
    const rssOpenMb = await rssMb(pid)
    const probe = `Probe of round ${r}`
    // All three at once, each bounded by the fan-out timeout: a round never waits longer than that.
    const [uploaded, other, arrivals] = await Promise.all([
      thread.upload(probe, settings.fanOutTimeoutMs),
      timedGet(otherUrl, credentials.apiKey, settings.fanOutTimeoutMs),
      readers.waitFor(probe, settings.fanOutTimeoutMs)
    ])
    const last = arrivals.length === 0 ? undefined : Math.max(...arrivals)
    readers.close()
    progress(
      `round ${r}: upload ${uploaded.status}, ${arrivals.length}/${readers.opened} reached; closed, waiting ${settings.settleMs / 1000} s`
    )
    await sleep(settings.settleMs)
    const round: Round = {
      opened: readers.opened,
      failures: readers.failures,
      rssOpenMb,
      rssAfterMb: await rssMb(pid),
      reached: arrivals.length,
      fanOutMs: last === undefined ? undefined : last - uploaded.startedAt,
      uploadStatus: uploaded.status,
      other
    }
    rounds.push(round)
    progress(`round ${r}: RSS open ${rssOpenMb.toFixed(0)} MB, after ${round.rssAfterMb.toFixed(0)} MB`)
  }

  process.stdout.write(`${
    report({
      database: database === undefined
        ? "the embedded database (PGlite)"
        : `PostgreSQL at ${new URL(serverUrl ?? "").host} (fresh database ${database.name}, pool size 10)`,
      cores: cpus().length,
      streams: settings.streams,
      settleMs: settings.settleMs,
      rssBeforeMb,
      otherIdle,
      rounds
    })
  }\n`)
}

await runBenchmark(main, cleanups)
