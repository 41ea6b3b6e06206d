/**
 * Runtime B with `trellis agent start --codex-exec`: the pinned `codex exec --json` against the
 * mock model. Exec has no interactive approvals and hides API retries (RUNTIMES.md §3.2).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { type MockModel, startMockModel } from "../support/mock-model/MockModel.js"
import { killEverything, removeTempDirs } from "./support/Processes.js"
import { type Backend, createThread, onlineTarget, realMachine, send, settledMessages, startBackend, startRealAgent } from "./support/RealRuntimes.js"
import { type Agent, type CliProfile, readEvents } from "./support/Trellis.js"

const TEST_TIMEOUT = 120_000

describe.sequential("runtime B (codex exec) for real through trellis agent start --codex-exec", () => {
  let mock: MockModel
  let backend: Backend
  let agent: Agent
  let target: { readonly profile: CliProfile; readonly pathId: string }
  let threadId = ""
  let messageCount = 0

  beforeAll(async () => {
    mock = await startMockModel()
    backend = await startBackend()
    const machine = await realMachine(backend, mock, "codex-exec")
    agent = await startRealAgent(machine, ["--codex-exec"])
    target = await onlineTarget(backend, machine, agent)
  }, 180_000)

  afterAll(async () => {
    await backend?.mcp.close()
    await killEverything()
    await mock?.close()
    removeTempDirs()
  }, 30_000)

  const turn = async (content: string) => {
    await send(backend, threadId, content)
    messageCount += 2
    const answer = (await settledMessages(backend, threadId, messageCount, agent)).at(-1)
    if (answer === undefined) throw new Error("no answer")
    return answer
  }

  const requestsWith = (text: string) => mock.requests.filter((r) => r.conversation?.lastUserText.includes(text) === true)

  it("a thread runs codex exec --json with the thread's model and effort; events stream normalized", async () => {
    threadId = await createThread(backend, target, "codex", "hello from codex exec", { cliModel: "mock-model", cliEffort: "high" })
    messageCount = 2
    const answer = (await settledMessages(backend, threadId, 2, agent)).at(-1)
    expect([answer?.status, answer?.text]).toEqual(["completed", "Mock reply: hello from codex exec"])
    expect(requestsWith("hello from codex exec")[0]?.body).toMatchObject({ model: "mock-model", reasoning: { effort: "high" } })
    const events = await readEvents(backend.serve, threadId, (read) => read.some((e) => e.event.kind === "text"))
    expect(events.some((e) => e.event.kind === "metadata")).toBe(true)
  }, TEST_TIMEOUT)

  it("a second message is codex exec resume of the session: the model is sent the earlier turn", async () => {
    const answer = await turn("second exec message")
    expect(answer.text).toBe("Mock reply: second exec message")
    expect(JSON.stringify(requestsWith("second exec message")[0]?.body)).toContain("hello from codex exec")
  }, TEST_TIMEOUT)

  it("a transient API error is retried by codex (silently in exec) and the message completes", async () => {
    const answer = await turn("FAIL_TWICE in exec")
    expect([answer.status, answer.text]).toEqual(["completed", "Mock reply: FAIL_TWICE in exec"])
    expect(requestsWith("FAIL_TWICE in exec").map((r) => r.plan?.kind)).toEqual(["error", "error", "text"])
  }, TEST_TIMEOUT)

  it("a hard API error fails the message with the error", async () => {
    const answer = await turn("FAIL_HARD in exec")
    expect(answer.status).toBe("failed")
    expect(answer.errorMessage).toContain("Mock hard failure")
  }, TEST_TIMEOUT)
})
