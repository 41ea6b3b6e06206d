/**
 * `npm run record-fixtures [-- --out DIR] [--only SECTION,...]`: re-records the normalizer's
 * transcripts in `test/fixtures/recorded/` from the pinned runtime binaries against the project's
 * mock model, so a runtime upgrade is one command plus a review of the diff (then
 * `npx vitest run test/events`). The transcripts beside them (`test/fixtures/<runtime>/`) are the
 * research captures of RUNTIMES.md, kept as they are: they hold behaviours the project's mock does
 * not produce (reasoning items, context-window errors). Sections:
 * claude, codex-exec, codex-app-server, opencode-serve, opencode-run (`--only` picks some).
 * Each runtime runs in its own HOME / XDG dirs / CODEX_HOME (a resumed session shares its first
 * run's); the runtimes' own output is written as it came. Every scenario has a time limit, and
 * every process started here (its whole process group) is ended with its scenario, however that ends.
 * Recorded: Claude Code (stream-json, with the stdio permission protocol), Codex exec, Codex
 * app-server (JSON-RPC over stdio, both directions as `{dir, msg}` lines), OpenCode serve (one
 * `opencode serve` per scenario driven through `@opencode-ai/sdk/v2`: its event stream with the
 * client's replies as `__client.*` lines, and the session's messages as `*.messages.json`) and
 * OpenCode run (`--format json`).
 */
import { createOpencodeClient, type OpencodeClient } from "@opencode-ai/sdk/v2"
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import type { Readable } from "node:stream"
import { fileURLToPath } from "node:url"
import type { CommandExecutionRequestApprovalResponse } from "../cli/agent/runtimes/generated/codex-protocol/v2/CommandExecutionRequestApprovalResponse.js"
import type { ThreadResumeParams } from "../cli/agent/runtimes/generated/codex-protocol/v2/ThreadResumeParams.js"
import type { ThreadStartParams } from "../cli/agent/runtimes/generated/codex-protocol/v2/ThreadStartParams.js"
import type { ToolRequestUserInputResponse } from "../cli/agent/runtimes/generated/codex-protocol/v2/ToolRequestUserInputResponse.js"
import type { TurnStartParams } from "../cli/agent/runtimes/generated/codex-protocol/v2/TurnStartParams.js"
import { type MockModel, startMockModel } from "../test/support/mock-model/MockModel.js"
import { ASK_FOR_SHELL_AND_EDITS, openCodeEnv, writeOpenCodeConfig } from "../test/support/runtimes/OpenCodeMock.js"
import { runtimeBinaries } from "../test/support/runtimes/RuntimeBinaries.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const outIndex = process.argv.indexOf("--out")
const outDir = outIndex === -1 ? path.join(root, "test/fixtures/recorded") : path.resolve(process.argv[outIndex + 1] ?? ".")
const onlyIndex = process.argv.indexOf("--only")
const only = onlyIndex === -1 ? undefined : new Set((process.argv[onlyIndex + 1] ?? "").split(","))
const wanted = (section: string) => only === undefined || only.has(section)
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "record-fixtures-"))

/** The longest one scenario (one process run, one app-server session, one OpenCode server) may take. */
const SCENARIO_TIMEOUT_MS = 120_000
/** How long a process gets to exit on its own once its work is done, before its group is killed. */
const EXIT_GRACE_MS = 5_000

type Json = Record<string, unknown>
const record = (value: unknown): Json => (typeof value === "object" && value !== null && !Array.isArray(value) ? Object(value) : {})

// ---- processes ---------------------------------------------------------------------------------

/** Every process group started here and not yet known to be gone: killed if the script itself ends early. */
const groups = new Set<number>()
const signalGroup = (pid: number, signal: NodeJS.Signals) => {
  try {
    process.kill(-pid, signal)
  } catch {
    // Already gone.
  }
}
const killGroup = (pid: number) => {
  signalGroup(pid, "SIGKILL")
  groups.delete(pid)
}
process.on("exit", () => {
  for (const pid of [...groups]) killGroup(pid)
  fs.rmSync(scratch, { recursive: true, force: true })
})
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(1))

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Waits for `promise` at most `ms` (without keeping the script alive past it). */
const waitUpTo = (promise: Promise<unknown>, ms: number) => {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]).finally(() => clearTimeout(timer))
}

