import { execFile } from "node:child_process"
import { readFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { describeFailure, spawnServer, type ServerProcess, waitForOutput } from "../mcp-overhead/ChildProcess.js"

const READY_TIMEOUT_MS = 90_000

export interface RateLimitedTrellis {
  readonly url: string
  readonly pid: number
  readonly keys: ReadonlyArray<string>
  readonly stop: () => Promise<void>
}

/** The embedded database, or the PostgreSQL database `databaseUrl` names. */
const env = (home: string, rateLimit: string, databaseUrl: string | undefined): NodeJS.ProcessEnv => {
  const { DATABASE_URL: _ignored, ...inherited } = process.env
  return {
    ...inherited,
    ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
    TRELLIS_HOME: home,
    TRELLIS_PORT: "0",
    TRELLIS_RATE_LIMIT: rateLimit,
    TRELLIS_BRIDGE_RATE_LIMIT: rateLimit
  }
}

const serve = async (
  repoRoot: string,
  home: string,
  rateLimit: string,
  databaseUrl: string | undefined
): Promise<{ readonly server: ServerProcess; readonly url: string }> => {
  const server = spawnServer("trellis", ["cli/bin.js", "serve", "--host", "127.0.0.1"], {
    cwd: repoRoot,
    env: env(home, rateLimit, databaseUrl)
  })
  try {
    const url = await waitForOutput(server, /MCP endpoint: (\S+)\n[\s\S]*Credentials: .*\n/, READY_TIMEOUT_MS)
    return { server, url }
  } catch (error) {
    await server.stop()
    throw error
  }
}

/**
 * `trellis serve` on the embedded database (or `databaseUrl`'s PostgreSQL) with `rateLimit` on every family and two API keys of
 * the owner: the first start makes the owner and its key, the second key is created while the
 * server is stopped (the embedded database has one process at a time), then it starts again.
 */
export const startRateLimited = async (repoRoot: string, rateLimit: string, databaseUrl?: string): Promise<RateLimitedTrellis> => {
  const home = await mkdtemp(join(tmpdir(), "trellis-bench-refusals-"))
  const first = await serve(repoRoot, home, rateLimit, databaseUrl)
  await first.server.stop()
  const created = await promisify(execFile)(process.execPath, ["cli/bin.js", "admin", "key", "create", "--json", "--name", "second"], {
    cwd: repoRoot,
    env: env(home, rateLimit, databaseUrl)
  })
  const second: unknown = JSON.parse(created.stdout)
  const owner: unknown = JSON.parse(readFileSync(join(home, "credentials.json"), "utf8"))
  const keyOf = (value: unknown) =>
    typeof value === "object" && value !== null && "apiKey" in value && typeof value.apiKey === "string" ? value.apiKey : undefined
  const keys = [keyOf(owner), keyOf(second)].filter((key) => key !== undefined)
  if (keys.length !== 2) throw new Error("could not read the two API keys")
  const { server, url } = await serve(repoRoot, home, rateLimit, databaseUrl)
  const pid = server.child.pid
  if (pid === undefined) throw describeFailure(server, "trellis serve has no pid")
  return {
    url,
    pid,
    keys,
    stop: async () => {
      await server.stop()
      await rm(home, { recursive: true, force: true })
    }
  }
}
