/**
 * End-to-end runs of the real runtime binaries: `trellis serve`, one logged-in machine whose
 * `trellis agent start` finds the pinned binaries first on PATH and talks to the mock model,
 * every runtime's home and config isolated in the machine's own directories.
 */
import { afterAll, beforeAll, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ALLOW_EVERYTHING, openCodeEnv, writeOpenCodeConfig } from "../../support/runtimes/OpenCodeMock.js"
import { linkRuntimeBinaries, RUNTIME_COMMANDS, type RuntimeCommand } from "../../support/runtimes/RuntimeBinaries.js"
import { type MockModel, type MockRequest, startMockModel } from "../../support/mock-model/MockModel.js"
import { eventually, killEverything, removeTempDirs, repoRoot, spare, tempDir } from "./Processes.js"
import {
  type Agent,
  agentEnv,
  type CliProfile,
  gitRepo,
  Mcp,
  type Message,
  messagesOf,
  Profiles,
  readEvents,
  type Serve,
  startAgent,
  startServe,
  trellisOk
} from "./Trellis.js"

export interface Backend {
  readonly serve: Serve
  readonly mcp: Mcp
}

export const startBackend = async (): Promise<Backend> => {
  const serve = await startServe(tempDir("trellis-rt-home-"))
  return { serve, mcp: await Mcp.connect(serve.mcpUrl, serve.credentials.apiKey) }
}

/**
 * One backend for every suite of a file (called at the file's top level): each suite still has
 * its own mock model, machine and agent, and its threads; the server and its home outlive each
 * suite's cleanup and go when the file ends. A `trellis serve` costs ~3 s of CPU to start and
 * settle, and a file of four suites started four.
 */
export const sharedBackend = (): () => Backend => {
  let backend: Backend | undefined
  let release = () => {}
  beforeAll(async () => {
    backend = await startBackend()
    release = spare(backend.serve.proc, backend.serve.home)
  }, 120_000)
  afterAll(async () => {
    release()
    await backend?.mcp.close()
    await killEverything()
    await removeTempDirs()
  }, 30_000)
  return () => {
    if (backend === undefined) throw new Error("the file's backend did not start")
    return backend
  }
}

export interface Machine {
  readonly root: string
  readonly home: string
  readonly checkout: string
  readonly env: NodeJS.ProcessEnv
}

/** What each runtime needs to reach the mock model and nothing else (RUNTIMES.md §2.1, §3.1, §4.1). */
const runtimeEnv = (mock: MockModel, home: string): NodeJS.ProcessEnv => ({
  ...openCodeEnv(home),
  ANTHROPIC_BASE_URL: mock.url,
  ANTHROPIC_API_KEY: "sk-ant-mock",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_ERROR_REPORTING: "1",
  CODEX_HOME: path.join(home, ".codex"),
  MOCK_API_KEY: "mock"
})

/** Codex's provider config (RUNTIMES.md §3.1), then OpenCode's. Failed requests are retried as stream retries, which the app-server reports (error willRetry). */
const writeRuntimeConfig = (mock: MockModel, home: string) => {
  fs.mkdirSync(path.join(home, ".codex"), { recursive: true })
  fs.writeFileSync(
    path.join(home, ".codex", "config.toml"),
    [
      `model = "mock-model"`,
      `model_provider = "mock"`,
      `model_reasoning_effort = "medium"`,
      `check_for_update_on_startup = false`,
      `[model_providers.mock]`,
      `name = "Mock"`,
      `base_url = "${mock.url}/v1"`,
      `env_key = "MOCK_API_KEY"`,
      `wire_api = "responses"`,
      `request_max_retries = 0`,
      `stream_max_retries = 3`,
      `[analytics]`,
      `enabled = false`,
      ""
    ].join("\n")
  )
  // A user's opencode.json that lets everything run unasked: the agent's approval policy must still decide.
  writeOpenCodeConfig(mock, home, ALLOW_EVERYTHING)
}

