/**
 * Web app benchmark (issue #18's budget): against a real `trellis serve` (embedded database) and
 * Chromium, measures (a) the initial JavaScript gzipped, (b) first render of a thread of 20,000
 * events against the same page on a short thread and a bare EventSource reading the same frames,
 * (c) frame gaps while scrolling that thread top to bottom against the page standing still, and
 * (d) upload-to-page latency of single-chunk uploads against the frame's arrival on a bare
 * EventSource in the same page. Progress goes to stderr, the report to stdout; a MISS is reported,
 * not an error.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { cpus, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"
import { intEnv } from "../mcp-overhead/ChildProcess.js"
import { percentile } from "../bridge/Workload.js"
import { readCredentials, startServer, targetOf } from "../task-tools/Server.js"
import {
  firstRender,
  idleFrames,
  launch,
  probeTimes,
  rawStreamRead,
  scrollFrames,
  signedInPage,
  threadUrl,
  watchProbes
} from "./Browser.js"
import { report, type Results } from "./Report.js"
import { benchCli, lastLineText, longRun, text } from "./Seed.js"
import { makeCleanups, progress, runBenchmark } from "../BenchmarkRun.js"

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url))
const BUILT = join(REPO_ROOT, "dist", "web")

const settings = {
  events: intEnv("WEB_EVENTS", 20_000, 10),
  smallEvents: intEnv("WEB_SMALL_EVENTS", 100, 10),
  rounds: intEnv("WEB_ROUNDS", 3, 1),
  uploads: intEnv("WEB_UPLOADS", 300, 10),
  uploadWarmup: intEnv("WEB_UPLOAD_WARMUP", 20, 0),
  /** Pause between two latency uploads, as a streaming runtime's lines come apart. */
  uploadGapMs: intEnv("WEB_UPLOAD_GAP_MS", 20, 0)
}
const LOAD_TIMEOUT_MS = 120_000

const cleanups = makeCleanups()

/** What a first visit loads: the shell's module script and what it preloads, gzipped as the server sends them. */
const initialJavaScript = async () => {
  const shell = await readFile(join(BUILT, "index.html"), "utf8")
  const files = [...shell.matchAll(/<(?:script[^>]*\bsrc|link[^>]*\brel="modulepreload"[^>]*\bhref)="([^"]+\.js)"/g)].map((m) => m[1] ?? "")
  let gzippedBytes = 0
  for (const file of files) gzippedBytes += gzipSync(await readFile(join(BUILT, file))).length
  return { files, gzippedBytes }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const main = async (): Promise<void> => {
  const bundle = await initialJavaScript()
  const home = await mkdtemp(join(tmpdir(), "trellis-bench-web-"))
  cleanups.push(() => rm(home, { recursive: true, force: true }))
  progress("starting trellis serve…")
  const server = await startServer(REPO_ROOT, home, undefined)
  cleanups.push(server.stop)
  const credentials = await readCredentials(home)
  const baseUrl = new URL(server.url).origin
  const cli = await benchCli(baseUrl, credentials.apiKey, credentials.projectId, targetOf(server, credentials))
  cleanups.push(cli.close)

  progress(`seeding a thread of ${settings.events} events and one of ${settings.smallEvents}…`)
  const large = await cli.startTurn()
  await large.upload(longRun(settings.events))
  await large.complete()
  const small = await cli.startTurn()
  await small.upload(longRun(settings.smallEvents))
  await small.complete()

  const browser = await launch()
  cleanups.push(() => browser.close())
  const page = await signedInPage(browser, baseUrl, credentials.apiKey)
  const largeUrl = threadUrl(baseUrl, credentials.projectId, large.threadId)
  const smallUrl = threadUrl(baseUrl, credentials.projectId, small.threadId)

  // (b) Rounds alternate the three, so that a slow moment of the machine does not land on one only.
  const firstRenders = { large: [] as Array<number>, small: [] as Array<number>, raw: [] as Array<number> }
  await firstRender(page, smallUrl, lastLineText(settings.smallEvents), LOAD_TIMEOUT_MS) // warm-up: caches, the server's first queries
  for (let round = 1; round <= settings.rounds; round++) {
    firstRenders.large.push(await firstRender(page, largeUrl, lastLineText(settings.events), LOAD_TIMEOUT_MS))
    firstRenders.small.push(await firstRender(page, smallUrl, lastLineText(settings.smallEvents), LOAD_TIMEOUT_MS))
    firstRenders.raw.push(await rawStreamRead(page, baseUrl, large.threadId, settings.events, LOAD_TIMEOUT_MS))
    progress(
      `first render round ${round}: ${firstRenders.large.at(-1)?.toFixed(0)} ms (${settings.events} events), ` +
        `${firstRenders.small.at(-1)?.toFixed(0)} ms (${settings.smallEvents}), bare stream ${firstRenders.raw.at(-1)?.toFixed(0)} ms`
    )
  }

  // (c) The long thread, fully loaded, scrolled from the top to the bottom.
  await page.goto(largeUrl)
  await page.getByText(lastLineText(settings.events)).waitFor({ timeout: LOAD_TIMEOUT_MS })
  const rows = Number(await page.locator("ol.conversation > li").first().getAttribute("aria-setsize"))
  const moving = await scrollFrames(page)
  const idle = await idleFrames(page, Math.min(600, moving.frames))
  progress(`scrolling: ${moving.frames} frames, p99 gap ${moving.p99Ms.toFixed(1)} ms; still: p99 ${idle.p99Ms.toFixed(1)} ms`)

  // (d) A streaming thread open in the page; single-chunk uploads, one at a time.
  const live = await cli.startTurn()
  await live.upload(longRun(settings.smallEvents))
  await page.goto(threadUrl(baseUrl, credentials.projectId, live.threadId))
  await page.getByText(lastLineText(settings.smallEvents)).waitFor({ timeout: LOAD_TIMEOUT_MS })
  await watchProbes(page, live.threadId)
  const started = new Map<number, number>()
  const total = settings.uploadWarmup + settings.uploads
  for (let n = 1; n <= total; n++) {
    started.set(n, await live.uploadOne(text(`Probe ${n} of the latency run.`)))
    await sleep(settings.uploadGapMs)
  }
  await sleep(2_000)
  const probes = await probeTimes(page)
  const measured = [...started].filter(([n]) => n > settings.uploadWarmup)
  const delays = (times: ReadonlyMap<number, number>) =>
    measured.flatMap(([n, at]) => {
      const seen = times.get(n)
      return seen === undefined ? [] : [seen - at]
    })
  const painted = delays(probes.painted)
  const shown = delays(probes.shown)
  const arrived = delays(probes.arrived)
  progress(`latency: ${painted.length}/${measured.length} probes painted, p99 ${percentile(painted, 0.99).toFixed(1)} ms`)

  const results: Results = {
    bundle,
    events: settings.events,
    smallEvents: settings.smallEvents,
    firstRender: firstRenders,
    scroll: { moving, idle, rows },
    latency: {
      samples: measured.length,
      painted: { p50Ms: percentile(painted, 0.5), p99Ms: percentile(painted, 0.99), maxMs: percentile(painted, 1) },
      shown: { p50Ms: percentile(shown, 0.5), p99Ms: percentile(shown, 0.99) },
      arrived: { p50Ms: percentile(arrived, 0.5), p99Ms: percentile(arrived, 0.99) },
      missing: measured.length - painted.length
    }
  }
  process.stdout.write(`${report(results, cpus().length)}\n`)
}

await runBenchmark(main, cleanups)
