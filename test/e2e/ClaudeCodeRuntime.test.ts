/**
 * Runtime A for real: the pinned `claude` binary run by `trellis agent start` against the mock
 * model, threads created and answered over MCP, permission and question requests answered
 * through the interaction bridge as a client does.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { type MockModel, startMockModel } from "../support/mock-model/MockModel.js"
import { QUESTION } from "../support/mock-model/Script.js"
import { killEverything, removeTempDirs } from "./support/Processes.js"
import {
  answerInteraction,
  type Backend,
  createThread,
  type Machine,
  onlineTarget,
  pendingInteraction,
  realMachine,
  retryThread,
  send,
  settledMessages,
  startBackend,
  startRealAgent,
  ThreadState
} from "./support/RealRuntimes.js"
import { type Agent, type CliProfile, readEvents } from "./support/Trellis.js"

const TEST_TIMEOUT = 120_000
/** Seconds an interaction waits before it expires: short, so the expiry case is quick. */
const INTERACTION_TIMEOUT_S = 8

describe.sequential("runtime A (claude) for real through trellis agent start", () => {
  let mock: MockModel
  let backend: Backend
  let machine: Machine
  let agent: Agent
  let target: { readonly profile: CliProfile; readonly pathId: string }
  let threadId = ""
  let messageCount = 0

  beforeAll(async () => {
    mock = await startMockModel()
    backend = await startBackend()
    machine = await realMachine(backend, mock, "claude")
    agent = await startRealAgent(machine, ["--interaction-timeout", String(INTERACTION_TIMEOUT_S)])
    target = await onlineTarget(backend, machine, agent)
  }, 180_000)

  afterAll(async () => {
    await backend?.mcp.close()
    await killEverything()
    await mock?.close()
    removeTempDirs()
  }, 30_000)

  /** Sends a message on the shared thread and waits for its answer. */
  const turn = async (content: string, extra: Record<string, unknown> = {}) => {
    await send(backend, threadId, content, extra)
    messageCount += 2
    const messages = await settledMessages(backend, threadId, messageCount, agent)
    const answer = messages.at(-1)
    if (answer === undefined) throw new Error("no answer")
    return answer
  }

  const requestsWith = (text: string) => mock.requests.filter((r) => r.conversation?.lastUserText.includes(text) === true)

  it("a thread created over MCP runs claude in the checkout with the thread's model and effort; events stream normalized", async () => {
    threadId = await createThread(backend, target, "claude", "hello from the real claude test", { cliModel: "claude-sonnet-4-6", cliEffort: "high" })
    messageCount = 2
    const [question, answer] = await settledMessages(backend, threadId, 2, agent)
    expect([question?.status, answer?.status, answer?.text]).toEqual(["completed", "completed", "Mock reply: hello from the real claude test"])

    const [request] = requestsWith("hello from the real claude test")
    expect(request?.body).toMatchObject({ model: "claude-sonnet-4-6", output_config: { effort: "high" } })
    const events = await readEvents(backend.serve, threadId, (read) => read.some((e) => e.event.kind === "text"))
    expect(events.find((e) => e.event.kind === "text")?.event.text).toBe("Mock reply: hello from the real claude test")
  }, TEST_TIMEOUT)

  it("a second message resumes the runtime session: the model is sent the earlier turn", async () => {
    const answer = await turn("and a second message")
    expect(answer.text).toBe("Mock reply: and a second message")
    const [request] = requestsWith("and a second message")
    expect(JSON.stringify(request?.body)).toContain("hello from the real claude test")
  }, TEST_TIMEOUT)

  it("a runtime session claude no longer has is started fresh with the earlier messages summarised, and a warning says so", async () => {
    const projects = path.join(machine.home, ".claude", "projects")
    const sessions = fs.readdirSync(projects, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".jsonl"))
    expect(sessions.length).toBeGreaterThan(0)
    for (const file of sessions) fs.rmSync(path.join(projects, file))

    const answer = await turn("after the session was lost")
    expect([answer.status, answer.text]).toEqual(["completed", "Mock reply: after the session was lost"])
    const [request] = requestsWith("after the session was lost")
    const sent = JSON.stringify(request?.body)
    expect(sent).toContain("could not be resumed, so this is a fresh session")
    expect(sent).toContain("User: hello from the real claude test")
    expect(sent).toContain("Assistant: Mock reply: and a second message")
    const events = await readEvents(backend.serve, threadId, (read) => read.some((e) => e.messageId === answer.messageId && e.event.kind === "warning"))
    expect(events.filter((e) => e.messageId === answer.messageId).map((e) => e.event.kind)).toContain("warning")
    // The lost session's error lines were not streamed.
    expect(events.filter((e) => e.messageId === answer.messageId && e.event.kind === "metadata").length).toBeGreaterThan(0)
  }, TEST_TIMEOUT)

  it("a permission request becomes a pending interaction with the full command; allowed, the command runs", async () => {
    await send(backend, threadId, "RUN_TOOL[touch allowed.txt]")
    messageCount += 2
    const asked = await pendingInteraction(backend, threadId, agent)
    expect(asked).toMatchObject({ kind: "permission", status: "pending", request: { tool: "Bash", input: { command: "touch allowed.txt" } } })
    const thread = await backend.mcp.call(ThreadState, "get_thread", { threadId })
    expect(thread.hasPendingInteraction).toBe(true)
    await answerInteraction(backend, asked.interactionId, { answer: { reply: "once" } })
    // Answering twice is harmless: the first answer stands.
    expect((await answerInteraction(backend, asked.interactionId, { deny: true })).status).toBe("answered")

    const answer = (await settledMessages(backend, threadId, messageCount, agent)).at(-1)
    expect(answer?.status).toBe("completed")
    expect(answer?.text).toContain("Tool finished. Output was: (Bash completed with no output)")
    expect(fs.existsSync(path.join(machine.checkout, "allowed.txt"))).toBe(true)
    expect((await backend.mcp.call(ThreadState, "get_thread", { threadId })).hasPendingInteraction).toBe(false)
  }, TEST_TIMEOUT)

  it("denied, the runtime is told so and nothing runs", async () => {
    await send(backend, threadId, "RUN_TOOL[touch denied.txt]")
    messageCount += 2
    const asked = await pendingInteraction(backend, threadId, agent)
    await answerInteraction(backend, asked.interactionId, { deny: true, answer: { message: "Not in this repository." } })
    const answer = (await settledMessages(backend, threadId, messageCount, agent)).at(-1)
    expect(answer?.text).toContain("Tool finished. Output was: Not in this repository.")
    expect(fs.existsSync(path.join(machine.checkout, "denied.txt"))).toBe(false)
  }, TEST_TIMEOUT)

  it("unanswered, the request expires after the timeout and the runtime is told it expired, not that it was denied", async () => {
    await send(backend, threadId, "RUN_TOOL[touch expired.txt]")
    messageCount += 2
    const asked = await pendingInteraction(backend, threadId, agent)
    const answer = (await settledMessages(backend, threadId, messageCount, agent)).at(-1)
    expect(answer?.text).toContain("Tool finished. Output was: Nobody answered this request in time, so it expired. This is not a refusal")
    expect(fs.existsSync(path.join(machine.checkout, "expired.txt"))).toBe(false)
    const late = await answerInteraction(backend, asked.interactionId, { answer: { reply: "once" } })
    expect(late.status).toBe("expired")
  }, TEST_TIMEOUT)

  it("a question (AskUserQuestion) is answered through the bridge and the runtime gets the chosen option", async () => {
    await send(backend, threadId, "ASK_USER about colors")
    messageCount += 2
    const asked = await pendingInteraction(backend, threadId, agent)
    expect(asked).toMatchObject({ kind: "question", request: { tool: "AskUserQuestion", questions: [{ question: QUESTION }] } })
    await answerInteraction(backend, asked.interactionId, { answer: [["Blue"]] })
    const answer = (await settledMessages(backend, threadId, messageCount, agent)).at(-1)
    expect(answer?.text).toContain(`"${QUESTION}"="Blue"`)
  }, TEST_TIMEOUT)

  it("/compact as a runtime command compacts the runtime session", async () => {
    const answer = await turn("/compact", { runtimeCommand: true })
    expect(answer.status).toBe("completed")
    const events = await readEvents(backend.serve, threadId, (read) => read.some((e) => e.event.kind === "context-compaction"))
    expect(events.some((e) => e.event.kind === "context-compaction")).toBe(true)
  }, TEST_TIMEOUT)

  it("a transient API error (two overloads) is retried: runtime-notice events, then the answer", async () => {
    const answer = await turn("FAIL_TWICE then answer")
    expect([answer.status, answer.text]).toEqual(["completed", "Mock reply: FAIL_TWICE then answer"])
    expect(requestsWith("FAIL_TWICE then answer").map((r) => r.plan?.kind)).toEqual(["error", "error", "text"])
    const events = await readEvents(backend.serve, threadId, (read) => read.filter((e) => e.messageId === answer.messageId && e.event.kind === "runtime-notice").length >= 2)
    expect(events.filter((e) => e.messageId === answer.messageId && e.event.kind === "runtime-notice").length).toBeGreaterThanOrEqual(2)
  }, TEST_TIMEOUT)

  it("a hard API error fails the message with the error, and the thread can retry it", async () => {
    const answer = await turn("FAIL_HARD please")
    expect(answer.status).toBe("failed")
    expect(answer.errorMessage).toContain("Mock hard failure")
    await retryThread(backend, threadId)
    // The retry runs the same message again: it fails the same way, as a new attempt.
    await settledMessages(backend, threadId, messageCount, agent)
    expect(requestsWith("FAIL_HARD please").length).toBeGreaterThanOrEqual(2)
  }, TEST_TIMEOUT)

  it("a thread in plan mode asks to leave it with its plan (ExitPlanMode); approved, the runtime carries on", async () => {
    const planThread = await createThread(backend, target, "claude", "PLAN_EXIT for the summary", { cliMode: "plan" })
    const asked = await pendingInteraction(backend, planThread, agent)
    expect(asked).toMatchObject({ kind: "permission", request: { tool: "ExitPlanMode", input: { plan: expect.stringContaining("Read the README") } } })
    await answerInteraction(backend, asked.interactionId, { answer: { reply: "once" } })
    const answer = (await settledMessages(backend, planThread, 2, agent)).at(-1)
    expect(answer?.status).toBe("completed")
    expect(answer?.text).toContain("Tool finished. Output was: User has approved your plan.")
  }, TEST_TIMEOUT)
})
