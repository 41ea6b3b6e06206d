/**
 * Stop for real (issue 28 §3): each runtime, run by `trellis agent start --approve all` against the
 * mock model, stops a turn that is running `sleep` the runtime's own way — Claude Code's
 * interrupt, Codex's turn/interrupt, OpenCode's session abort — and `codex exec`, which has none,
 * by ending the process.
 */
import { describe } from "@effect/vitest"
import { realRuntimeSuite, sharedBackend } from "./support/RealRuntimes.js"
import { stopScenario } from "./support/StopScenario.js"

const backend = sharedBackend()

describe.sequential("Stop on Claude Code", () => {
  stopScenario(
    realRuntimeSuite("stop-claude", ["--approve", "all"], ["claude"], backend),
    "Claude Code",
    "claude",
    "41.1",
    "--permission-prompt-tool"
  )
})

describe.sequential("Stop on Codex (app-server)", () => {
  stopScenario(realRuntimeSuite("stop-codex", ["--approve", "all"], ["codex"], backend), "Codex", "codex", "41.2", "app-server")
})

describe.sequential("Stop on OpenCode", () => {
  stopScenario(realRuntimeSuite("stop-opencode", ["--approve", "all"], ["opencode"], backend), "OpenCode", "opencode", "41.3")
})

describe.sequential("Stop on codex exec", () => {
  stopScenario(
    realRuntimeSuite("stop-codex-exec", ["--approve", "all", "--codex-exec"], ["codex"], backend),
    "codex exec",
    "codex",
    "41.4",
    "--json"
  )
})
