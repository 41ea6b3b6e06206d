/** `trellis serve` (embedded database) with the heap probe preloaded, and what its process holds at each moment. */
import { fileURLToPath } from "node:url"
import { spawnServer, type ServerProcess, waitForOutput } from "../mcp-overhead/ChildProcess.js"
import { childOf, sample, type Sample, watchPeak } from "./Memory.js"

const READY_TIMEOUT_MS = 120_000
const BANNER = /MCP endpoint: (http:\/\/\S+)/
const PROBE = fileURLToPath(new URL("./HeapProbe.mjs", import.meta.url))

export interface MeasuredServer {
  readonly url: string
  /** From spawn to the banner. */
  readonly startMs: number
  /** The highest resident set of `trellis serve` (not its launcher) seen while it started, sampled every 100 ms. */
  readonly startPeak: number
  /** `trellis serve` itself (the launcher's child). */
  readonly sample: () => Sample
  /** The launcher and `trellis serve`: what `npm start` holds. */
  readonly treeRss: () => number
  readonly stop: () => Promise<void>
}

const env = (home: string, probeDir: string): NodeJS.ProcessEnv => {
  const { DATABASE_URL: _ignored, ...inherited } = process.env
  return {
    ...inherited,
    TRELLIS_HOME: home,
    TRELLIS_RATE_LIMIT: "off",
    TRELLIS_BRIDGE_RATE_LIMIT: "off",
    NODE_OPTIONS: `${inherited["NODE_OPTIONS"] ?? ""} --import ${PROBE}`.trim(),
    BENCH_MEMORY_PROBE_DIR: probeDir
  }
}

const pidOf = (server: ServerProcess): number => {
  const pid = server.child.pid
  if (pid === undefined) throw new Error("trellis serve has no pid")
  return pid
}

export const startMeasured = async (repoRoot: string, home: string, probeDir: string): Promise<MeasuredServer> => {
  const started = performance.now()
  const server = spawnServer("trellis", ["cli/bin.js", "serve", "--host", "127.0.0.1", "--port", "0"], {
    cwd: repoRoot,
    env: env(home, probeDir)
  })
  const launcher = pidOf(server)
  const peak = watchPeak(() => childOf(launcher), 100)
  try {
    const url = await waitForOutput(server, BANNER, READY_TIMEOUT_MS)
    const startMs = performance.now() - started
    const startPeak = peak.stop()
    const serve = childOf(launcher)
    if (serve === undefined) throw new Error("trellis serve's launcher has no child")
    return {
      url,
      startMs,
      startPeak,
      sample: () => sample(serve, probeDir),
      treeRss: () => sample(launcher).rss + sample(serve).rss,
      stop: server.stop
    }
  } catch (error) {
    peak.stop()
    await server.stop()
    throw error
  }
}