interface Proc {
  readonly child: ChildProcessWithoutNullStreams
  /** Settles when the process has exited and its output is closed. */
  readonly closed: Promise<void>
  /** The last of its stderr, for a failure report. */
  readonly stderr: () => string
  /** Waits up to `graceMs` for it to exit, then ends its whole process group: SIGTERM, SIGKILL if need be. */
  readonly stop: (graceMs?: number) => Promise<void>
}

/** Starts `command` in a process group of its own (a wrapper's child dies with it). */
const start = (command: string, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv, cwd: string): Proc => {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"], detached: true })
  const pid = child.pid
  if (pid !== undefined) groups.add(pid)
  let stderr = ""
  child.stderr.setEncoding("utf8").on("data", (piece: string) => (stderr = (stderr + piece).slice(-4096)))
  child.stdin.on("error", () => undefined)
  const closed = new Promise<void>((resolve) => {
    child.on("close", () => resolve())
    child.on("error", () => resolve())
  })
  const stop = async (graceMs = 0) => {
    await waitUpTo(closed, graceMs)
    if (pid === undefined) return
    // A SIGKILLed `opencode serve` was seen to linger for a minute: it gets the chance to exit first.
    signalGroup(pid, "SIGTERM")
    await waitUpTo(closed, EXIT_GRACE_MS)
    // Also sweeps whatever the process left running in its group.
    killGroup(pid)
    await waitUpTo(closed, EXIT_GRACE_MS)
  }
  return { child, closed, stderr: () => stderr, stop }
}

/** Calls `onLine` with each non-empty line of `stream`. */
const onLines = (stream: Readable, onLine: (line: string) => void) => {
  let buffer = ""
  stream.setEncoding("utf8").on("data", (piece: string) => {
    buffer += piece
    let newline: number
    while ((newline = buffer.indexOf("\n")) !== -1) {
      const line = buffer.slice(0, newline)
      buffer = buffer.slice(newline + 1)
      if (line.trim() !== "") onLine(line)
    }
  })
}

