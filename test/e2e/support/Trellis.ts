/**
 * `trellis serve`, `trellis agent …` and the official MCP SDK client, as an end-to-end test
 * drives them: real processes on real ports, the replay runtime standing in for `claude`.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { cleanEnv, type Completed, type Proc, repoRoot, runOk, runToEnd, spawnProcess, tempDir, trackPid } from "./Processes.js"

const SERVE_START_TIMEOUT = 60_000
const AGENT_START_TIMEOUT = 30_000

// ---- trellis serve -----------------------------------------------------------------------------

const Credentials = Schema.Struct({ url: Schema.String, apiKey: Schema.String, projectId: Schema.String, projectRef: Schema.String })
export type Credentials = typeof Credentials.Type

export interface Serve {
  readonly proc: Proc
  readonly home: string
  readonly port: number
  readonly baseUrl: string
  readonly mcpUrl: string
  readonly env: NodeJS.ProcessEnv
  readonly credentials: Credentials
}

/**
 * Starts `trellis serve` on `home` (the embedded database) and waits for its banner: the `Credentials:`
 * line is printed once credentials.json is complete. The port is the server's own pick (0), read back
 * from the `MCP endpoint:` line (a port picked, closed and bound later could be taken meanwhile); a
 * restart passes the port its predecessor held, so that its agents find it again.
 */
export const startServe = async (home: string, env: NodeJS.ProcessEnv = {}, port = 0): Promise<Serve> => {
  const fullEnv = cleanEnv({ TRELLIS_RATE_LIMIT: "off", ...env, TRELLIS_HOME: home, TRELLIS_PORT: String(port) })
  const proc = spawnProcess("trellis serve", process.execPath, ["cli/bin.js", "serve"], { cwd: repoRoot, env: fullEnv })
  await proc.waitForStdout(
    "the serve banner",
    (out) => /Credentials: .*\n/.test(out) && (!out.includes("(new:") || /claude mcp add .*\n/.test(out)),
    SERVE_START_TIMEOUT
  )
  const endpoint = /MCP endpoint: (\S+)\n/.exec(proc.stdout)?.[1]
  if (endpoint === undefined) throw new Error(`trellis serve printed no MCP endpoint\n${proc.describe()}`)
  const credentials = Schema.decodeUnknownSync(Schema.parseJson(Credentials))(fs.readFileSync(path.join(home, "credentials.json"), "utf8"))
  const url = new URL(endpoint)
  return { proc, home, port: Number(url.port), baseUrl: url.origin, mcpUrl: endpoint, env, credentials }
}

// ---- the MCP SDK client ------------------------------------------------------------------------

/** The official MCP SDK client with a Bearer key: a tool call's structured result, or an Error. */
export class Mcp {
  private constructor(private readonly client: Client) {}

