/**
 * bench/cli: a replay runtime printing NORMALIZE-free text lines as fast as it can, through a real
 * `trellis agent start` into a real `trellis serve`: lines per second from the runtime's stdout to
 * rows stored (the batch is completed only after every chunk is acknowledged), and the agent's
 * peak RSS sampled from /proc (the agent process; its launcher is reported apart). Baseline, measured in the same run: the same replay runtime alone,
 * its output piped to nothing.
 *
 *   npm run bench:cli              # CLI_LINES (100000), CLI_ROUNDS (3)
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Schema } from "effect"
import { intEnv } from "../mcp-overhead/ChildProcess.js"
import { createDatabase } from "../task-tools/PgDatabase.js"
import { median } from "../mcp-overhead/Report.js"
import { killEverything, removeTempDirs, runOk, sleep, tempDir } from "../../test/e2e/support/Processes.js"
import {
  agentEnv,
  CliProfile,
  Mcp,
  Messages,
  replayBin,
  startAgent,
  startServe,
  Thread,
  trellisOk
} from "../../test/e2e/support/Trellis.js"

const LINES = intEnv("CLI_LINES", 100_000, 100)
const ROUNDS = intEnv("CLI_ROUNDS", 3, 1)
const TARGET_LINES_PER_SECOND = 5_000
const TARGET_RSS_MB = 150

const Profiles = Schema.Struct({ profiles: Schema.Array(CliProfile) })

/** The replay runtime alone: how fast it prints LINES lines into a pipe nobody keeps. */
const runtimeAlone = (bin: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(path.join(bin, "claude"), ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"], {
      env: { ...process.env, REPLAY_LINES: String(LINES) },
      stdio: ["pipe", "pipe", "inherit"]
    })
    child.stdout.on("data", () => {})
    child.on("error", reject)
    child.on("exit", () => resolve(LINES / ((performance.now() - started) / 1000)))
    child.stdin.end(`${JSON.stringify({ type: "user", message: { role: "user", content: [{ type: "text", text: "go" }] } })}\n`)
  })

/** A /proc/PID/status field in MB (VmRSS: resident; RssAnon: resident and private to the process). */
const statusMb = (pid: number, field: "VmRSS" | "RssAnon"): number => {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8")
    const kb = Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? "0")
    return kb / 1024
  } catch {
    return 0
  }
}
const rssMb = (pid: number): number => statusMb(pid, "VmRSS")

/**
 * `trellis agent start` is a launcher (cli/bin.js) and the agent it starts with V8 heap limits:
 * the agent is the launcher's child running cli/bin.js — unless NODE_OPTIONS sets limits, and
 * the launcher runs the agent itself.
 */
const agentOf = (launcher: number): number => {
  const children = fs.readFileSync(`/proc/${launcher}/task/${launcher}/children`, "utf8").trim().split(/\s+/).filter((pid) => pid !== "")
  const agent = children.find((pid) => fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("bin.js"))
  return Number(agent ?? launcher)
}