/** `promise`, or a failure naming `what` once `ms` have passed. */
const within = <A>(what: string, ms: number, promise: Promise<A>): Promise<A> => {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: timed out after ${ms / 1000} s`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/** Runs a process to its end, feeding it `onLine`'s replies; its stdout lines. */
const run = async (
  command: string,
  args: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv,
  cwd: string,
  input: ReadonlyArray<string>,
  onLine: (line: Json, write: (text: string) => void, end: () => void) => void
) => {
  const proc = start(command, args, env, cwd)
  const lines: Array<string> = []
  onLines(proc.child.stdout, (line) => {
    lines.push(line)
    try {
      onLine(record(JSON.parse(line)), (text) => proc.child.stdin.write(text), () => proc.child.stdin.end())
    } catch {
      // Not JSON: kept as it came.
    }
  })
  for (const text of input) proc.child.stdin.write(text)
  if (input.length === 0) proc.child.stdin.end()
  try {
    await within(`${path.basename(command)} ${args.join(" ")}`, SCENARIO_TIMEOUT_MS, proc.closed)
  } finally {
    await proc.stop()
  }
  return lines
}

const write = (dir: string, name: string, lines: ReadonlyArray<string>) => {
  fs.mkdirSync(path.join(outDir, dir), { recursive: true })
  fs.writeFileSync(path.join(outDir, dir, name), lines.join("\n") + "\n")
  console.log(`${dir}/${name}: ${lines.length} lines`)
}

/** A JSON document (OpenCode's session messages), indented as the fixtures are. */
const writeJson = (dir: string, name: string, value: unknown) => {
  const text = JSON.stringify(value, null, 1)
  fs.mkdirSync(path.join(outDir, dir), { recursive: true })
  fs.writeFileSync(path.join(outDir, dir, name), text + "\n")
  console.log(`${dir}/${name}: ${text.split("\n").length} lines`)
}

/** The label of `question`'s option named `wanted` (any case), else of its first option. */
const optionLabel = (question: unknown, wanted: string): string => {
  const options = record(question)["options"]
  const labels = (Array.isArray(options) ? options : []).map((option) => String(record(option)["label"] ?? ""))
  return labels.find((label) => label.toLowerCase() === wanted.toLowerCase()) ?? labels[0] ?? wanted
}

// ---- Claude Code -------------------------------------------------------------------------------

const claudeEnv = (mock: MockModel, home: string): NodeJS.ProcessEnv => ({
  HOME: home,
  ANTHROPIC_BASE_URL: mock.url,
  ANTHROPIC_API_KEY: "sk-ant-mock",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_ERROR_REPORTING: "1"
})

const userTurn = (text: string) =>
  JSON.stringify({ type: "user", message: { role: "user", content: [{ type: "text", text }] }, parent_tool_use_id: null, session_id: "" }) +
  "\n"

/** The SDK's initialize request, sent ahead of the turn in the stdio-permission scenarios (its reply lists the commands). */
const claudeInitialize = JSON.stringify({ type: "control_request", request_id: "init_1", request: { subtype: "initialize" } }) + "\n"

/** Answers every can_use_tool request with `behavior` (a question gets "Blue"); closes stdin after the result. */
const claudeDriver = (behavior: "allow" | "deny") => (line: Json, send: (text: string) => void, end: () => void) => {
  if (line["type"] === "result") return end()
  if (line["type"] !== "control_request") return
  const request = record(line["request"])
  const input = record(request["input"])
  const questions = Array.isArray(input["questions"]) ? input["questions"] : []
  const answers = Object.fromEntries(questions.map((q) => [String(record(q)["question"]), "Blue"]))
  const response = behavior === "allow"
    ? { behavior: "allow", updatedInput: questions.length > 0 ? { ...input, answers } : input }
    : { behavior: "deny", message: "User denied via bridge" }
  send(JSON.stringify({ type: "control_response", response: { subtype: "success", request_id: line["request_id"], response } }) + "\n")
}

const recordClaude = async (mock: MockModel, claude: string) => {
  const home = fs.mkdtempSync(path.join(scratch, "claude-"))
  const cwd = fs.mkdtempSync(path.join(scratch, "claude-project-"))
  const env = claudeEnv(mock, home)
  const base = [
    "-p",
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
    "--verbose",
    "--permission-prompt-tool",
    "stdio",
    "--model",
    "claude-sonnet-4-5"
  ]
  const once = (
    name: string,
    prompt: string,
    extra: ReadonlyArray<string> = [],
    behavior: "allow" | "deny" = "allow",
    initialize = false
  ) =>
    run(claude, [...base, ...extra], env, cwd, [...(initialize ? [claudeInitialize] : []), userTurn(prompt)], claudeDriver(behavior)).then(
      (lines) => {
        write("claude", name, lines)
        return lines
      }
    )
  const hello = await once("claude-raw-hello.jsonl", "Say hello")
  const sessionId = String(record(JSON.parse(hello[0] ?? "{}"))["session_id"] ?? "")
  await once("claude-raw-resume.jsonl", "RUN_TOOL[echo hi]", ["--resume", sessionId])
  await once("claude-raw-compact.jsonl", "/compact", ["--resume", sessionId])
  await once("claude-raw-stdio-permission.jsonl", "RUN_TOOL[touch made-by-claude2.txt]", [], "allow", true)
  await once("claude-raw-stdio-deny.jsonl", "RUN_TOOL[touch denied.txt]", [], "deny", true)
  await once("claude-raw-stdio-askuser.jsonl", "ASK_USER", [], "allow", true)
  await once("claude-raw-stdio-plan.jsonl", "PLAN_EXIT", ["--permission-mode", "plan"], "allow", true)
  await once("claude-raw-api-retry.jsonl", `FAIL_TWICE ${Date.now()}`)
  await once("claude-raw-api-error.jsonl", "FAIL_HARD")
}

// ---- Codex exec --------------------------------------------------------------------------------

/** `$CODEX_HOME/config.toml` for the mock (RUNTIMES.md §3.1), with the provider's retry counts. */
const writeCodexConfig = (mock: MockModel, home: string, retries: { readonly request: number; readonly stream: number }) =>
  fs.writeFileSync(
    path.join(home, "config.toml"),
    [
      `model = "mock-model"`,
      `model_provider = "mock"`,
      `model_reasoning_effort = "medium"`,
      `check_for_update_on_startup = false`,
      `[model_providers.mock]`,
      `name = "Mock"`,
      `base_url = "${mock.url}/v1"`,
      `env_key = "MOCK_API_KEY"`,
      `wire_api = "responses"`,
      `request_max_retries = ${retries.request}`,
      `stream_max_retries = ${retries.stream}`,
      `[analytics]`,
      `enabled = false`,
      ""
    ].join("\n")
  )

const recordCodexExec = async (mock: MockModel, codex: string) => {
  const home = fs.mkdtempSync(path.join(scratch, "codex-"))
  const cwd = fs.mkdtempSync(path.join(scratch, "codex-project-"))
  writeCodexConfig(mock, home, { request: 0, stream: 3 })
  const env = { CODEX_HOME: home, MOCK_API_KEY: "mock" }
  const exec = (name: string, args: ReadonlyArray<string>) =>
    run(process.execPath, [codex, "exec", ...args], env, cwd, [], () => undefined).then((lines) => {
      write("codex", name, lines)
      return lines
    })
  const common = ["--skip-git-repo-check", "-c", `sandbox_mode="danger-full-access"`]
  await exec("codex-exec-raw-hello.jsonl", ["--json", ...common, "Say hello"])
  // tool → resume → slash-compact are three runs on one thread (its usage is thread-cumulative).
  const tool = await exec("codex-exec-raw-tool.jsonl", ["--json", ...common, "RUN_TOOL[echo hi]"])
  const threadId = String(record(JSON.parse(tool[0] ?? "{}"))["thread_id"] ?? "")
  await exec("codex-exec-raw-resume.jsonl", ["resume", "--json", ...common, threadId, "RUN_TOOL[echo again]"])
  await exec("codex-exec-raw-slash-compact.jsonl", ["resume", "--json", ...common, threadId, "/compact"])
  await exec("codex-exec-raw-tool-error.jsonl", ["--json", ...common, "RUN_TOOL[ls /nonexistent]"])
  await exec("codex-exec-raw-retry.jsonl", ["--json", ...common, `FAIL_TWICE ${Date.now()}`])
  await exec("codex-exec-raw-error.jsonl", ["--json", ...common, "FAIL_HARD"])
}

// ---- Codex app-server --------------------------------------------------------------------------

/** The app-server as one scenario sees it: JSON-RPC over stdio without the `jsonrpc` field (RUNTIMES.md §3.3). */
interface AppServer {
  /** A request; its result (an error response fails). */
  readonly request: (method: string, params: unknown) => Promise<Json>
  readonly notify: (method: string) => void
  /** A request that starts a turn (turn/start, thread/compact/start), waited for to its turn/completed. */
  readonly turn: (method: string, params: unknown) => Promise<Json>
}

/** A server→client request's result (approval, requestUserInput), or undefined when not handled. */
type ServerRequests = (method: string, params: Json) => unknown

const clientInfo = { name: "record-fixtures", title: "Trellis record-fixtures", version: "0.0.1" }

/** Runs `script` against one `codex app-server`; every message either way is a `{dir, msg}` line of `name`. */
const appServerScenario = async (
  codex: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
  name: string,
  answer: ServerRequests,
  script: (server: AppServer) => Promise<void>
) => {
  const proc = start(process.execPath, [codex, "app-server"], env, cwd)
  const lines: Array<string> = []
  const pending = new Map<
    number,
    { readonly resolve: (result: Json) => void; readonly reject: (error: Error) => void; readonly method: string }
  >()
  const turnsEnding: Array<(turn: Json) => void> = []
  let nextId = 1
  const send = (msg: Json) => {
    lines.push(JSON.stringify({ dir: "client->server", msg }))
    proc.child.stdin.write(JSON.stringify(msg) + "\n")
  }
  onLines(proc.child.stdout, (line) => {
    let msg: unknown
    try {
      msg = JSON.parse(line)
    } catch {
      lines.push(JSON.stringify({ dir: "server->client", msg: line }))
      return
    }
    lines.push(JSON.stringify({ dir: "server->client", msg }))
    const message = record(msg)
    const method = message["method"]
    if (typeof method !== "string") {
      const waiting = pending.get(Number(message["id"]))
      pending.delete(Number(message["id"]))
      if (message["error"] === undefined) waiting?.resolve(record(message["result"]))
      else waiting?.reject(new Error(`${waiting.method}: ${JSON.stringify(message["error"])}`))
    } else if (message["id"] !== undefined) {
      const result = answer(method, record(message["params"]))
      send(
        result === undefined
          ? { id: message["id"], error: { code: -32601, message: `${method} is not handled` } }
          : { id: message["id"], result }
      )
    } else if (method === "turn/completed") {
      turnsEnding.shift()?.(record(record(message["params"])["turn"]))
    }
  })
  const request = (method: string, params: unknown) =>
    new Promise<Json>((resolve, reject) => {
      const id = nextId++
      pending.set(id, { resolve, reject, method })
      send({ id, method, params })
    })
  const server: AppServer = {
    request,
    notify: (method) => send({ method }),
    turn: async (method, params) => {
      const completed = new Promise<Json>((resolve) => turnsEnding.push(resolve))
      await request(method, params)
      return completed
    }
  }
  const died = proc.closed.then(() => Promise.reject(new Error(`codex app-server exited early: ${proc.stderr()}`)))
  try {
    await within(`codex app-server (${name})`, SCENARIO_TIMEOUT_MS, Promise.race([script(server), died]))
  } finally {
    died.catch(() => undefined)
    // With stdin closed the app-server exits on its own.
    proc.child.stdin.end()
    await proc.stop(EXIT_GRACE_MS)
  }
  write("codex", name, lines)
}

/** initialize / initialized; `experimental` opts in to experimental fields (collaborationMode). */
const handshake = async (server: AppServer, experimental: boolean) => {
  await server.request("initialize", { clientInfo, capabilities: experimental ? { experimentalApi: true } : null })
  server.notify("initialized")
}

/** thread/start as our adapter starts a thread (untrusted approvals, workspace-write); the thread id. */
const startThread = async (server: AppServer, cwd: string) => {
  const started = await server.request(
    "thread/start",
    { cwd, approvalPolicy: "untrusted", sandbox: "workspace-write", model: "mock-model" } satisfies ThreadStartParams
  )
  return String(record(started["thread"])["id"] ?? "")
}

const turnStart = (threadId: string, text: string, plan = false): TurnStartParams => ({
  threadId,
  input: [{ type: "text", text, text_elements: [] }],
  effort: "high",
  ...(plan
    ? { collaborationMode: { mode: "plan", settings: { model: "mock-model", reasoning_effort: "medium", developer_instructions: null } } }
    : {})
})

/** Approves every command, answers every question with its "Blue" option (else its first). */
const appServerAnswers: ServerRequests = (method, params) => {
  if (method === "item/commandExecution/requestApproval") return { decision: "accept" } satisfies CommandExecutionRequestApprovalResponse
  if (method !== "item/tool/requestUserInput") return undefined
  const questions = Array.isArray(params["questions"]) ? params["questions"] : []
  return {
    answers: Object.fromEntries(questions.map((q) => [String(record(q)["id"]), { answers: [optionLabel(q, "Blue")] }]))
  } satisfies ToolRequestUserInputResponse
}

const recordCodexAppServer = async (mock: MockModel, codex: string) => {
  const home = fs.mkdtempSync(path.join(scratch, "codex-app-"))
  const cwd = fs.mkdtempSync(path.join(scratch, "codex-app-project-"))
  // One silent request retry, then one stream retry the app-server reports (`error` willRetry, "Reconnecting... 1/1").
  writeCodexConfig(mock, home, { request: 1, stream: 1 })
  const env = { HOME: home, CODEX_HOME: home, MOCK_API_KEY: "mock" }
  const scenario = (name: string, script: (server: AppServer) => Promise<void>) =>
    appServerScenario(codex, env, cwd, name, appServerAnswers, script)

  let approvalThread = ""
  await scenario("codex-appserver-raw-approval.jsonl", async (server) => {
    await handshake(server, false)
    approvalThread = await startThread(server, cwd)
    await server.turn("turn/start", turnStart(approvalThread, "RUN_TOOL[touch made-by-codex.txt]"))
    await server.turn("thread/compact/start", { threadId: approvalThread })
  })
  await scenario("codex-appserver-raw-resume-askuser.jsonl", async (server) => {
    await handshake(server, false)
    // Outside plan mode request_user_input is refused: the model is told so.
    await server.request("thread/resume", { threadId: approvalThread, approvalPolicy: "untrusted" } satisfies ThreadResumeParams)
    await server.turn("turn/start", turnStart(approvalThread, "ASK_USER please"))
  })
  await scenario("codex-appserver-raw-plan-askuser.jsonl", async (server) => {
    await handshake(server, true)
    await server.turn("turn/start", turnStart(await startThread(server, cwd), "ASK_USER please", true))
  })
  await scenario("codex-appserver-raw-retry.jsonl", async (server) => {
    await handshake(server, false)
    await server.turn("turn/start", turnStart(await startThread(server, cwd), `FAIL_TWICE ${Date.now()}`))
  })
  await scenario("codex-appserver-raw-error.jsonl", async (server) => {
    await handshake(server, false)
    await server.turn("turn/start", turnStart(await startThread(server, cwd), "FAIL_HARD hi"))
  })
}

// ---- OpenCode ----------------------------------------------------------------------------------

const OPENCODE_MODEL = { providerID: "mock", modelID: "mock-model" }
/** OpenCode's basic-auth user when OPENCODE_SERVER_USERNAME is not set. */
const OPENCODE_USER = "opencode"
/**
 * Right after the run's session.idle come its last events (session.updated, session.diff,
 * command.executed): kept until the stream has been quiet this long.
 */
const OPENCODE_SETTLE_MS = 250

/** HOME and XDG dirs with OpenCode's global config for the mock, as the e2e harness writes them. */
const openCodeHome = (mock: MockModel, home: string): NodeJS.ProcessEnv => {
  writeOpenCodeConfig(mock, home, ASK_FOR_SHELL_AND_EDITS)
  return openCodeEnv(home)
}

/** A port free on 127.0.0.1 right now. */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = net.createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))))
    })
  })

/**
 * `opencode serve` on 127.0.0.1, a random free port, basic auth with a password made for this server
 * only. (`--port 0` is not random: it takes 4096 when it can, where a previous server may still be dying.)
 */
const startOpenCodeServer = async (opencode: string, env: NodeJS.ProcessEnv, cwd: string) => {
  const port = String(await freePort())
  const password = randomBytes(24).toString("base64url")
  const proc = start(opencode, ["serve", "--hostname", "127.0.0.1", "--port", port], {
    ...env,
    OPENCODE_SERVER_PASSWORD: password,
    OPENCODE_SERVER_USERNAME: OPENCODE_USER
  }, cwd)
  try {
    const baseUrl = await within(
      "opencode serve to listen",
      60_000,
      new Promise<string>((resolve, reject) => {
        onLines(proc.child.stdout, (line) => {
          const url = /https?:\/\/127\.0\.0\.1:\d+/.exec(line)?.[0]
          if (line.includes("listening") && url !== undefined) resolve(url)
        })
        proc.closed.then(() => reject(new Error(`opencode serve exited: ${proc.stderr()}`)))
      })
    )
    return { proc, baseUrl, authorization: `Basic ${Buffer.from(`${OPENCODE_USER}:${password}`).toString("base64")}` }
  } catch (error) {
    await proc.stop()
    throw error
  }
}

/** One OpenCode scenario as its driver sees it. */
interface OpenCodeRun {
  readonly client: OpencodeClient
  readonly sessionID: string
  /** The next event of `type` about this session (waited for from now on). */
  readonly next: (type: string) => Promise<Json>
}

/** How a scenario answers: a permission reply (and its message), a question's label. */
interface OpenCodeAnswers {
  readonly permission?: { readonly reply: "once" | "reject"; readonly message?: string }
  readonly question?: string
}

/** Answers a permission.asked or question.asked event as `answers` says; calls `note` with what it did. */
const answerAsked = async (client: OpencodeClient, answers: OpenCodeAnswers, type: string, props: Json, note: (line: Json) => void) => {
  const requestID = String(props["id"] ?? "")
  if (type === "permission.asked" && answers.permission !== undefined) {
    const { response } = await client.permission.reply({ requestID, ...answers.permission })
    note({ type: "__client.permission.reply", requestID, ...answers.permission, status: response.status })
  }
  if (type === "question.asked" && answers.question !== undefined) {
    const wanted = answers.question
    const replies = (Array.isArray(props["questions"]) ? props["questions"] : []).map((question) => [optionLabel(question, wanted)])
    const { response } = await client.question.reply({ requestID, answers: replies })
    note({ type: "__client.question.reply", requestID, answers: replies, status: response.status })
  }
}

/** Reads the server's event stream into `onEvent` until `signal` aborts; settles once it has connected. */
const readEvents = async (client: OpencodeClient, signal: AbortSignal, onEvent: (event: unknown) => void) => {
  const events = await client.event.subscribe(undefined, { signal, sseMaxRetryAttempts: 1 })
  return new Promise<void>((resolve, reject) => {
    void (async () => {
      try {
        for await (const event of events.stream) {
          onEvent(event)
          // The stream connects lazily: its first event (server.connected) says it has.
          resolve()
        }
      } catch {
        // Aborted at the end.
      }
      reject(new Error("opencode's event stream ended"))
    })()
  })
}

/**
 * Runs `drive` on a fresh `opencode serve` in `session` (created when undefined): every event of
 * the server's stream is a line of `name`.jsonl, with the client's replies as `__client.*` lines, and
 * the session's messages at the end `name`.messages.json. The server is killed however it ends.
 */
const openCodeScenario = async (
  opencode: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
  name: string,
  session: string | undefined,
  answers: OpenCodeAnswers,
  drive: (run: OpenCodeRun) => Promise<void>
): Promise<string> => {
  const server = await startOpenCodeServer(opencode, env, cwd)
  const abort = new AbortController()
  try {
    return await within(
      `opencode serve (${name})`,
      SCENARIO_TIMEOUT_MS,
      (async () => {
        const client = createOpencodeClient({ baseUrl: server.baseUrl, directory: cwd, headers: { authorization: server.authorization } })
        // As our adapter does: the session first, then the event stream (which so has no session.created).
        const sessionID = session ?? String(record((await client.session.create({ title: "record-fixtures" })).data)["id"] ?? "")
        if (sessionID === "") throw new Error("session.create gave no session id")
        const lines: Array<string> = []
        let lastEventAt = Date.now()
        const waiting: Array<{ readonly type: string; readonly resolve: (props: Json) => void }> = []
        await readEvents(client, abort.signal, (event) => {
          lines.push(JSON.stringify(event))
          lastEventAt = Date.now()
          const type = String(record(event)["type"] ?? "")
          const props = record(record(event)["properties"])
          if (props["sessionID"] !== sessionID) return
          answerAsked(client, answers, type, props, (line) => lines.push(JSON.stringify(line))).catch(() => undefined)
          for (const waiter of waiting.filter((w) => w.type === type)) {
            waiting.splice(waiting.indexOf(waiter), 1)
            waiter.resolve(props)
          }
        })
        await drive({ client, sessionID, next: (type) => new Promise<Json>((resolve) => waiting.push({ type, resolve })) })
        // The run's last events, until the stream has been quiet for a moment.
        while (Date.now() - lastEventAt < OPENCODE_SETTLE_MS) await sleep(50)
        const messages = await client.session.messages({ sessionID })
        if (messages.data === undefined) throw new Error(`session.messages: ${JSON.stringify(messages.error)}`)
        write("opencode", `${name}.jsonl`, lines)
        writeJson("opencode", `${name}.messages.json`, messages.data)
        return sessionID
      })()
    )
  } finally {
    abort.abort()
    await server.proc.stop()
  }
}

/** Sends `text` (promptAsync) and waits for the run's session.idle. */
const prompt = async (run: OpenCodeRun, text: string) => {
  const idle = run.next("session.idle")
  await run.client.session.promptAsync({ sessionID: run.sessionID, parts: [{ type: "text", text }], model: OPENCODE_MODEL })
  await idle
}

const recordOpenCodeServe = async (mock: MockModel, opencode: string) => {
  const home = fs.mkdtempSync(path.join(scratch, "opencode-"))
  const cwd = fs.mkdtempSync(path.join(scratch, "opencode-project-"))
  // A project command whose body takes the arguments (RUNTIMES.md §4.3).
  fs.mkdirSync(path.join(cwd, ".opencode", "command"), { recursive: true })
  fs.writeFileSync(path.join(cwd, ".opencode", "command", "hi.md"), "RUN_TOOL[echo from-command] $ARGUMENTS\n")
  const env = openCodeHome(mock, home)
  const scenario = (name: string, session: string | undefined, answers: OpenCodeAnswers, drive: (run: OpenCodeRun) => Promise<void>) =>
    openCodeScenario(opencode, env, cwd, name, session, answers, drive)
  const allow = { permission: { reply: "once" } } as const

  const session = await scenario(
    "opencode-serve-raw-permission",
    undefined,
    allow,
    (run) => prompt(run, "RUN_TOOL[touch made-by-opencode.txt]")
  )
  await scenario("opencode-serve-raw-question", undefined, { question: "Blue" }, (run) => prompt(run, "ASK_QUESTION now"))
  // The permission scenario's session, on a new server.
  await scenario(
    "opencode-serve-raw-deny-resume",
    session,
    { permission: { reply: "reject", message: "denied by bridge" } },
    (run) => prompt(run, "RUN_TOOL[touch denied.txt]")
  )
  await scenario("opencode-serve-raw-compact", session, allow, async (run) => {
    await prompt(run, "RUN_TOOL[touch made-by-opencode.txt]")
    // /compact. The run's end is its session.idle: the pinned server does not always answer summarize.
    const idle = run.next("session.idle")
    run.client.session.summarize({ sessionID: run.sessionID, ...OPENCODE_MODEL }).catch(() => undefined)
    await idle
  })
  await scenario("opencode-serve-raw-command", undefined, allow, async (run) => {
    const idle = run.next("session.idle")
    const executed = run.next("command.executed")
    run.client.session.command({ sessionID: run.sessionID, command: "hi", arguments: "extra-args" }).catch(() => undefined)
    await Promise.all([idle, executed])
  })
  await scenario("opencode-serve-raw-retry", undefined, {}, (run) => prompt(run, `FAIL_TWICE ${Date.now()}`))
  await scenario("opencode-serve-raw-error", undefined, {}, (run) => prompt(run, "FAIL_HARD hi"))
}

/** `opencode run --format json`: a permission that asks is auto-rejected there, `--auto` approves it. */
const recordOpenCodeRun = async (mock: MockModel, opencode: string) => {
  const home = fs.mkdtempSync(path.join(scratch, "opencode-run-"))
  const cwd = fs.mkdtempSync(path.join(scratch, "opencode-run-project-"))
  const env = openCodeHome(mock, home)
  const once = (name: string, args: ReadonlyArray<string>) =>
    run(opencode, ["run", "--format", "json", "-m", "mock/mock-model", ...args], env, cwd, [], () => undefined).then((lines) =>
      write("opencode", name, lines)
    )
  await once("opencode-run-raw-hello.jsonl", ["Say hello"])
  await once("opencode-run-raw-tool-ask.jsonl", ["RUN_TOOL[touch run-mode.txt]"])
  await once("opencode-run-raw-tool-error-auto.jsonl", ["--auto", "RUN_TOOL[ls /nonexistent-dir]"])
}

/** The sections, in order, each with the binary it needs. */
const sections: ReadonlyArray<readonly [string, "claude" | "codex" | "opencode", (mock: MockModel, binary: string) => Promise<void>]> = [
  ["claude", "claude", recordClaude],
  ["codex-exec", "codex", recordCodexExec],
  ["codex-app-server", "codex", recordCodexAppServer],
  ["opencode-serve", "opencode", recordOpenCodeServe],
  ["opencode-run", "opencode", recordOpenCodeRun]
]

const main = async () => {
  const binaries = runtimeBinaries()
  const mock = await startMockModel()
  try {
    for (const [section, runtime, recordSection] of sections) {
      if (!wanted(section)) continue
      const binary = binaries[runtime]
      if (binary === undefined) console.warn(`${section}: ${runtime} is not installed, skipped`)
      else await recordSection(mock, binary)
    }
  } finally {
    await mock.close()
    fs.rmSync(scratch, { recursive: true, force: true })
  }
}

await main()
