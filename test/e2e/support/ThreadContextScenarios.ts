/**
 * What every real runtime is given with a thread, checked where the runtime itself sees it: the
 * project agent's prompt (create_thread rule 5) in the model request's instructions, the thread
 * ID (rule 7) in the runtime process's environment or its prompt, and Trellis's MCP server with
 * the profile's key on no process's command line (any local user can read those).
 */
import { expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import type { MockRequest } from "../../support/mock-model/MockModel.js"
import { eventually } from "./Processes.js"
import { answer, createThread, type RealRuntimeSuite, pendingInteractions, settledMessages } from "./RealRuntimes.js"
import { commandLinesWith, processTree, type RunningProcess } from "./RuntimeProcesses.js"
import type { Message } from "./Trellis.js"

export interface ThreadContextOptions {
  readonly cliType: string
  /** Whether the runtime's process is one `trellis agent start` started for the runtime (by its command line). */
  readonly isRuntime: (argv: ReadonlyArray<string>) => boolean
  /** Where a model request carries the instructions the runtime was given (system prompt, developer message). */
  readonly instructions: (request: MockRequest) => unknown
  readonly instructionsName: string
  /** How the runtime is told its thread ID: SERVICE_THREAD_ID in its environment, or (runtime C) in its prompt. */
  readonly threadIdIn: "environment" | "prompt"
}

const TIMEOUT = 150_000

const record = (
  value: unknown
): Record<string, unknown> => (typeof value === "object" && value !== null && !Array.isArray(value) ? Object(value) : {})
const list = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])

/** Claude (Anthropic Messages): the system prompt. */
export const anthropicSystem = (request: MockRequest): unknown => record(request.body)["system"]
/** Codex (Responses): the developer messages of the input. */
export const responsesDeveloper = (request: MockRequest): unknown =>
  list(record(request.body)["input"]).filter((item) => record(item)["role"] === "developer")
/** OpenCode (Chat Completions): the system messages. */
export const chatSystem = (request: MockRequest): unknown =>
  list(record(request.body)["messages"]).filter((message) => record(message)["role"] === "system")

/** The first request that asked the model to answer `text` (not a side request such as a title, which offers no tools). */
const modelRequest = (suite: RealRuntimeSuite, text: string): MockRequest | undefined =>
  suite.requestsWith(text).find((request) => (request.conversation?.tools.length ?? 0) > 0)

interface HeldRun {
  /** Every process under the agent while the runtime ran a shell command of the thread's. */
  readonly tree: ReadonlyArray<RunningProcess>
  readonly request: MockRequest | undefined
  readonly done: Message
}

/**
 * Runs a shell command on the suite's thread that waits for a file, reads the agent's process
 * tree while it waits (the runtime and the command it started both alive: the command's own
 * process, not one with the prompt on its command line, as `codex exec` has), then lets it finish.
 */
const holdARun = async (suite: RealRuntimeSuite): Promise<HeldRun> => {
  const release = `release-${randomUUID().slice(0, 8)}`
  await suite.send(`RUN_TOOL[until test -f ${release}; do sleep 0.1; done]`)
  // A runtime that asks before running it is allowed to.
  const tree = await eventually(
    "the thread's shell command to run under the agent",
    async () => {
      for (const asked of await pendingInteractions(suite.backend(), suite.threadId())) {
        await answer(suite, asked.interactionId, {
          answer: { reply: "once" }
        })
      }
      return processTree(suite.agent().proc.pid)
    },
    (seen) => seen.some((p) => p.argv.some((arg) => arg.includes(release) && !arg.includes("RUN_TOOL"))),
    90_000,
    () => suite.agent().proc.describe()
  )
  fs.writeFileSync(path.join(suite.machine().checkout, release), "")
  const done = await suite.answer()
  return { tree, done, request: modelRequest(suite, release) }
}

const Created = Schema.Struct({ projectAgentId: Schema.String })

/** The scenarios; the suite's thread must have run once (`suite.start`) before them. */
export const threadContextScenarios = (suite: RealRuntimeSuite, options: ThreadContextOptions) => {
  let held: Promise<HeldRun> | undefined
  const heldRun = () => (held ??= holdARun(suite))

  it(
    "no process of the run has the API key on its command line (the runtime, what it starts, the command it runs), none is logged, and the runtime reaches Trellis's MCP tools",
    async () => {
      const { tree, request, done } = await heldRun()
      const key = suite.backend().serve.credentials.apiKey
      expect(tree.filter((p) => options.isRuntime(p.argv)).length).toBeGreaterThan(0)
      expect(commandLinesWith(tree, key)).toEqual([])
      expect(`${suite.agent().proc.stdout}${suite.agent().proc.stderr}`).not.toContain(key)
      expect(done.status).toBe("completed")
      // The key still reaches the MCP server: the model is offered Trellis's tools (Codex nests them in a namespace).
      expect(JSON.stringify(record(request?.body)["tools"])).toMatch(/"name":"[^"]*create_thread"/)
    },
    TIMEOUT
  )

  if (options.threadIdIn === "environment") {
    it("create_thread rule 7: the runtime process gets the thread ID as SERVICE_THREAD_ID (and TRELLIS_THREAD_ID)", async () => {
      const runtimes = (await heldRun()).tree.filter((p) => options.isRuntime(p.argv))
      expect(runtimes.length).toBeGreaterThan(0)
      for (const runtime of runtimes) {
        expect([runtime.env.get("SERVICE_THREAD_ID"), runtime.env.get("TRELLIS_THREAD_ID")]).toEqual([suite.threadId(), suite.threadId()])
      }
    }, TIMEOUT)
  } else {
    it(
      `create_thread rule 7: runtime ${options.cliType} receives the thread ID in its prompt (${options.instructionsName}), from its first message on`,
      async () => {
        const content = `report back ${randomUUID().slice(0, 8)}`
        const threadId = await createThread(suite.backend(), suite.target(), options.cliType, content)
        expect((await settledMessages(suite.backend(), threadId, 2, suite.agent())).at(-1)?.status).toBe("completed")
        const request = modelRequest(suite, content)
        expect(request).toBeDefined()
        if (request !== undefined) expect(JSON.stringify(options.instructions(request))).toContain(threadId)
      },
      TIMEOUT
    )
  }

  it(`create_thread rule 5: the project agent's prompt reaches the runtime (${options.instructionsName})`, async () => {
    const prompt = `You are the release agent ${randomUUID()}. Keep changelogs short.`
    const { projectAgentId } = await suite.backend().mcp.call(Created, "create_project_agent", {
      projectId: suite.backend().serve.credentials.projectId,
      name: `Release agent ${options.cliType}`,
      prompt,
      appearance: { color: "teal" }
    })
    const content = `hello agent ${randomUUID().slice(0, 8)}`
    const threadId = await createThread(suite.backend(), suite.target(), options.cliType, content, { projectAgentId })
    expect((await settledMessages(suite.backend(), threadId, 2, suite.agent())).at(-1)?.status).toBe("completed")
    const request = modelRequest(suite, content)
    expect(request).toBeDefined()
    if (request !== undefined) expect(JSON.stringify(options.instructions(request))).toContain(prompt)
  }, TIMEOUT)
}
