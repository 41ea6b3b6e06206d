/**
 * Runtime B with `trellis agent start --codex-exec`: the pinned `codex exec --json` against the
 * mock model. Exec has no interactive approvals and hides API retries (RUNTIMES.md §3.2).
 */
import { describe, expect, it } from "@effect/vitest"
import { forgetCodexSessions, realRuntimeSuite, resumeSafetyScenarios } from "./support/RealRuntimes.js"
import { responsesDeveloper, threadContextScenarios } from "./support/ThreadContextScenarios.js"
import { readEvents } from "./support/Trellis.js"

const TEST_TIMEOUT = 120_000

describe.sequential("runtime B (codex exec) for real through trellis agent start --codex-exec", () => {
  const suite = realRuntimeSuite("codex-exec", ["--codex-exec"], ["codex"])

  it("a thread runs codex exec --json with the thread's model and effort; events stream normalized", async () => {
    const { answer, threadId } = await suite.start("codex", "hello from codex exec", { cliModel: "mock-model", cliEffort: "high" })
    expect([answer.status, answer.text]).toEqual(["completed", "Mock reply: hello from codex exec"])
    expect(suite.requestsWith("hello from codex exec")[0]?.body).toMatchObject({ model: "mock-model", reasoning: { effort: "high" } })
    const events = await readEvents(suite.backend().serve, threadId, (read) => read.some((e) => e.event.kind === "text"))
    expect(events.some((e) => e.event.kind === "metadata")).toBe(true)
  }, TEST_TIMEOUT)

  it("a second message is codex exec resume of the session: the model is sent the earlier turn", async () => {
    const answer = await suite.turn("second exec message")
    expect(answer.text).toBe("Mock reply: second exec message")
    expect(JSON.stringify(suite.requestsWith("second exec message")[0]?.body)).toContain("hello from codex exec")
  }, TEST_TIMEOUT)

  resumeSafetyScenarios(suite, "codex", forgetCodexSessions(suite))

  // After resume safety: the held run's command in a fresh session's summary would run again.
  threadContextScenarios(suite, {
    cliType: "codex",
    isRuntime: (argv) => argv.includes("exec") && argv.some((arg) => arg.includes("codex")),
    instructions: responsesDeveloper,
    instructionsName: "Codex's developer instructions",
    threadIdIn: "environment"
  })

  it("a transient API error is retried by codex (silently in exec) and the message completes", async () => {
    const answer = await suite.turn("FAIL_TWICE in exec")
    expect([answer.status, answer.text]).toEqual(["completed", "Mock reply: FAIL_TWICE in exec"])
    expect(suite.requestsWith("FAIL_TWICE in exec").map((r) => r.plan?.kind)).toEqual(["error", "error", "text"])
  }, TEST_TIMEOUT)

  it("a hard API error fails the message with the error", async () => {
    const answer = await suite.turn("FAIL_HARD in exec")
    expect(answer.status).toBe("failed")
    expect(answer.errorMessage).toContain("Mock hard failure")
  }, TEST_TIMEOUT)
})
