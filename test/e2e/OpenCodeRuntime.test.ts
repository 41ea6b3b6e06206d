/**
 * Runtime C for real: the pinned `opencode` binary (`opencode serve` driven through the SDK) run
 * by `trellis agent start` against the mock model (Chat Completions), permissions and questions
 * answered through the interaction bridge as a client does.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { answer, askedBy, compactionAndApiErrorScenarios, eventsOf, hasPendingInteraction, realRuntimeSuite } from "./support/RealRuntimes.js"

const TEST_TIMEOUT = 120_000

// Quarantined: runtime C's batches do not yet end reliably (a run can hang, even the first one;
// issue 7 is open for it). The whole suite is kept, skipped, until they do.
const QUARANTINED = "quarantined: a batch can hang (issue 7)"

describe.skip("runtime C (opencode) for real through trellis agent start", () => {
  const suite = realRuntimeSuite("opencode", ["--interaction-timeout", "8"])
  const checkoutHas = (file: string) => fs.existsSync(path.join(suite.machine().checkout, file))

  it("a thread created over MCP runs opencode serve in the checkout with the thread's model and effort (variant); events stream normalized", async () => {
    const { answer: first } = await suite.start("opencode", "hello from the real opencode test", { cliModel: "mock/mock-model", cliEffort: "high" })
    expect([first.status, first.text]).toEqual(["completed", "Mock reply: hello from the real opencode test"])
    expect(suite.requestsWith("hello from the real opencode test").at(-1)?.body).toMatchObject({ model: "mock-model", reasoning_effort: "high" })
    expect((await eventsOf(suite, first.messageId, "text")).some((e) => e.event.kind === "text")).toBe(true)
  }, TEST_TIMEOUT)

  it("a second message reuses the runtime session: the model is sent the earlier turn", async () => {
    expect((await suite.turn("and a second message")).text).toBe("Mock reply: and a second message")
    expect(JSON.stringify(suite.requestsWith("and a second message").at(-1)?.body)).toContain("hello from the real opencode test")
  }, TEST_TIMEOUT)

  it("permission.asked becomes a pending interaction with the full command; allowed once, the command runs", async () => {
    const asked = await askedBy(suite, "RUN_TOOL[touch allowed.txt]")
    expect(asked).toMatchObject({ kind: "permission", status: "pending", request: { tool: "bash", metadata: { command: "touch allowed.txt" } } })
    expect(await hasPendingInteraction(suite)).toBe(true)
    await answer(suite, asked.interactionId, { answer: { reply: "once" } })
    const done = await suite.answer()
    expect([done.status, done.text.includes("Tool finished. Output was:")]).toEqual(["completed", true])
    expect(checkoutHas("allowed.txt")).toBe(true)
  }, TEST_TIMEOUT)

  it("rejected, the command does not run", async () => {
    const asked = await askedBy(suite, "RUN_TOOL[touch denied.txt]")
    await answer(suite, asked.interactionId, { deny: true })
    expect((await suite.answer()).status).toBe("completed")
    expect(checkoutHas("denied.txt")).toBe(false)
  }, TEST_TIMEOUT)

  it("unanswered, the request expires after the timeout (expired, not denied, on the thread) and the command does not run", async () => {
    const asked = await askedBy(suite, "RUN_TOOL[touch expired.txt]")
    expect((await suite.answer()).status).toBe("completed")
    expect(checkoutHas("expired.txt")).toBe(false)
    expect((await answer(suite, asked.interactionId, { answer: { reply: "once" } })).status).toBe("expired")
  }, TEST_TIMEOUT)

  it("question.asked is answered through the bridge and the runtime gets the chosen option", async () => {
    const asked = await askedBy(suite, "ASK_USER about colors")
    expect(asked).toMatchObject({ kind: "question", request: { tool: "question" } })
    await answer(suite, asked.interactionId, { answer: [["Blue"]] })
    expect((await suite.answer()).text).toContain("Blue")
  }, TEST_TIMEOUT)

  describe(QUARANTINED, () => compactionAndApiErrorScenarios(suite, "session.summarize"))
})
