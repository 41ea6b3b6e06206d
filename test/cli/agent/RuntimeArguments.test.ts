import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { claudeArguments } from "../../../cli/agent/runtimes/ClaudeCode.js"
import { codexThreadConfig } from "../../../cli/agent/runtimes/CodexAppServer.js"
import { codexExecArguments } from "../../../cli/agent/runtimes/CodexExec.js"
import { systemPrompt } from "../../../cli/agent/runtimes/OpenCode.js"
import { type BatchInput, MCP_TOKEN_VARIABLE } from "../../../cli/agent/runtimes/Runtime.js"

const KEY = "trellis_k3y-ThAt-mUst-n0t-leak"
const input: BatchInput = {
  threadId: "thread_0123456789abcdef",
  cwd: "/work/checkout",
  messages: [{ messageId: "m1", content: "hello", runtimeCommand: false }],
  runtimeSessionId: null,
  model: "mock-model",
  effort: "high",
  mode: null,
  agentPrompt: "You are the release agent.",
  mcp: { url: "http://127.0.0.1:4000/api/mcp?project=proj_1", apiKey: KEY },
  history: Effect.succeed([]),
  ask: () => Effect.succeed({ _tag: "Expired" }),
  stopRequested: Effect.never
}

// The real-runtime suites (test/e2e/*Runtime.test.ts) check the running processes; these check the arguments built.
describe("the MCP key is on no runtime's command line: the config names the variable holding it", () => {
  it("claude: --mcp-config's Authorization header is Bearer ${TRELLIS_MCP_TOKEN}, which Claude expands", () => {
    const args = claudeArguments(input, { _tag: "New", id: "0b8c8d6e-5b7e-4a39-9b0c-2f9f2c6f3a11" })
    expect(args.join(" ")).not.toContain(KEY)
    const config: unknown = JSON.parse(args[args.indexOf("--mcp-config") + 1] ?? "{}")
    expect(config).toEqual({
      mcpServers: { trellis: { type: "http", url: input.mcp.url, headers: { Authorization: `Bearer \${${MCP_TOKEN_VARIABLE}}` } } }
    })
  })

  it("codex exec and codex app-server: mcp_servers.trellis.bearer_token_env_var names TRELLIS_MCP_TOKEN", () => {
    const exec = codexExecArguments(input, "hello")
    expect(exec.join(" ")).not.toContain(KEY)
    expect(exec).toContain(`mcp_servers.trellis.bearer_token_env_var="${MCP_TOKEN_VARIABLE}"`)
    const thread = codexThreadConfig(input)
    expect(JSON.stringify(thread)).not.toContain(KEY)
    expect(thread.config).toEqual({ mcp_servers: { trellis: { url: input.mcp.url, bearer_token_env_var: MCP_TOKEN_VARIABLE } } })
  })
})

describe("create_thread rule 7: runtime C receives the thread ID in its prompt", () => {
  it("the system prompt of every OpenCode message names the thread, then gives the project agent's prompt", () => {
    const system = systemPrompt(input.threadId, input.agentPrompt)
    expect(system).toContain(`Trellis thread ${input.threadId} (SERVICE_THREAD_ID)`)
    expect(system.endsWith("\n\nYou are the release agent.")).toBe(true)
    expect(systemPrompt(input.threadId, null)).toContain(input.threadId)
    expect(systemPrompt(input.threadId, "")).not.toContain("\n\n")
  })
})
