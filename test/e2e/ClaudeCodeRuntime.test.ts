/**
 * Runtime A for real: the pinned `claude` binary run by `trellis agent start` against the mock
 * model, threads created and answered over MCP, permission and question requests answered
 * through the interaction bridge as a client does.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { QUESTION } from "../support/mock-model/Script.js"
import {
  answer,
  askedBy,
  createThread,
  eventsOf,
  hasPendingInteraction,
  pendingInteraction,
  realRuntimeSuite,
  resumeSafetyScenarios,
  retryThread,
  settledMessages
} from "./support/RealRuntimes.js"
import { anthropicSystem, threadContextScenarios } from "./support/ThreadContextScenarios.js"

const TEST_TIMEOUT = 120_000

describe.sequential("runtime A (claude) for real through trellis agent start", () => {
  const suite = realRuntimeSuite("claude", ["--interaction-timeout", "8"], ["claude"])
  const checkoutHas = (file: string) => fs.existsSync(path.join(suite.machine().checkout, file))

  it("a thread created over MCP runs claude in the checkout with the thread's model and effort; events stream normalized", async () => {
    const { answer: first } = await suite.start("claude", "hello from the real claude test", {
      cliModel: "claude-sonnet-4-6",
      cliEffort: "high"
    })
    expect([first.status, first.text]).toEqual(["completed", "Mock reply: hello from the real claude test"])
    expect(suite.requestsWith("hello from the real claude test")[0]?.body).toMatchObject({
      model: "claude-sonnet-4-6",
      output_config: { effort: "high" }
    })
    expect((await eventsOf(suite, first.messageId, "text")).find((e) => e.event.kind === "text")?.event.text).toBe(
      "Mock reply: hello from the real claude test"
    )
  }, TEST_TIMEOUT)

  it("a second message resumes the runtime session: the model is sent the earlier turn", async () => {
    expect((await suite.turn("and a second message")).text).toBe("Mock reply: and a second message")
    expect(JSON.stringify(suite.requestsWith("and a second message")[0]?.body)).toContain("hello from the real claude test")
  }, TEST_TIMEOUT)

  resumeSafetyScenarios(suite, "claude", () => {
    const projects = path.join(suite.machine().home, ".claude", "projects")
    const sessions = fs.readdirSync(projects, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".jsonl"))
    expect(sessions.length).toBeGreaterThan(0)
    for (const file of sessions) fs.rmSync(path.join(projects, file))
  })

  // After resume safety: the held run's command in a fresh session's summary would run again.
  threadContextScenarios(suite, {
    cliType: "claude",
    isRuntime: (argv) => path.basename(argv[0] ?? "") === "claude",
    instructions: anthropicSystem,
    instructionsName: "Claude's appended system prompt",
    threadIdIn: "environment"
  })

  it("a permission request becomes a pending interaction with the full command; allowed, the command runs", async () => {
    const asked = await askedBy(suite, "RUN_TOOL[touch allowed.txt]")
    expect(asked).toMatchObject({
      kind: "permission",
      status: "pending",
      request: { tool: "Bash", input: { command: "touch allowed.txt" } }
    })
    expect(await hasPendingInteraction(suite)).toBe(true)
    await answer(suite, asked.interactionId, { answer: { reply: "once" } })
    // Answering twice is harmless: the first answer stands.
    expect((await answer(suite, asked.interactionId, { deny: true })).status).toBe("answered")
    const done = await suite.answer()
    expect([done.status, done.text.includes("Tool finished. Output was: (Bash completed with no output)")]).toEqual(["completed", true])
    expect(checkoutHas("allowed.txt")).toBe(true)
    expect(await hasPendingInteraction(suite)).toBe(false)
  }, TEST_TIMEOUT)

  it("denied, the runtime is told so and nothing runs", async () => {
    const asked = await askedBy(suite, "RUN_TOOL[touch denied.txt]")
    await answer(suite, asked.interactionId, { deny: true, answer: { message: "Not in this repository." } })
    expect((await suite.answer()).text).toContain("Tool finished. Output was: Not in this repository.")
    expect(checkoutHas("denied.txt")).toBe(false)
  }, TEST_TIMEOUT)

  it("unanswered, the request expires after the timeout and the runtime is told it expired, not that it was denied", async () => {
    const asked = await askedBy(suite, "RUN_TOOL[touch expired.txt]")
    expect((await suite.answer()).text).toContain(
      "Tool finished. Output was: Nobody answered this request in time, so it expired. This is not a refusal"
    )
    expect(checkoutHas("expired.txt")).toBe(false)
    expect((await answer(suite, asked.interactionId, { answer: { reply: "once" } })).status).toBe("expired")
  }, TEST_TIMEOUT)

  it("a question (AskUserQuestion) is answered through the bridge and the runtime gets the chosen option", async () => {
    const asked = await askedBy(suite, "ASK_USER about colors")
    expect(asked).toMatchObject({ kind: "question", request: { tool: "AskUserQuestion", questions: [{ question: QUESTION }] } })
    await answer(suite, asked.interactionId, { answer: [["Blue"]] })
    expect((await suite.answer()).text).toContain(`"${QUESTION}"="Blue"`)
  }, TEST_TIMEOUT)

  it("/compact as a runtime command compacts the runtime session", async () => {
    const done = await suite.turn("/compact", { runtimeCommand: true })
    expect(done.status).toBe("completed")
    expect((await eventsOf(suite, done.messageId, "context-compaction")).some((e) => e.event.kind === "context-compaction")).toBe(true)
  }, TEST_TIMEOUT)

  it("a transient API error (two overloads) is retried: runtime-notice events, then the answer", async () => {
    const done = await suite.turn("FAIL_TWICE then answer")
    expect([done.status, done.text]).toEqual(["completed", "Mock reply: FAIL_TWICE then answer"])
    expect(suite.requestsWith("FAIL_TWICE then answer").map((r) => r.plan?.kind)).toEqual(["error", "error", "text"])
    expect((await eventsOf(suite, done.messageId, "runtime-notice")).filter((e) => e.event.kind === "runtime-notice").length)
      .toBeGreaterThanOrEqual(1)
  }, TEST_TIMEOUT)

  it("a hard API error fails the message with the error, and the thread can retry it", async () => {
    const done = await suite.turn("FAIL_HARD please")
    expect(done.status).toBe("failed")
    expect(done.errorMessage).toContain("Mock hard failure")
    await retryThread(suite.backend(), suite.threadId())
    // The retry runs the same message again: it fails the same way, as a new attempt.
    await suite.answer()
    expect(suite.requestsWith("FAIL_HARD please").length).toBeGreaterThanOrEqual(2)
  }, TEST_TIMEOUT)

  it("a thread in plan mode asks to leave it with its plan (ExitPlanMode); approved, the runtime carries on", async () => {
    const planThread = await createThread(suite.backend(), suite.target(), "claude", "PLAN_EXIT for the summary", { cliMode: "plan" })
    const asked = await pendingInteraction(suite.backend(), planThread, suite.agent())
    expect(asked).toMatchObject({
      kind: "permission",
      request: { tool: "ExitPlanMode", input: { plan: expect.stringContaining("Read the README") } }
    })
    await answer(suite, asked.interactionId, { answer: { reply: "once" } })
    const done = (await settledMessages(suite.backend(), planThread, 2, suite.agent())).at(-1)
    expect(done?.status).toBe("completed")
    expect(done?.text).toContain("Tool finished. Output was: User has approved your plan.")
  }, TEST_TIMEOUT)
})
