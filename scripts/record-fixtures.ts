/**
 * `npm run record-fixtures [-- --out DIR]`: re-records the normalizer's transcripts from the pinned
 * runtime binaries against the project's mock model, so a runtime upgrade is one command plus a
 * review of the diff (then `npx vitest run test/events`). Each scenario runs in its own HOME /
 * CODEX_HOME; the runtimes' own stdout lines are written as they came.
 * Recorded: Claude Code (stream-json, with the stdio permission protocol) and Codex exec.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { type MockModel, startMockModel } from "../test/support/mock-model/MockModel.js"
import { runtimeBinaries } from "../test/support/runtimes/RuntimeBinaries.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const outIndex = process.argv.indexOf("--out")
const outDir = outIndex === -1 ? path.join(root, "test/fixtures") : path.resolve(process.argv[outIndex + 1] ?? ".")
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "record-fixtures-"))

type Json = Record<string, unknown>
const record = (value: unknown): Json => (typeof value === "object" && value !== null && !Array.isArray(value) ? Object(value) : {})

/** Runs a process to its end, feeding it `onLine`'s replies; its stdout lines. */
const run = (command: string, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv, cwd: string, input: ReadonlyArray<string>, onLine: (line: Json, write: (text: string) => void, end: () => void) => void) =>
  new Promise<ReadonlyArray<string>>((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] })
    const lines: Array<string> = []
    let buffer = ""
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`${command} ${args.join(" ")}: timed out`))
    }, 120_000)
    child.stdout.setEncoding("utf8").on("data", (piece: string) => {
      buffer += piece
      let newline: number
      while ((newline = buffer.indexOf("\n")) !== -1) {
        const line = buffer.slice(0, newline)
        buffer = buffer.slice(newline + 1)
        if (line.trim() === "") continue
        lines.push(line)
        try {
          onLine(record(JSON.parse(line)), (text) => child.stdin.write(text), () => child.stdin.end())
        } catch {
          // Not JSON: kept as it came.
        }
      }
    })
    child.on("exit", () => {
      clearTimeout(timer)
      resolve(lines)
    })
    for (const text of input) child.stdin.write(text)
    if (input.length === 0) child.stdin.end()
  })

const write = (dir: string, name: string, lines: ReadonlyArray<string>) => {
  fs.mkdirSync(path.join(outDir, dir), { recursive: true })
  fs.writeFileSync(path.join(outDir, dir, name), lines.join("\n") + "\n")
  console.log(`${dir}/${name}: ${lines.length} lines`)
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
  JSON.stringify({ type: "user", message: { role: "user", content: [{ type: "text", text }] }, parent_tool_use_id: null, session_id: "" }) + "\n"

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
    : { behavior: "deny", message: "The user denied this request." }
  send(JSON.stringify({ type: "control_response", response: { subtype: "success", request_id: line["request_id"], response } }) + "\n")
}

const recordClaude = async (mock: MockModel, claude: string) => {
  const home = fs.mkdtempSync(path.join(scratch, "claude-"))
  const cwd = fs.mkdtempSync(path.join(scratch, "claude-project-"))
  const env = claudeEnv(mock, home)
  const base = ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--permission-prompt-tool", "stdio", "--model", "claude-sonnet-4-6"]
  const once = (name: string, prompt: string, extra: ReadonlyArray<string> = [], behavior: "allow" | "deny" = "allow") =>
    run(claude, [...base, ...extra], env, cwd, [userTurn(prompt)], claudeDriver(behavior)).then((lines) => {
      write("claude", name, lines)
      return lines
    })
  const hello = await once("claude-raw-hello.jsonl", "Say hello")
  const sessionId = String(record(JSON.parse(hello[0] ?? "{}"))["session_id"] ?? "")
  await once("claude-raw-resume.jsonl", "And again", ["--resume", sessionId])
  await once("claude-raw-compact.jsonl", "/compact", ["--resume", sessionId])
  await once("claude-raw-stdio-permission.jsonl", "RUN_TOOL[touch recorded.txt]")
  await once("claude-raw-stdio-deny.jsonl", "RUN_TOOL[touch denied.txt]", [], "deny")
  await once("claude-raw-stdio-askuser.jsonl", "ASK_USER")
  await once("claude-raw-stdio-plan.jsonl", "PLAN_EXIT", ["--permission-mode", "plan"])
  await once("claude-raw-api-retry.jsonl", `FAIL_TWICE ${Date.now()}`)
  await once("claude-raw-api-error.jsonl", "FAIL_HARD")
}

// ---- Codex exec --------------------------------------------------------------------------------

const recordCodexExec = async (mock: MockModel, codex: string) => {
  const home = fs.mkdtempSync(path.join(scratch, "codex-"))
  const cwd = fs.mkdtempSync(path.join(scratch, "codex-project-"))
  fs.writeFileSync(path.join(home, "config.toml"), [
    `model = "mock-model"`, `model_provider = "mock"`, `[model_providers.mock]`, `name = "Mock"`, `base_url = "${mock.url}/v1"`,
    `env_key = "MOCK_API_KEY"`, `wire_api = "responses"`, `request_max_retries = 0`, `stream_max_retries = 3`, `[analytics]`, `enabled = false`, ""
  ].join("\n"))
  const env = { CODEX_HOME: home, MOCK_API_KEY: "mock" }
  const exec = (name: string, args: ReadonlyArray<string>) =>
    run(process.execPath, [codex, "exec", ...args], env, cwd, [], () => undefined).then((lines) => {
      write("codex", name, lines)
      return lines
    })
  const common = ["--skip-git-repo-check", "-c", `sandbox_mode="danger-full-access"`]
  const hello = await exec("codex-exec-raw-hello.jsonl", ["--json", ...common, "Say hello"])
  const threadId = String(record(JSON.parse(hello[0] ?? "{}"))["thread_id"] ?? "")
  await exec("codex-exec-raw-resume.jsonl", ["resume", "--json", ...common, threadId, "And again"])
  await exec("codex-exec-raw-tool.jsonl", ["--json", ...common, "RUN_TOOL[echo recorded]"])
  await exec("codex-exec-raw-tool-error.jsonl", ["--json", ...common, "RUN_TOOL[ls /nonexistent]"])
  await exec("codex-exec-raw-retry.jsonl", ["--json", ...common, `FAIL_TWICE ${Date.now()}`])
  await exec("codex-exec-raw-error.jsonl", ["--json", ...common, "FAIL_HARD"])
  await exec("codex-exec-raw-slash-compact.jsonl", ["resume", "--json", ...common, threadId, "/compact"])
}

const main = async () => {
  const binaries = runtimeBinaries()
  const mock = await startMockModel()
  try {
    if (binaries.claude === undefined) console.warn("claude: not installed, skipped")
    else await recordClaude(mock, binaries.claude)
    if (binaries.codex === undefined) console.warn("codex: not installed, skipped")
    else await recordCodexExec(mock, binaries.codex)
  } finally {
    await mock.close()
    fs.rmSync(scratch, { recursive: true, force: true })
  }
}

await main()
