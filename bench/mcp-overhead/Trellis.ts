import { existsSync, readFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { describeFailure, spawnServer, type ServerProcess } from "./ChildProcess.js"
import { endpoint } from "./Request.js"

export interface TrellisServer {
  readonly url: string
  readonly apiKey: string
  /** Stops the server (SIGTERM, wait for exit) and removes its home directory. */
  readonly stop: () => Promise<void>
}

const READY_TIMEOUT_MS = 60_000
const POLL_INTERVAL_MS = 200

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => address !== null && typeof address === "object" ? resolve(address.port) : reject(new Error("no TCP port")))
    })
  })

const healthStatus = async (port: number): Promise<number | string> => {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/health`)
    await response.arrayBuffer()
    return response.status
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}

/** Polls until credentials.json exists and `GET /health` answers 200. */
const waitUntilReady = async (server: ServerProcess, home: string, port: number): Promise<void> => {
  const credentials = join(home, "credentials.json")
  const deadline = Date.now() + READY_TIMEOUT_MS
  let health: number | string = "not asked yet"
  while (Date.now() < deadline) {
    if (server.hasExited()) throw describeFailure(server, `Trellis exited during startup (code ${server.child.exitCode})`)
    if (existsSync(credentials)) {
      health = await healthStatus(port)
      if (health === 200) return
    }
    await sleep(POLL_INTERVAL_MS)
  }
  throw describeFailure(
    server,
    `Trellis was not ready within ${READY_TIMEOUT_MS / 1000} s: credentials.json ${
      existsSync(credentials) ? "exists" : "missing"
    } in ${home}, last GET /health: ${health}`
  )
}

const readApiKey = (home: string): string => {
  const credentials: unknown = JSON.parse(readFileSync(join(home, "credentials.json"), "utf8"))
  const apiKey = typeof credentials === "object" && credentials !== null && "apiKey" in credentials
    ? credentials.apiKey
    : undefined
  if (typeof apiKey !== "string") throw new Error(`${home}/credentials.json has no apiKey`)
  return apiKey
}

/** Trellis's environment: a fresh home, no rate limit, and no DATABASE_URL so it uses the embedded database. */
const trellisEnv = (home: string): NodeJS.ProcessEnv => {
  const { DATABASE_URL: _ignored, ...inherited } = process.env
  return { ...inherited, TRELLIS_HOME: home, TRELLIS_RATE_LIMIT: "off", TRELLIS_BRIDGE_RATE_LIMIT: "off" }
}

/**
 * Starts `node cli/bin.js serve` on a free port. `nodeArgs` go before the script (for example
 * `--cpu-prof`), so they reach only the Trellis process.
 */
export const startTrellis = async (
  repoRoot: string,
  nodeArgs: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv = {}
): Promise<TrellisServer> => {
  const home = await mkdtemp(join(tmpdir(), "trellis-bench-"))
  const port = await freePort()
  const server = spawnServer("trellis", [...nodeArgs, "cli/bin.js", "serve", "--host", "127.0.0.1", "--port", String(port)], {
    cwd: repoRoot,
    env: { ...trellisEnv(home), ...env }
  })
  const stop = async () => {
    await server.stop()
    await rm(home, { recursive: true, force: true })
  }
  try {
    await waitUntilReady(server, home, port)
    return { url: endpoint(port), apiKey: readApiKey(home), stop }
  } catch (error) {
    await stop()
    throw error
  }
}
