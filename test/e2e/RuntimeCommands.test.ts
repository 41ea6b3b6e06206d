/**
 * SPEC "Unrecognized commands": a runtime command the runtime does not know fails the run on
 * runtime C (OpenCode) and is ordinary text to runtime B (Codex), which runs only `/compact`.
 * The real binaries against the mock model, through `trellis agent start`.
 */
import { describe, expect, it } from "@effect/vitest"
import { realRuntimeSuite, sharedBackend } from "./support/RealRuntimes.js"

const TEST_TIMEOUT = 120_000
const backend = sharedBackend()

describe.sequential("runtime B (Codex): an unknown runtime command", () => {
  const suite = realRuntimeSuite("codex-commands", [], ["codex"], backend)

  it("is sent to the model as ordinary text, and the run completes", async () => {
    await suite.start("codex", "hello before the command")
    const done = await suite.turn("/no-such-command with words", { runtimeCommand: true })
    expect([done.status, done.text]).toEqual(["completed", "Mock reply: /no-such-command with words"])
  }, TEST_TIMEOUT)
})

describe.sequential("runtime C (OpenCode): an unknown runtime command", () => {
  const suite = realRuntimeSuite("opencode-commands", [], ["opencode"], backend)

  it("fails the run with an error, and the model is never asked", async () => {
    await suite.start("opencode", "hello before the command")
    const done = await suite.turn("/no-such-command with words", { runtimeCommand: true })
    expect(done.status).toBe("failed")
    expect(done.errorMessage).toBeTruthy()
    expect(suite.requestsWith("no-such-command")).toEqual([])
  }, TEST_TIMEOUT)
})
