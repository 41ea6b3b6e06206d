/**
 * MCP overhead benchmark: `tools/call list_task_types` against a bare node:http floor, the official
 * MCP SDK (stateless) and Trellis, each a child process on 127.0.0.1, loaded by autocannon from here.
 * Progress goes to stderr, the report to stdout. A MISS on a target is reported, not an error.
 */
import { fileURLToPath } from "node:url"
import { intEnv, spawnServer, waitForAnnouncedPort } from "./ChildProcess.js"
import { measure, type LoadSettings, type Measurement } from "./Load.js"
import { type ProfiledServer, stageBreakdown, stageReport } from "./ProfiledRun.js"
import { report } from "./Report.js"
import { endpoint, requestHeaders, verify, type ServerName, type Target } from "./Request.js"
import { startTrellis } from "./Trellis.js"
import { makeCleanups, runBenchmark } from "../BenchmarkRun.js"

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url))
const ANNOUNCE_TIMEOUT_MS = 30_000

const readSettings = () => ({
  load: {
    durationSeconds: intEnv("BENCH_DURATION", 10, 1),
    warmupSeconds: intEnv("BENCH_WARMUP", 2, 0),
    connections: intEnv("BENCH_CONNECTIONS", 50, 1),
    pipelining: intEnv("BENCH_PIPELINING", 1, 1)
  } satisfies LoadSettings,
  rounds: intEnv("BENCH_ROUNDS", 2, 1),
  /** The profiled pass of the per-stage breakdown (0: none). */
  stagesSeconds: intEnv("BENCH_STAGES_SECONDS", 5, 0),
  /** Extra node flags for the Trellis process only, such as `--cpu-prof --cpu-prof-dir=/tmp/prof`. */
  trellisNodeArgs: (process.env["BENCH_TRELLIS_NODE_ARGS"] ?? "").split(/\s+/).filter((arg) => arg !== "")
})

/** Things to stop at the end, newest first; also run on SIGINT/SIGTERM. */
const cleanups = makeCleanups()

/** Starts FloorServer.ts or SdkServer.ts as a child process and returns its target. */
const startBenchServer = async (
  name: Exclude<ServerName, "trellis">,
  script: string,
  env: Readonly<Record<string, string>>,
  apiKey: string,
  nodeArgs: ReadonlyArray<string> = []
): Promise<ProfiledServer> => {
  const server = spawnServer(name, [...nodeArgs, "--import", "tsx", fileURLToPath(new URL(script, import.meta.url))], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env }
  })
  cleanups.push(server.stop)
  const port = await waitForAnnouncedPort(server, ANNOUNCE_TIMEOUT_MS)
  return { target: { name, url: endpoint(port), headers: requestHeaders(apiKey) }, stop: server.stop }
}

const format = (m: Measurement): string =>
  `${m.requestsPerSecond.toFixed(0)} req/s, p50 ${m.p50Ms.toFixed(2)} ms, p99 ${m.p99Ms.toFixed(2)} ms, ` +
  `non-2xx ${m.non2xx}, errors ${m.errors}`

const main = async (): Promise<void> => {
  const settings = readSettings()

  process.stderr.write("starting trellis (embedded database)…\n")
  const trellisServer = await startTrellis(REPO_ROOT, settings.trellisNodeArgs)
  cleanups.push(trellisServer.stop)
  const trellis: Target = { name: "trellis", url: trellisServer.url, headers: requestHeaders(trellisServer.apiKey) }

  // Trellis's actual answer is the floor's fixed body and the SDK tool's output.
  const reference = await verify(trellis)
  const { taskTypes } = reference
  const startFloor = (nodeArgs: ReadonlyArray<string> = []) =>
    startBenchServer(
      "floor",
      "./FloorServer.ts",
      { BENCH_FLOOR_BODY_BASE64: reference.reply.bytes.toString("base64") },
      trellisServer.apiKey,
      nodeArgs
    )
  const floor = (await startFloor()).target
  const sdk = (await startBenchServer("sdk", "./SdkServer.ts", {
    BENCH_API_KEY: trellisServer.apiKey,
    BENCH_TASK_TYPES: JSON.stringify({ taskTypes })
  }, trellisServer.apiKey)).target

  const rounds: Record<ServerName, Array<Measurement>> = { floor: [], sdk: [], trellis: [] }
  for (let round = 1; round <= settings.rounds; round++) {
    for (const target of [floor, sdk, trellis]) {
      await verify(target, taskTypes)
      const measurement = await measure(target, settings.load)
      rounds[target.name].push(measurement)
      process.stderr.write(`round ${round}/${settings.rounds} ${target.name.padEnd(7)} ${format(measurement)}\n`)
    }
  }

  process.stdout.write(`${report(rounds, settings.load, settings.rounds)}\n`)
  if (settings.stagesSeconds === 0) return

  process.stderr.write("the per-stage breakdown: trellis and the floor again under --cpu-prof…\n")
  const startProfiledTrellis = async (nodeArgs: ReadonlyArray<string>): Promise<ProfiledServer> => {
    // The per-module build: the stages are told apart by the module a sample's code is in, which the bundle merges.
    const server = await startTrellis(REPO_ROOT, nodeArgs, { TRELLIS_BUNDLE: "0" })
    cleanups.push(server.stop)
    return { target: { name: "trellis", url: server.url, headers: requestHeaders(server.apiKey) }, stop: server.stop }
  }
  const breakdown = await stageBreakdown(startProfiledTrellis, startFloor, settings.load, settings.stagesSeconds)
  process.stdout.write(`\n${stageReport(breakdown)}\n`)
}

await runBenchmark(main, cleanups)
