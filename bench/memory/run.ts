/**
 * Memory benchmark (issue 32 §1): a real `trellis serve` on the embedded database, its resident set and V8 heap
 * at first start (its peak, ready, 10 s idle), after 1,000 tool calls, after a 20,000-event thread is streamed
 * to a client, and after a restart on the same data; beside a bare Node process and a bare PGlite on the same
 * data directory, in the same run. Progress goes to stderr, the report to stdout; a MISS is reported, not an error.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises"
import { cpus, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { makeCleanups, progress, runBenchmark } from "../BenchmarkRun.js"
import { intEnv } from "../mcp-overhead/ChildProcess.js"
import { readCredentials, targetOf } from "../task-tools/Server.js"
import { benchCli, lastLineText, longRun } from "../web/Seed.js"
import { PGLITE_START_PARAMS } from "../../src/platform/sql/PgliteClient.js"
import { barePglite, bareNode } from "./Baselines.js"
import { mb } from "./Memory.js"
import { report, type Moment } from "./Report.js"
import { startMeasured, type MeasuredServer } from "./Server.js"
import { streamThread, toolCalls } from "./Workload.js"

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url))

const settings = {
  idleMs: intEnv("MEMORY_IDLE_MS", 10_000, 0),
  toolCalls: intEnv("MEMORY_TOOL_CALLS", 1_000, 1),
  concurrency: intEnv("MEMORY_CONCURRENCY", 10, 1),
  events: intEnv("MEMORY_EVENTS", 20_000, 10),
  streamTimeoutMs: intEnv("MEMORY_STREAM_TIMEOUT_MS", 120_000, 1_000)
}

const cleanups = makeCleanups()
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const moment = (label: string, server: MeasuredServer): Moment => {
  const taken = { label, serve: server.sample(), tree: server.treeRss() }
  progress(`${label}: serve RSS ${mb(taken.serve.rss)}, heap used ${mb(taken.serve.heapUsed)}, npm start ${mb(taken.tree)}`)
  return taken
}

const main = async (): Promise<void> => {
  const home = await mkdtemp(join(tmpdir(), "trellis-bench-memory-"))
  cleanups.push(() => rm(home, { recursive: true, force: true }))
  const probeDir = join(home, "probe")
  await mkdir(probeDir)
  const moments: Array<Moment> = []

  progress("first start of trellis serve on a fresh home…")
  const first = await startMeasured(REPO_ROOT, home, probeDir)
  cleanups.push(first.stop)
  moments.push(moment("first start: ready", first))
  await sleep(settings.idleMs)
  moments.push(moment(`first start: idle ${settings.idleMs / 1000} s`, first))

  const credentials = await readCredentials(home)
  const target = targetOf(first, credentials)
  progress(`${settings.toolCalls} tool calls…`)
  await toolCalls(target, credentials.projectId, settings.toolCalls, settings.concurrency)
  moments.push(moment(`after ${settings.toolCalls.toLocaleString("en-US")} tool calls`, first))

  progress(`uploading a thread of ${settings.events} events…`)
  const origin = new URL(first.url).origin
  const cli = await benchCli(origin, credentials.apiKey, credentials.projectId, target)
  const turn = await cli.startTurn()
  await turn.upload(longRun(settings.events))
  await turn.complete()
  await cli.close()
  moments.push(moment(`after uploading ${settings.events.toLocaleString("en-US")} events`, first))
  const streamMs = await streamThread(origin, credentials.apiKey, turn.threadId, lastLineText(settings.events), settings.streamTimeoutMs)
  progress(`streamed in ${streamMs.toFixed(0)} ms`)
  moments.push(moment(`after streaming them to a client`, first))
  await first.stop()

  progress("restart on the same data…")
  const again = await startMeasured(REPO_ROOT, home, probeDir)
  cleanups.push(again.stop)
  moments.push(moment("restart: ready", again))
  await sleep(settings.idleMs)
  moments.push(moment(`restart: idle ${settings.idleMs / 1000} s`, again))
  await again.stop()

  progress("floors: bare node, bare PGlite on the same data…")
  const dataDir = join(home, "data")
  const results = {
    firstStart: { ms: first.startMs, peak: first.startPeak },
    restart: { ms: again.startMs, peak: again.startPeak },
    moments,
    bareNode: await bareNode(REPO_ROOT),
    barePgliteDefault: await barePglite(REPO_ROOT, dataDir, undefined),
    barePgliteServer: await barePglite(REPO_ROOT, dataDir, PGLITE_START_PARAMS.length === 0 ? undefined : PGLITE_START_PARAMS),
    serverStartParams: PGLITE_START_PARAMS,
    cores: cpus().length
  }
  process.stdout.write(`${report(results)}\n`)
}

await runBenchmark(main, cleanups)
