/**
 * Runtime B for real: the pinned `codex` binary (`codex app-server`) run by `trellis agent start`
 * against the mock model, threads created and answered over MCP, approvals answered through the
 * interaction bridge as a client does.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import {
  answer,
  askedBy,
  compactionAndApiErrorScenarios,
  eventsOf,
  forgetCodexSessions,
  hasPendingInteraction,
  realRuntimeSuite,
  resumeSafetyScenarios
} from "./support/RealRuntimes.js"
import { responsesDeveloper, threadContextScenarios } from "./support/ThreadContextScenarios.js"

const TEST_TIMEOUT = 120_000

describe.sequential("runtime B (codex app-server) for real through trellis agent start", () => {
  const suite = realRuntimeSuite("codex", ["--interaction-timeout", "8"], ["codex"])
  const checkoutHas = (file: string) => fs.existsSync(path.join(suite.machine().checkout, file))

  it(
    "a thread created over MCP runs codex app-server in the checkout with the thread's model and effort; events stream normalized",
    async () => {
      const { answer: first } = await suite.start("codex", "hello from the real codex test", { cliModel: "mock-model", cliEffort: "high" })
      expect([first.status, first.text]).toEqual(["completed", "Mock reply: hello from the real codex test"])
      expect(suite.requestsWith("hello from the real codex test")[0]?.body).toMatchObject({
        model: "mock-model",
        reasoning: { effort: "high" }
      })
      expect((await eventsOf(suite, first.messageId, "text")).some((e) => e.event.kind === "text")).toBe(true)
    },
    TEST_TIMEOUT
  )

  it("a second message resumes the runtime session: the model is sent the earlier turn", async () => {
    expect((await suite.turn("and a second message")).text).toBe("Mock reply: and a second message")
    expect(JSON.stringify(suite.requestsWith("and a second message")[0]?.body)).toContain("hello from the real codex test")
  }, TEST_TIMEOUT)

  resumeSafetyScenarios(suite, "codex", forgetCodexSessions(suite))

  // After resume safety: the held run's command in a fresh session's summary would run again.
  threadContextScenarios(suite, {
    cliType: "codex",
    isRuntime: (argv) => argv.includes("app-server"),
    instructions: responsesDeveloper,
    instructionsName: "Codex's developer instructions",
    threadIdIn: "environment"
  })

  it("a command approval becomes a pending interaction with the full command; allowed, the command runs", async () => {
    const asked = await askedBy(suite, "RUN_TOOL[touch allowed.txt]")
    expect(asked).toMatchObject({
      kind: "permission",
      status: "pending",
      request: { tool: "command", command: expect.stringContaining("touch allowed.txt") }
    })
    expect(await hasPendingInteraction(suite)).toBe(true)
    await answer(suite, asked.interactionId, { answer: { decision: "accept" } })
    const done = await suite.answer()
    expect([done.status, done.text.includes("Tool finished. Output was:")]).toEqual(["completed", true])
    expect(checkoutHas("allowed.txt")).toBe(true)
  }, TEST_TIMEOUT)

  it("denied, the command does not run", async () => {
    const asked = await askedBy(suite, "RUN_TOOL[touch denied.txt]")
    await answer(suite, asked.interactionId, { deny: true })
    expect((await suite.answer()).status).toBe("completed")
    expect(checkoutHas("denied.txt")).toBe(false)
  }, TEST_TIMEOUT)

  it("denied with a message, the command does not run and the message reaches the model (steered into the turn)", async () => {
    const asked = await askedBy(suite, "RUN_TOOL[touch refused.txt]")
    await answer(suite, asked.interactionId, { deny: true, answer: { message: "not on this machine, please" } })
    expect((await suite.answer()).status).toBe("completed")
    expect(checkoutHas("refused.txt")).toBe(false)
    expect(suite.mock().requests.some((r) => JSON.stringify(r.body).includes("My reason: not on this machine, please"))).toBe(true)
  }, TEST_TIMEOUT)

  it("unanswered, the request expires after the timeout (expired, not denied, on the thread) and the command does not run", async () => {
    const asked = await askedBy(suite, "RUN_TOOL[touch expired.txt]")
    expect((await suite.answer()).status).toBe("completed")
    expect(checkoutHas("expired.txt")).toBe(false)
    expect((await answer(suite, asked.interactionId, { answer: { decision: "accept" } })).status).toBe("expired")
  }, TEST_TIMEOUT)

  compactionAndApiErrorScenarios(suite, "thread/compact/start")
})