const main = async () => {
  const bin = replayBin()
  const home = tempDir("trellis-bench-cli-home-")
  const configDir = tempDir("trellis-bench-cli-config-")
  const repo = tempDir("trellis-bench-cli-repo-")
  await runOk("git init", "git", ["init", "-q"], { cwd: repo, env: process.env })
  // BENCH_DATABASE_URL: a PostgreSQL server to create the run's database on; without it, the embedded one.
  const serverUrl = process.env["BENCH_DATABASE_URL"] || undefined
  const database = serverUrl === undefined ? undefined : await createDatabase(serverUrl)
  const serve = await startServe(home, database === undefined ? {} : { DATABASE_URL: database.url })
  // BENCH_AGENT_NODE_OPTIONS: node options of the agent alone (e.g. --cpu-prof), not of the server.
  const agentNodeOptions = process.env["BENCH_AGENT_NODE_OPTIONS"]
  const env = agentEnv(configDir, bin, {
    REPLAY_LINES: String(LINES),
    ...(agentNodeOptions === undefined ? {} : { NODE_OPTIONS: agentNodeOptions })
  })
  await trellisOk(
    ["agent", "login", "--server", serve.baseUrl, "--api-key", serve.credentials.apiKey, "--project", serve.credentials.projectId],
    repo,
    env
  )
  await trellisOk(["agent", "paths", "add"], repo, env)
  const agent = await startAgent(repo, env)
  const launcherPid = agent.proc.pid
  const agentPid = agentOf(launcherPid)
  const idleRss = rssMb(agentPid)
  const mcp = await Mcp.connect(serve.mcpUrl, serve.credentials.apiKey)
  const { profiles } = await mcp.call(Profiles, "list_cli_profiles", { projectId: serve.credentials.projectId })
  const profile = profiles[0]
  const pathId = profile?.paths[0]?.pathId
  if (profile === undefined || pathId === undefined) throw new Error("the agent did not register its checkout")

  const baseline: Array<number> = []
  const endToEnd: Array<number> = []
  const rssSamples: Array<{ readonly at: number; readonly mb: number }> = []
  let peakRss = 0
  let launcherRss = 0
  let launcherPrivate = 0
  try {
    for (let round = 0; round < ROUNDS; round++) {
      baseline.push(await runtimeAlone(bin))
      const started = performance.now()
      const thread = await mcp.call(Thread, "create_thread", {
        content: `round ${round}`,
        profileId: profile.profileId,
        pathId,
        cliType: "claude"
      })
      const sampler = setInterval(() => {
        const mb = rssMb(agentPid)
        peakRss = Math.max(peakRss, mb)
        rssSamples.push({ at: performance.now() - started, mb })
      }, 100)
      // get_thread is cheap to poll; the message list (text composed from every event so far) is read once at the end.
      while (true) {
        const state = await mcp.call(Thread, "get_thread", { threadId: thread.threadId })
        if (state.status === "idle" || state.status === "failed") break
        await sleep(50)
      }
      clearInterval(sampler)
      const { messages } = await mcp.call(Messages, "list_thread_messages", { threadId: thread.threadId, limit: 2 })
      const answer = messages.find((m) => m.role === "assistant")
      if (answer?.status !== "completed") throw new Error(`round ${round}: the run ended ${answer?.status ?? "without an answer"}`)
      endToEnd.push(LINES / ((performance.now() - started) / 1000))
    }
  } finally {
    launcherRss = rssMb(launcherPid)
    launcherPrivate = statusMb(launcherPid, "RssAnon")
    await killEverything()
    removeTempDirs()
    await database?.drop()
  }

  const floor = median(baseline)
  const measured = median(endToEnd)
  const quarter = rssSamples.filter((s) => s.mb > 0)
  const early = quarter[Math.floor(quarter.length / 4)]?.mb ?? 0
  const late = quarter.at(-1)?.mb ?? 0
  const rows = [
    ["replay runtime alone (baseline)", `${Math.round(floor).toLocaleString("en")} lines/s`],
    ["runtime → agent → backend → rows", `${Math.round(measured).toLocaleString("en")} lines/s`],
    ["ratio to the baseline", (measured / floor).toFixed(3)]
  ]
  console.log(
    `bench/cli: ${LINES.toLocaleString("en")} lines per run, median of ${ROUNDS} round(s), ${
      database === undefined ? "embedded database" : `PostgreSQL (fresh database ${database.name})`
    }`
  )
  for (const [name, value] of rows) console.log(`  ${(name ?? "").padEnd(36)} ${value}`)
  console.log(
    `  agent RSS: idle ${idleRss.toFixed(0)} MB, peak ${peakRss.toFixed(0)} MB; at a quarter of the runs ${
      early.toFixed(0)
    } MB, at the end ${late.toFixed(0)} MB`
  )
  if (launcherPid !== agentPid) {
    console.log(
      `  its launcher (cli/bin.js): RSS ${launcherRss.toFixed(0)} MB, of which private ${
        launcherPrivate.toFixed(0)
      } MB (the rest is the node binary, shared with the agent)`
    )
  }
  console.log(`targets:`)
  console.log(
    `  ≥ ${TARGET_LINES_PER_SECOND.toLocaleString("en")} lines/s end to end   ${Math.round(measured).toLocaleString("en")}/s   ${
      measured >= TARGET_LINES_PER_SECOND ? "PASS" : "MISS"
    }`
  )
  console.log(`  RSS < ${TARGET_RSS_MB} MB                     ${peakRss.toFixed(0)} MB   ${peakRss < TARGET_RSS_MB ? "PASS" : "MISS"}`)
  console.log(`  RSS flat (end ≤ 1.25 × a quarter in)   ${early > 0 && late <= early * 1.25 ? "PASS" : "MISS"}`)
}

main().catch(async (error: unknown) => {
  console.error(error)
  await killEverything()
  removeTempDirs()
  process.exitCode = 1
})
