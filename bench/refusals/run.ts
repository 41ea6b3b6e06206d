/**
 * Refusals under load: 200 workers call `tools/call` back to back for a minute through one
 * keep-alive agent, with two API keys whose rate budget (60/s, burst 120) refuses most calls with
 * 429: once with clients that wait what Retry-After says, once (a fresh server) with clients that
 * call again at once. Every answer must be 2xx or 429 (a refusal must never cost the next request its socket),
 * the admitted calls' p99 within 1 s, and the server's memory bounded. The baseline, measured in
 * the same run with the same workers: a bare node:http server answering every call.
 * BENCH_DATABASE_URL (a PostgreSQL server, CREATEDB) runs it on a fresh database there.
 */
import { fileURLToPath } from "node:url"
import { makeCleanups, progress, runBenchmark } from "../BenchmarkRun.js"
import { intEnv, spawnServer, waitForAnnouncedPort } from "../mcp-overhead/ChildProcess.js"
import { endpoint } from "../mcp-overhead/Request.js"
import { createDatabase } from "../task-tools/PgDatabase.js"
import { mb, sampleRss } from "./Memory.js"
import { startRateLimited } from "./Server.js"
import { type LoadResult, percentile, type RefusalHandling, runWorkers } from "./Workers.js"

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url))
const cleanups = makeCleanups()

const settings = {
  workers: intEnv("BENCH_WORKERS", 200, 1),
  seconds: intEnv("BENCH_SECONDS", 60, 20),
  baselineSeconds: intEnv("BENCH_BASELINE_SECONDS", 10, 1),
  rateLimit: process.env["BENCH_RATE_LIMIT"] ?? "60/120"
}

const summary = (result: LoadResult) => {
  const answers = [...result.statuses.entries()].sort(([a], [b]) => a - b).map(([status, n]) => `${n} × ${status}`).join(", ")
  const errors = [...result.socketErrors.entries()].map(([code, n]) => `${n} × ${code}`).join(", ")
  return `${answers}${errors === "" ? "" : `; socket errors: ${errors}`}; ok p50 ${
    percentile(result.okLatenciesMs, 50).toFixed(1)
  } ms, p99 ${percentile(result.okLatenciesMs, 99).toFixed(1)} ms`
}

const verdict = (pass: boolean) => (pass ? "PASS" : "MISS")

const main = async () => {
  progress(`baseline: a bare node:http server, ${settings.workers} workers for ${settings.baselineSeconds} s…`)
  const floor = spawnServer("floor", ["--import", "tsx", fileURLToPath(new URL("../mcp-overhead/FloorServer.ts", import.meta.url))], {
    cwd: REPO_ROOT,
    env: { ...process.env, BENCH_FLOOR_BODY_BASE64: Buffer.from("{}").toString("base64") }
  })
  cleanups.push(floor.stop)
  const baseline = await runWorkers(
    endpoint(await waitForAnnouncedPort(floor, 30_000)),
    ["floor"],
    settings.workers,
    settings.baselineSeconds
  )
  await floor.stop()
  progress(`  ${summary(baseline)}`)

  const serverUrl = process.env["BENCH_DATABASE_URL"]
  const floorP99 = percentile(baseline.okLatenciesMs, 99)
  const baselineAnswers = [...baseline.statuses.values()].reduce((a, b) => a + b, 0)
  const lines = [
    `# Refusals under load (${settings.workers} workers, ${settings.seconds} s, two keys at ${settings.rateLimit}, ${
      serverUrl === undefined ? "embedded database" : "PostgreSQL"
    })`,
    "",
    "| clients | measure | baseline: bare node:http | trellis | ratio | target | |",
    "|---|---|---|---|---|---|---|"
  ]
  for (const handling of ["polite", "eager"] as const) {
    const database = serverUrl === undefined ? undefined : await createDatabase(serverUrl)
    if (database !== undefined) cleanups.push(database.drop)
    progress(
      `trellis serve (${
        database === undefined ? "embedded" : `PostgreSQL ${database.name}`
      }), rate limit ${settings.rateLimit} per key, two keys…`
    )
    const trellis = await startRateLimited(REPO_ROOT, settings.rateLimit, database?.url)
    cleanups.push(trellis.stop)
    const rss = sampleRss(trellis.pid)
    progress(`${settings.workers} ${handling} workers for ${settings.seconds} s…`)
    const load = await runWorkers(trellis.url, trellis.keys, settings.workers, settings.seconds, handling)
    rss.stop()
    await trellis.stop()
    progress(`  ${summary(load)}`)
    lines.push(...rows(handling, load, rss, floorP99, baselineAnswers, baseline.seconds))
  }
  process.stdout.write(`${lines.join("\n")}\n`)
}

const rows = (
  handling: RefusalHandling,
  load: LoadResult,
  rss: ReturnType<typeof sampleRss>,
  floorP99: number,
  baselineAnswers: number,
  baselineSeconds: number
) => {
  const clients = handling === "polite" ? "wait Retry-After" : "call again at once"
  const okP99 = percentile(load.okLatenciesMs, 99)
  const unexpected = [...load.statuses.entries()].filter(([status]) => !(status >= 200 && status < 300) && status !== 429)
    .reduce((sum, [, n]) => sum + n, 0) + [...load.socketErrors.values()].reduce((sum, n) => sum + n, 0)
  const at15 = rss.at(15)
  const atEnd = rss.at(settings.seconds)
  const ok = [...load.statuses.entries()].filter(([status]) => status >= 200 && status < 300).reduce((sum, [, n]) => sum + n, 0)
  return [
    `| ${clients} | answers | ${baselineAnswers} | ${summary(load).split(";")[0]} | | only 2xx and 429 | ${verdict(unexpected === 0)} |`,
    `| ${clients} | socket errors and other statuses | 0 | ${unexpected} | | 0 | ${verdict(unexpected === 0)} |`,
    `| ${clients} | admitted calls per second | ${(baselineAnswers / baselineSeconds).toFixed(0)} | ${
      (ok / load.seconds).toFixed(0)
    } | | budget: 2 × ${settings.rateLimit.split("/")[0]}/s + bursts | |`,
    `| ${clients} | ok p99 | ${floorP99.toFixed(1)} ms | ${okP99.toFixed(1)} ms | ${(okP99 / floorP99).toFixed(2)} × | ≤ 1,000 ms | ${
      verdict(okP99 <= 1_000)
    } |`,
    `| ${clients} | server RSS at 15 s / at ${settings.seconds} s / peak | | ${mb(at15)} / ${mb(atEnd)} / ${
      mb(rss.peak())
    } | | ≤ 300 MB, growth ≤ 50 MB | ${verdict(rss.peak() <= 300 * 1024 * 1024 && atEnd - at15 <= 50 * 1024 * 1024)} |`
  ]
}

await runBenchmark(main, cleanups)
