/**
 * Runtime C for real: the pinned `opencode` binary (`opencode serve` driven through the SDK) run
 * by `trellis agent start` against the mock model (Chat Completions), permissions and questions
 * answered through the interaction bridge as a client does.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { type MockModel, startMockModel } from "../support/mock-model/MockModel.js"
import { killEverything, removeTempDirs } from "./support/Processes.js"
import {
  answerInteraction,
  type Backend,
  createThread,
  type Machine,
  onlineTarget,
  pendingInteraction,
  realMachine,
  send,
  settledMessages,
  startBackend,
  startRealAgent,
  ThreadState
} from "./support/RealRuntimes.js"
import { type Agent, type CliProfile, readEvents } from "./support/Trellis.js"

const TEST_TIMEOUT = 120_000
const INTERACTION_TIMEOUT_S = 8

describe.sequential("runtime C (opencode) for real through trellis agent start", () => {
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
    machine = await realMachine(backend, mock, "opencode")
    agent = await startRealAgent(machine, ["--interaction-timeout", String(INTERACTION_TIMEOUT_S)])
    target = await onlineTarget(backend, machine, agent)
  }, 180_000)

  afterAll(async () => {
    await backend?.mcp.close()
    await killEverything()
    await mock?.close()
    removeTempDirs()
  }, 30_000)

  const turn = async (content: string, extra: Record<string, unknown> = {}) => {
    await send(backend, threadId, content, extra)
    messageCount += 2
    const answer = (await settledMessages(backend, threadId, messageCount, agent)).at(-1)
    if (answer === undefined) throw new Error("no answer")
    return answer
  }

  const requestsWith = (text: string) => mock.requests.filter((r) => r.conversation?.lastUserText.includes(text) === true)

  it("a thread created over MCP runs opencode serve in the checkout with the thread's model and effort; events stream normalized", async () => {
    threadId = await createThread(backend, target, "opencode", "hello from the real opencode test", { cliModel: "mock/mock-model", cliEffort: "high" })
    messageCount = 2
    const [question, answer] = await settledMessages(backend, threadId, 2, agent)
    expect([question?.status, answer?.status, answer?.text]).toEqual(["completed", "completed", "Mock reply: hello from the real opencode test"])
    const [request] = requestsWith("hello from the real opencode test")
    expect(request?.body).toMatchObject({ model: "mock-model", reasoning_effort: "high" })
    const events = await readEvents(backend.serve, threadId, (read) => read.some((e) => e.event.kind === "text"))
    expect(events.filter((e) => e.event.kind === "text").map((e) => e.event.text).join("")).toContain("Mock reply: hello from the real opencode test")
  }, TEST_TIMEOUT)

  it("a second message resumes the runtime session: the model is sent the earlier turn", async () => {
    const answer = await turn("and a second message")
    expect(answer.text).toBe("Mock reply: and a second message")
    const [request] = requestsWith("and a second message")
    expect(JSON.stringify(request?.body)).toContain("hello from the real opencode test")
  }, TEST_TIMEOUT)

  it("a command approval becomes a pending interaction with the full command; allowed, the command runs", async () => {
    await send(backend, threadId, "RUN_TOOL[touch allowed.txt]")
    messageCount += 2
    const asked = await pendingInteraction(backend, threadId, agent)
    expect(asked).toMatchObject({ kind: "permission", status: "pending", request: { tool: "bash", metadata: { command: "touch allowed.txt" } } })
    expect((await backend.mcp.call(ThreadState, "get_thread", { threadId })).hasPendingInteraction).toBe(true)
    await answerInteraction(backend, asked.interactionId, { answer: { reply: "once" } })
    const answer = (await settledMessages(backend, threadId, messageCount, agent)).at(-1)
    expect(answer?.status).toBe("completed")
    expect(answer?.text).toContain("Tool finished. Output was:")
    expect(fs.existsSync(path.join(machine.checkout, "allowed.txt"))).toBe(true)
  }, TEST_TIMEOUT)

  it("denied, the command does not run", async () => {
    await send(backend, threadId, "RUN_TOOL[touch denied.txt]")
    messageCount += 2
    const asked = await pendingInteraction(backend, threadId, agent)
    await answerInteraction(backend, asked.interactionId, { deny: true })
    const answer = (await settledMessages(backend, threadId, messageCount, agent)).at(-1)
    expect(answer?.status).toBe("completed")
    expect(fs.existsSync(path.join(machine.checkout, "denied.txt"))).toBe(false)
  }, TEST_TIMEOUT)

  it("unanswered, the request expires after the timeout (expired, not denied, on the thread) and the command does not run", async () => {
    await send(backend, threadId, "RUN_TOOL[touch expired.txt]")
    messageCount += 2
    const asked = await pendingInteraction(backend, threadId, agent)
    const answer = (await settledMessages(backend, threadId, messageCount, agent)).at(-1)
    expect(answer?.status).toBe("completed")
    expect(fs.existsSync(path.join(machine.checkout, "expired.txt"))).toBe(false)
    expect((await answerInteraction(backend, asked.interactionId, { answer: { reply: "once" } })).status).toBe("expired")
  }, TEST_TIMEOUT)

  it("a question (the question tool) is answered through the bridge and the runtime gets the chosen option", async () => {
    await send(backend, threadId, "ASK_USER about colors")
    messageCount += 2
    const asked = await pendingInteraction(backend, threadId, agent)
    expect(asked).toMatchObject({ kind: "question", request: { tool: "question" } })
    await answerInteraction(backend, asked.interactionId, { answer: [["Blue"]] })
    const answer = (await settledMessages(backend, threadId, messageCount, agent)).at(-1)
    expect(answer?.text).toContain("Blue")
  }, TEST_TIMEOUT)

  it("/compact as a runtime command is session.summarize: the session is compacted", async () => {
    const answer = await turn("/compact", { runtimeCommand: true })
    expect(answer.status).toBe("completed")
    const events = await readEvents(backend.serve, threadId, (read) => read.some((e) => e.messageId === answer.messageId && e.event.kind === "context-compaction"))
    expect(events.some((e) => e.messageId === answer.messageId && e.event.kind === "context-compaction")).toBe(true)
  }, TEST_TIMEOUT)

  it("a transient API error (two 503s) is retried: runtime-notice events, then the answer", async () => {
    const answer = await turn("FAIL_TWICE then answer")
    expect([answer.status, answer.text]).toEqual(["completed", "Mock reply: FAIL_TWICE then answer"])
    const events = await readEvents(backend.serve, threadId, (read) => read.some((e) => e.messageId === answer.messageId && e.event.kind === "runtime-notice"))
    expect(events.some((e) => e.messageId === answer.messageId && e.event.kind === "runtime-notice")).toBe(true)
  }, TEST_TIMEOUT)

  it("a hard API error fails the message with the error", async () => {
    const answer = await turn("FAIL_HARD please")
    expect(answer.status).toBe("failed")
    expect(answer.errorMessage).toBeTruthy()
  }, TEST_TIMEOUT)
})