/**
 * A machine logged in to `backend` with a fresh checkout added as a path: its own config dir,
 * HOME and XDG dirs, and the pinned binaries of `runtimes` first on PATH.
 */
export const realMachine = async (
  backend: Backend,
  mock: MockModel,
  name: string,
  runtimes: ReadonlyArray<RuntimeCommand> = RUNTIME_COMMANDS
): Promise<Machine> => {
  const root = tempDir(`trellis-rt-${name}-`)
  const home = path.join(root, "home")
  fs.mkdirSync(home)
  const bin = linkRuntimeBinaries(path.join(root, "bin"), runtimes)
  writeRuntimeConfig(mock, home)
  const env = agentEnv(path.join(root, "config"), bin, runtimeEnv(mock, home))
  await trellisOk(
    [
      "agent",
      "login",
      "--server",
      backend.serve.baseUrl,
      "--project",
      backend.serve.credentials.projectRef,
      "--name",
      "e2e",
      "--machine-name",
      `rt-${name}`
    ],
    repoRoot,
    { ...env, TRELLIS_API_KEY: backend.serve.credentials.apiKey }
  )
  const checkout = await gitRepo(path.join(root, "checkout"))
  await trellisOk(["agent", "paths", "add"], checkout, env)
  return { root, home, checkout, env }
}

export const startRealAgent = (m: Machine, extraArgs: ReadonlyArray<string> = []): Promise<Agent> =>
  startAgent(m.checkout, m.env, extraArgs)

const SavedProfileId = Schema.parseJson(Schema.Struct({ profiles: Schema.Struct({ e2e: Schema.Struct({ profileId: Schema.String }) }) }))

/** The machine's profile once its agent is online, and the path ID of its checkout. */
export const onlineTarget = async (
  backend: Backend,
  m: Machine,
  agent: Agent
): Promise<{ readonly profile: CliProfile; readonly pathId: string }> => {
  const file = path.join(m.env["TRELLIS_CONFIG_DIR"] ?? "", "profiles.json")
  const { profileId } = Schema.decodeUnknownSync(SavedProfileId)(fs.readFileSync(file, "utf8")).profiles.e2e
  const [profile] = await eventually(
    "the profile to be online",
    async () => {
      const { profiles } = await backend.mcp.call(Profiles, "list_cli_profiles", { projectId: backend.serve.credentials.projectId })
      return profiles.filter((p) => p.profileId === profileId && p.isOnline)
    },
    (online) => online.length === 1,
    60_000,
    () => agent.proc.describe()
  )
  const pathId = profile?.paths.find((p) => p.path === m.checkout)?.pathId
  if (profile === undefined || pathId === undefined) throw new Error("the machine's checkout is not registered")
  return { profile, pathId }
}

const Created = Schema.Struct({ threadId: Schema.String })
export const ThreadState = Schema.Struct({ threadId: Schema.String, hasPendingInteraction: Schema.Boolean, status: Schema.String })

export const createThread = async (
  backend: Backend,
  target: { readonly profile: CliProfile; readonly pathId: string },
  cliType: string,
  content: string,
  extra: Record<string, unknown> = {}
) =>
  (await backend.mcp.call(Created, "create_thread", {
    content,
    profileId: target.profile.profileId,
    pathId: target.pathId,
    cliType,
    ...extra
  })).threadId

export const send = (backend: Backend, threadId: string, content: string, extra: Record<string, unknown> = {}) =>
  backend.mcp.call(Schema.Struct({ messageId: Schema.String }), "send_thread_message", { threadId, content, ...extra })

/** Waits for the thread to hold `count` messages, the last an assistant answer in a final state. */
export const settledMessages = (
  backend: Backend,
  threadId: string,
  count: number,
  agent: Agent,
  timeoutMs = 90_000
): Promise<ReadonlyArray<Message>> =>
  eventually(
    `thread ${threadId} to hold ${count} settled messages`,
    () => messagesOf(backend.mcp, threadId),
    (messages) => {
      const last = messages.at(-1)
      return messages.length === count && last?.role === "assistant" && (last.status === "completed" || last.status === "failed")
    },
    timeoutMs,
    () => agent.proc.describe()
  )