  static async connect(mcpUrl: string, apiKey: string): Promise<Mcp> {
    const client = new Client({ name: "trellis-agent-e2e", version: "0.0.0" })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(mcpUrl), {
        requestInit: { headers: { Authorization: `Bearer ${apiKey}` } }
      })
    )
    return new Mcp(client)
  }

  async call<A, I>(schema: Schema.Schema<A, I>, name: string, args: Record<string, unknown>): Promise<A> {
    const result = await this.client.callTool({ name, arguments: args })
    if (result.isError === true) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`)
    return Schema.decodeUnknownSync(schema)(result.structuredContent)
  }

  close(): Promise<void> {
    return this.client.close()
  }
}

// The parts of the tools' output the tests read.

export const CliPath = Schema.Struct({
  pathId: Schema.String,
  path: Schema.String,
  kind: Schema.String,
  parentPathId: Schema.NullOr(Schema.String),
  branch: Schema.NullOr(Schema.String)
})
export const CliProfile = Schema.Struct({
  profileId: Schema.String,
  name: Schema.String,
  isOnline: Schema.Boolean,
  paths: Schema.Array(CliPath)
})
export const Profiles = Schema.Struct({ profiles: Schema.Array(CliProfile) })
export type CliProfile = typeof CliProfile.Type

export const Thread = Schema.Struct({
  threadId: Schema.String,
  status: Schema.String,
  processingState: Schema.String,
  hasPendingUserMessages: Schema.Boolean,
  targetOnline: Schema.Boolean,
  runtimeSessionElsewhere: Schema.Boolean
})
export type Thread = typeof Thread.Type

export const Message = Schema.Struct({
  messageId: Schema.String,
  role: Schema.String,
  status: Schema.String,
  text: Schema.String,
  errorMessage: Schema.optional(Schema.String)
})
export type Message = typeof Message.Type
export const Messages = Schema.Struct({ messages: Schema.Array(Message) })

export const Sent = Schema.Struct({ messageId: Schema.String, hasPendingUserMessages: Schema.Boolean })

export const messagesOf = async (mcp: Mcp, threadId: string): Promise<ReadonlyArray<Message>> =>
  (await mcp.call(Messages, "list_thread_messages", { threadId, limit: 20 })).messages

// ---- the thread's event stream (SSE) -----------------------------------------------------------

const ChunkEvent = Schema.Struct({
  id: Schema.String,
  messageId: Schema.String,
  seq: Schema.Number,
  event: Schema.Struct({ kind: Schema.String, text: Schema.optional(Schema.String), message: Schema.optional(Schema.String) })
})
export type ChunkEvent = typeof ChunkEvent.Type
const decodeEvent = Schema.decodeUnknownSync(Schema.parseJson(ChunkEvent))

/**
 * Reads `GET /api/threads/:id/events` from the start until `enough` holds for the events read,
 * then closes the stream. Fails after `timeoutMs` with what was read.
 */
export const readEvents = async (
  serve: Serve,
  threadId: string,
  enough: (events: ReadonlyArray<ChunkEvent>) => boolean,
  timeoutMs = 20_000
): Promise<ReadonlyArray<ChunkEvent>> => {
  const abort = new AbortController()
  const timer = setTimeout(() => abort.abort(), timeoutMs)
  const events: Array<ChunkEvent> = []
  try {
    const response = await fetch(`${serve.baseUrl}/api/threads/${threadId}/events`, {
      headers: { authorization: `Bearer ${serve.credentials.apiKey}`, accept: "text/event-stream" },
      signal: abort.signal
    })
    if (response.status !== 200 || response.body === null) throw new Error(`events: HTTP ${response.status}: ${await response.text()}`)
    const reader = response.body.getReader()
    const decoder = new TextDecoder()
    let buffer = ""
    while (!enough(events)) {
      const { done, value } = await reader.read()
      if (done) throw new Error("the event stream ended")
      buffer += decoder.decode(value, { stream: true })
      const frames = buffer.split("\n\n")
      buffer = frames.pop() ?? ""
      for (const frame of frames) {
        const lines = frame.split("\n")
        if (!lines.includes("event: event")) continue
        const data = lines.find((line) => line.startsWith("data: "))
        if (data !== undefined) events.push(decodeEvent(data.slice("data: ".length)))
      }
    }
    await reader.cancel()
    return events
  } catch (error) {
    throw new Error(`reading the events of ${threadId}: ${String(error)}; read ${events.length}: ${JSON.stringify(events.slice(-5))}`)
  } finally {
    clearTimeout(timer)
    abort.abort()
  }
}

// ---- trellis agent ----------------------------------------------------------------------------

const replaySource = fileURLToPath(new URL("../../support/replay/claude.mjs", import.meta.url))

/** A bin directory whose `claude` is the replay runtime. */
export const replayBin = (): string => {
  const bin = tempDir("trellis-e2e-bin-")
  fs.copyFileSync(replaySource, path.join(bin, "claude"))
  fs.chmodSync(path.join(bin, "claude"), 0o755)
  return bin
}

/**
 * The PATH without the directories npm puts first for a script (`node_modules/.bin`, node-gyp's):
 * the machine then has the runtimes a test gives it and no other, under `npm test` as when vitest
 * is run directly. Else each agent start asks the pinned OpenCode its version (0.6 s of CPU).
 */
const systemPath = (): string =>
  (process.env["PATH"] ?? "").split(path.delimiter).filter((dir) => !/node_modules[\\/](\.bin|.*node-gyp-bin)$/.test(dir)).join(
    path.delimiter
  )

/** The environment of a `trellis agent` command: its config dir, the given runtimes first on PATH, the knobs. */
export const agentEnv = (configDir: string, bin: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv =>
  cleanEnv({ ...extra, TRELLIS_CONFIG_DIR: configDir, PATH: `${bin}${path.delimiter}${systemPath()}` })

/** Runs `trellis <args>` to completion in `cwd`. */
export const trellis = (args: ReadonlyArray<string>, cwd: string, env: NodeJS.ProcessEnv): Promise<Completed> =>
  runToEnd(`trellis ${args.slice(0, 3).join(" ")}`, process.execPath, [path.join(repoRoot, "cli/bin.js"), ...args], { cwd, env })

/** Runs `trellis <args>`, which must succeed. */
export const trellisOk = async (args: ReadonlyArray<string>, cwd: string, env: NodeJS.ProcessEnv): Promise<string> => {
  const result = await trellis(args, cwd, env)
  if (result.code !== 0) {
    throw new Error(`trellis ${args.join(" ")} exited with ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`)
  }
  return result.stdout
}

const AgentLogLine = Schema.Struct({ time: Schema.DateFromString, level: Schema.String, message: Schema.String })
export type AgentLogLine = typeof AgentLogLine.Type
const decodeLogLine = Schema.decodeUnknownOption(Schema.parseJson(AgentLogLine))

/** A running `trellis agent start --log-format json`. */
export class Agent {
  constructor(readonly proc: Proc) {}

  /** The JSON log lines so far (anything else on stdout is skipped). */
  get log(): ReadonlyArray<AgentLogLine> {
    return this.proc.stdout.split("\n").flatMap((line) => {
      const parsed = decodeLogLine(line)
      return parsed._tag === "Some" ? [parsed.value] : []
    })
  }

  logged(pattern: RegExp): boolean {
    return this.log.some((line) => pattern.test(line.message))
  }

  /** When the agent first logged a line matching `pattern` (ms since the epoch), if it did. */
  loggedAt(pattern: RegExp): number | undefined {
    return this.log.find((line) => pattern.test(line.message))?.time.getTime()
  }

  waitForLog(what: string, pattern: RegExp, timeoutMs = 30_000): Promise<void> {
    return this.proc.waitForStdout(what, () => this.logged(pattern), timeoutMs)
  }
}

export const startAgent = async (cwd: string, env: NodeJS.ProcessEnv, extraArgs: ReadonlyArray<string> = []): Promise<Agent> => {
  const proc = spawnProcess("trellis agent start", process.execPath, [
    path.join(repoRoot, "cli/bin.js"),
    "agent",
    "start",
    "--log-format",
    "json",
    ...extraArgs
  ], {
    cwd,
    env
  })
  const agent = new Agent(proc)
  await agent.waitForLog("the agent to wait for threads", /^waiting for threads/, AGENT_START_TIMEOUT)
  return agent
}

// ---- the replay runtime's argument log ----------------------------------------------------------

const Invocation = Schema.Struct({ argv: Schema.Array(Schema.String), cwd: Schema.String, threadId: Schema.String, pid: Schema.Number })
export type Invocation = typeof Invocation.Type
const decodeInvocation = Schema.decodeUnknownSync(Schema.parseJson(Invocation))

/** Each runtime invocation logged to REPLAY_ARGS_LOG (their pids are killed at cleanup). */
export const invocations = (file: string): ReadonlyArray<Invocation> => {
  if (!fs.existsSync(file)) return []
  const all = fs.readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "").map((line) => decodeInvocation(line))
  for (const invocation of all) trackPid(invocation.pid)
  return all
}

export const flagValue = (argv: ReadonlyArray<string>, flag: string): string | undefined => {
  const i = argv.indexOf(flag)
  return i === -1 ? undefined : argv[i + 1]
}

// ---- git ----------------------------------------------------------------------------------------

const gitEnv = cleanEnv({
  GIT_AUTHOR_NAME: "E2E",
  GIT_AUTHOR_EMAIL: "e2e@example.test",
  GIT_COMMITTER_NAME: "E2E",
  GIT_COMMITTER_EMAIL: "e2e@example.test",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null"
})

export const git = (cwd: string, ...args: ReadonlyArray<string>): Promise<string> =>
  runOk(`git ${args[0] ?? ""}`, "git", args, { cwd, env: gitEnv })

/** A fresh repository with one commit on `main`. */
export const gitRepo = async (dir: string): Promise<string> => {
  fs.mkdirSync(dir, { recursive: true })
  await git(dir, "init", "-q", "-b", "main")
  fs.writeFileSync(path.join(dir, "README.md"), "# e2e\n")
  await git(dir, "add", "README.md")
  await git(dir, "commit", "-q", "-m", "initial")
  return dir
}
