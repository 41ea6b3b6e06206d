import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { spawnServer, type ServerProcess, waitForOutput } from "../mcp-overhead/ChildProcess.js"
import { requestHeaders } from "../mcp-overhead/Request.js"
import type { McpTarget } from "./Mcp.js"

/** What `trellis serve` bootstrapped on the fresh database (from its credentials.json). */
export interface Credentials {
  readonly apiKey: string
  readonly projectId: string
}

export interface RunningServer {
  readonly url: string
  /** SIGTERM and wait for the exit; the home directory and the database stay (they are restarted on). */
  readonly stop: () => Promise<void>
}

const READY_TIMEOUT_MS = 60_000
/** The banner line `trellis serve` prints once it listens and credentials.json is written. */
const BANNER = /MCP endpoint: (http:\/\/\S+)/

/**
 * The server's environment: a given home, no rate limits (the load would be throttled, not
 * measured), and DATABASE_URL only when benchmarking PostgreSQL (an inherited one is dropped).
 */
const serverEnv = (home: string, databaseUrl: string | undefined): NodeJS.ProcessEnv => {
  const { DATABASE_URL: _ignored, ...inherited } = process.env
  return {
    ...inherited,
    TRELLIS_HOME: home,
    TRELLIS_RATE_LIMIT: "off",
    TRELLIS_BRIDGE_RATE_LIMIT: "off",
    ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl })
  }
}

const waitForEndpoint = (server: ServerProcess): Promise<string> => waitForOutput(server, BANNER, READY_TIMEOUT_MS)

export const readCredentials = async (home: string): Promise<Credentials> => {
  const parsed: unknown = JSON.parse(await readFile(join(home, "credentials.json"), "utf8"))
  const field = (name: string): string => {
    const value = typeof parsed === "object" && parsed !== null ? Reflect.get(parsed, name) : undefined
    if (typeof value !== "string") throw new Error(`${home}/credentials.json has no ${name}`)
    return value
  }
  return { apiKey: field("apiKey"), projectId: field("projectId") }
}

/**
 * Starts `node cli/bin.js serve --port 0` (the OS picks a free port, so no probe-then-bind race)
 * and waits for its banner. The same home can be started again: the database and
 * credentials.json are reused.
 */
export const startServer = async (
  repoRoot: string,
  home: string,
  databaseUrl: string | undefined
): Promise<RunningServer> => {
  const server = spawnServer("trellis", ["cli/bin.js", "serve", "--host", "127.0.0.1", "--port", "0"], {
    cwd: repoRoot,
    env: serverEnv(home, databaseUrl)
  })
  try {
    return { url: await waitForEndpoint(server), stop: server.stop }
  } catch (error) {
    await server.stop()
    throw error
  }
}

/** The MCP target of a running server, authenticated with the bootstrapped key. */
export const targetOf = (server: RunningServer, credentials: Credentials): McpTarget => ({
  url: server.url,
  headers: requestHeaders(credentials.apiKey)
})