/**
 * Waits for the answer to the user message `userMessageId`: the message right after it, the
 * newest of the thread, settled. (Counting all messages would not do: the window holds 20.)
 */
export const answerTo = (backend: Backend, threadId: string, userMessageId: string, agent: Agent, timeoutMs = 90_000): Promise<Message> =>
  eventually(
    `the answer to ${userMessageId} on thread ${threadId}`,
    () => messagesOf(backend.mcp, threadId),
    (messages) => {
      const asked = messages.findIndex((m) => m.messageId === userMessageId)
      const last = messages.at(-1)
      return asked >= 0 && messages.length === asked + 2 && last?.role === "assistant" &&
        (last.status === "completed" || last.status === "failed")
    },
    timeoutMs,
    () => agent.proc.describe()
  ).then((messages) => {
    const last = messages.at(-1)
    if (last === undefined) throw new Error("no answer")
    return last
  })

// ---- the interaction bridge, as a client answers it -------------------------------------------------

export const Interaction = Schema.Struct({
  interactionId: Schema.String,
  kind: Schema.String,
  status: Schema.String,
  request: Schema.Unknown,
  answer: Schema.Unknown
})
export type Interaction = typeof Interaction.Type
const decodePending = Schema.decodeUnknownSync(Schema.Struct({ interactions: Schema.Array(Interaction) }))

const api = async (backend: Backend, method: string, url: string, body?: unknown): Promise<unknown> => {
  const response = await fetch(`${backend.serve.baseUrl}${url}`, {
    method,
    headers: { authorization: `Bearer ${backend.serve.credentials.apiKey}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  if (!response.ok) throw new Error(`${method} ${url}: HTTP ${response.status}: ${await response.text()}`)
  return response.json()
}

/** The thread's pending interactions now. */
export const pendingInteractions = async (backend: Backend, threadId: string): Promise<ReadonlyArray<Interaction>> =>
  decodePending(await api(backend, "GET", `/api/threads/${threadId}/interactions`)).interactions

/** The thread's one pending interaction, once the runtime has asked. */
export const pendingInteraction = async (backend: Backend, threadId: string, agent: Agent): Promise<Interaction> => {
  const [pending] = await eventually(
    `a pending interaction on ${threadId}`,
    () => pendingInteractions(backend, threadId),
    (list) => list.length === 1,
    90_000,
    () => agent.proc.describe()
  )
  if (pending === undefined) throw new Error("no pending interaction")
  return pending
}

export const answerInteraction = async (
  backend: Backend,
  interactionId: string,
  payload: { readonly deny?: boolean; readonly answer?: unknown }
) => Schema.decodeUnknownSync(Interaction)(await api(backend, "POST", `/api/threads/interactions/${interactionId}/answer`, payload))

export const retryThread = (backend: Backend, threadId: string) => api(backend, "POST", `/api/threads/${threadId}/retry`)

// ---- one runtime's suite: a mock model, a backend, a machine and its agent, one thread at a time ----

export interface RealRuntimeSuite {
  readonly mock: () => MockModel
  readonly backend: () => Backend
  readonly machine: () => Machine
  readonly agent: () => Agent
  readonly target: () => { readonly profile: CliProfile; readonly pathId: string }
  /** Creates the suite's thread and waits for its first answer. */
  readonly start: (
    cliType: string,
    content: string,
    extra?: Record<string, unknown>
  ) => Promise<{ readonly threadId: string; readonly answer: Message }>
  readonly threadId: () => string
  /** Sends a message on the suite's thread (counted), without waiting. */
  readonly send: (content: string, extra?: Record<string, unknown>) => Promise<void>
  /** The thread's answer to the last message sent, once settled. */
  readonly answer: () => Promise<Message>
  /** Sends a message and waits for its answer. */
  readonly turn: (content: string, extra?: Record<string, unknown>) => Promise<Message>
  /** The model requests whose last user text contains `text`. */
  readonly requestsWith: (text: string) => ReadonlyArray<MockRequest>
}

/**
 * Registers the hooks of a suite running `trellis agent start <agentArgs>` on a machine with the
 * real binaries of `runtimes`, against a backend of its own or the file's `shared` one.
 */
export const realRuntimeSuite = (
  name: string,
  agentArgs: ReadonlyArray<string>,
  runtimes: ReadonlyArray<RuntimeCommand>,
  shared?: () => Backend
): RealRuntimeSuite => {
  let mock: MockModel | undefined
  let backend: Backend | undefined
  let machine: Machine | undefined
  let agent: Agent | undefined
  let target: { readonly profile: CliProfile; readonly pathId: string } | undefined
  let threadId = ""
  let lastSent = ""
  const need = <A>(value: A | undefined): A => {
    if (value === undefined) throw new Error("the suite did not start")
    return value
  }

  beforeAll(async () => {
    mock = await startMockModel()
    backend = shared === undefined ? await startBackend() : shared()
    machine = await realMachine(backend, mock, name, runtimes)
    agent = await startRealAgent(machine, agentArgs)
    target = await onlineTarget(backend, machine, agent)
  }, 180_000)

  afterAll(async () => {
    if (shared === undefined) await backend?.mcp.close()
    await killEverything()
    await mock?.close()
    await removeTempDirs()
  }, 30_000)

  const answer = () => answerTo(need(backend), threadId, lastSent, need(agent))
  const sendOne = async (content: string, extra: Record<string, unknown> = {}) => {
    lastSent = (await send(need(backend), threadId, content, extra)).messageId
  }
  return {
    mock: () => need(mock),
    backend: () => need(backend),
    machine: () => need(machine),
    agent: () => need(agent),
    target: () => need(target),
    start: async (cliType, content, extra = {}) => {
      threadId = await createThread(need(backend), need(target), cliType, content, extra)
      const first = (await settledMessages(need(backend), threadId, 2, need(agent))).at(-1)
      if (first === undefined) throw new Error("no answer")
      return { threadId, answer: first }
    },
    threadId: () => threadId,
    send: sendOne,
    answer,
    turn: async (content, extra = {}) => {
      await sendOne(content, extra)
      return answer()
    },
    requestsWith: (text) => need(mock).requests.filter((r) => r.conversation?.lastUserText.includes(text) === true)
  }
}

/** Sends `content` on the suite's thread and waits for the interaction the runtime files. */
export const askedBy = async (suite: RealRuntimeSuite, content: string): Promise<Interaction> => {
  await suite.send(content)
  return pendingInteraction(suite.backend(), suite.threadId(), suite.agent())
}

/** Answers (or refuses) an interaction as a client does. */
export const answer = (suite: RealRuntimeSuite, interactionId: string, payload: { readonly deny?: boolean; readonly answer?: unknown }) =>
  answerInteraction(suite.backend(), interactionId, payload)

/** The events of the suite's thread for one message, once `kind` is among them. */
export const eventsOf = async (suite: RealRuntimeSuite, messageId: string, kind: string) =>
  (await readEvents(
    suite.backend().serve,
    suite.threadId(),
    (read) => read.some((e) => e.messageId === messageId && e.event.kind === kind)
  ))
    .filter((e) => e.messageId === messageId)

export const hasPendingInteraction = async (suite: RealRuntimeSuite) =>
  (await suite.backend().mcp.call(ThreadState, "get_thread", { threadId: suite.threadId() })).hasPendingInteraction

const SCENARIO_TIMEOUT = 120_000

/**
 * The scenarios every runtime with a compaction command and API-retry reporting shares:
 * `/compact` as a runtime command, a transient API error retried with runtime notices, a hard
 * API error failing the message. `compactVia` names how the runtime compacts.
 */
export const compactionAndApiErrorScenarios = (suite: RealRuntimeSuite, compactVia: string, apiErrorsSkipped?: string) => {
  const apiErrorIt = apiErrorsSkipped === undefined ? it : it.skip
  it(`/compact as a runtime command is ${compactVia}: the session is compacted`, async () => {
    const done = await suite.turn("/compact", { runtimeCommand: true })
    expect(done.status).toBe("completed")
    expect((await eventsOf(suite, done.messageId, "context-compaction")).some((e) => e.event.kind === "context-compaction")).toBe(true)
  }, SCENARIO_TIMEOUT)

  apiErrorIt(`a transient API error (two 503s) is retried: runtime-notice events, then the answer${apiErrorsSkipped ?? ""}`, async () => {
    const done = await suite.turn("FAIL_TWICE then answer")
    expect([done.status, done.text]).toEqual(["completed", "Mock reply: FAIL_TWICE then answer"])
    expect((await eventsOf(suite, done.messageId, "runtime-notice")).some((e) => e.event.kind === "runtime-notice")).toBe(true)
  }, SCENARIO_TIMEOUT)

  apiErrorIt(`a hard API error fails the message with the error${apiErrorsSkipped ?? ""}`, async () => {
    const done = await suite.turn("FAIL_HARD please")
    expect(done.status).toBe("failed")
    expect(done.errorMessage).toBeTruthy()
  }, SCENARIO_TIMEOUT)
}

/**
 * Resume safety, shared by every runtime: a session the runtime lost (`forgetSessions` deletes
 * its store) and a thread a client started fresh both run in a new session whose first prompt
 * tells the conversation so far, with a `warning` event saying so.
 */
export const resumeSafetyScenarios = (suite: RealRuntimeSuite, runtime: string, forgetSessions: () => void | Promise<void>) => {
  const toldTheConversation = (text: string) => {
    const sent = JSON.stringify(suite.requestsWith(text).at(-1)?.body)
    expect(sent).toContain("could not be resumed, so this is a fresh session")
    expect(sent).toContain("User: ")
    expect(sent).toContain("Assistant: Mock reply: ")
  }

  it(
    `a runtime session ${runtime} no longer has is started fresh with the earlier messages summarised, and a warning says so`,
    async () => {
      await forgetSessions()
      const done = await suite.turn("after the session was lost")
      expect([done.status, done.text, done.errorMessage], suite.agent().proc.describe()).toEqual([
        "completed",
        "Mock reply: after the session was lost",
        undefined
      ])
      toldTheConversation("after the session was lost")
      const warnings = (await eventsOf(suite, done.messageId, "warning")).flatMap((
        e
      ) => (e.event.kind === "warning" ? [e.event.message] : []))
      expect(warnings).toContainEqual(expect.stringContaining(`${runtime} no longer has session`))
    },
    SCENARIO_TIMEOUT
  )

  it(
    "started fresh by a client (POST /api/threads/:id/start-fresh), the next message runs in a new session told the conversation so far",
    async () => {
      const fresh = await api(suite.backend(), "POST", `/api/threads/${suite.threadId()}/start-fresh`)
      expect(fresh).toMatchObject({ threadId: suite.threadId(), runtimeSessionElsewhere: false })
      const done = await suite.turn("after a fresh start")
      expect([done.status, done.text]).toEqual(["completed", "Mock reply: after a fresh start"])
      toldTheConversation("after a fresh start")
      const warnings = (await eventsOf(suite, done.messageId, "warning")).flatMap((
        e
      ) => (e.event.kind === "warning" ? [e.event.message] : []))
      expect(warnings).toContainEqual(expect.stringContaining("no runtime session to resume"))
    },
    SCENARIO_TIMEOUT
  )
}

/** Codex keeps its sessions as rollout files under CODEX_HOME/sessions: removing them loses every session. */
export const forgetCodexSessions = (suite: RealRuntimeSuite) => () => {
  const sessions = path.join(suite.machine().home, ".codex", "sessions")
  expect(fs.readdirSync(sessions, { recursive: true, encoding: "utf8" }).some((file) => file.endsWith(".jsonl"))).toBe(true)
  fs.rmSync(sessions, { recursive: true, force: true })
}
