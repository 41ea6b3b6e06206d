import { FetchHttpClient, HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { expect } from "@effect/vitest"
import { Clock, Duration, Effect, Schema } from "effect"
import { OrdinaryThread, SendThreadMessage, ThreadMessage } from "../../catalog/Threads.js"
import type { BatchResponse } from "../../catalog/bridge/AgentApi.js"
import { TrellisApi } from "../../catalog/bridge/TrellisApi.js"
import type { AgentSessionId, CliProfileId, ProjectId } from "../../catalog/domain/Ids.js"
import { refuses, succeeds } from "./ToolCalls.js"

/** A typed client of the bridge API acting with one API key: what the CLI will use. */
export const bridgeClient = (key: string) =>
  Effect.gen(function*() {
    const http = yield* HttpClient.HttpClient
    return yield* HttpApiClient.makeWith(TrellisApi, {
      httpClient: http.pipe(HttpClient.mapRequest(HttpClientRequest.bearerToken(key)))
    })
  })

export type BridgeClient = Effect.Effect.Success<ReturnType<typeof bridgeClient>>

/**
 * The same client for a `trellis serve` process at `baseUrl`, over Node's fetch: a client that
 * outlives the effect that built it (a scoped agent would not), for tests driven by promises.
 */
export const remoteBridgeClient = (baseUrl: string, key: string): Promise<BridgeClient> =>
  Effect.gen(function*() {
    const http = yield* HttpClient.HttpClient
    return yield* HttpApiClient.makeWith(TrellisApi, {
      httpClient: http.pipe(HttpClient.mapRequest(HttpClientRequest.bearerToken(key))),
      baseUrl
    })
  }).pipe(Effect.provide(FetchHttpClient.layer), Effect.runPromise)

/** Registers a CLI for the project with one checkout and the three executable runtimes. */
export const registerCli = (
  client: BridgeClient,
  projectId: ProjectId,
  options: {
    readonly name?: string
    readonly path?: string
    readonly force?: boolean
    readonly profileId?: CliProfileId
    readonly paths?: ReadonlyArray<string>
    readonly machineId?: string
  } = {}
) =>
  client.agent.register({
    payload: {
      ...(options.profileId === undefined ? {} : { profileId: options.profileId }),
      projectId,
      name: options.name ?? "laptop",
      hostname: "laptop.local",
      ...(options.machineId === undefined ? {} : { machineId: options.machineId }),
      appVersion: "0.1.0",
      availableClis: [
        { type: "claude", version: "2.1.197" },
        { type: "codex", version: "0.169.0" },
        { type: "opencode", version: "1.18.33" }
      ],
      paths: (options.paths ?? [options.path ?? "/home/dev/project"]).map((path) => ({
        path,
        gitRemoteUrl: "git@example.com:acme/project.git",
        branch: "main"
      })),
      force: options.force ?? false
    }
  })

// ---------------------------------------------------------------------------------------------
// Helpers for the bridge tests (test/bridge/, test/machines/, test/threads/): a fake CLI speaking
// the bridge API, Claude stream-json lines as runtime A prints them, and the thread tools over MCP,
// decoded by Schema.
// ---------------------------------------------------------------------------------------------

/** One raw runtime line as the CLI uploads it (seq is added by `numbered`). */
export interface RuntimeLine {
  readonly type: string
  readonly data: string
}

const claudeSession = "5f1c2a7e-0000-4000-8000-00000000c1a0"
let lineCounter = 0
const nextUuid = () => {
  lineCounter += 1
  return `00000000-0000-4000-8000-${lineCounter.toString(16).padStart(12, "0")}`
}

const claudeAssistant = (content: ReadonlyArray<unknown>): RuntimeLine => {
  const uuid = nextUuid()
  return {
    type: "assistant",
    data: JSON.stringify({
      type: "assistant",
      message: {
        id: `msg_${uuid.slice(-12)}`,
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content,
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }
      },
      parent_tool_use_id: null,
      session_id: claudeSession,
      uuid
    })
  }
}

/** Claude Code (`claude -p --output-format stream-json --verbose`) lines, one block each. */
export const claude = {
  sessionId: claudeSession,
  init: (): RuntimeLine => ({
    type: "system",
    data: JSON.stringify({
      type: "system",
      subtype: "init",
      cwd: "/home/dev/project",
      session_id: claudeSession,
      tools: ["Bash"],
      mcp_servers: [],
      model: "claude-sonnet-4-5",
      permissionMode: "default",
      uuid: nextUuid()
    })
  }),
  text: (text: string): RuntimeLine => claudeAssistant([{ type: "text", text }]),
  thinking: (thinking: string): RuntimeLine => claudeAssistant([{ type: "thinking", thinking, signature: "c2ln" }]),
  toolUse: (id: string, name: string, input: unknown): RuntimeLine => claudeAssistant([{ type: "tool_use", id, name, input }]),
  toolResult: (toolUseId: string, content: string): RuntimeLine => ({
    type: "user",
    data: JSON.stringify({
      type: "user",
      message: { role: "user", content: [{ tool_use_id: toolUseId, type: "tool_result", content, is_error: false }] },
      parent_tool_use_id: null,
      session_id: claudeSession,
      uuid: nextUuid()
    })
  }),
  result: (text: string): RuntimeLine => ({
    type: "result",
    data: JSON.stringify({
      type: "result",
      subtype: "success",
      is_error: false,
      duration_ms: 1200,
      num_turns: 1,
      result: text,
      session_id: claudeSession,
      total_cost_usd: 0.01,
      usage: { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      uuid: nextUuid()
    })
  })
} as const

/** Gives lines consecutive sequence numbers starting at `from`. */
export const numbered = (lines: ReadonlyArray<RuntimeLine>, from = 0) =>
  lines.map((line, i) => ({ seq: from + i, type: line.type, data: line.data }))

// ---- MCP thread tools, decoded ------------------------------------------------------------------

/** Calls a tool that must succeed and decodes its structured result with `schema`. */
export const tool = <A, I>(key: string, name: string, args: unknown, schema: Schema.Schema<A, I>) =>
  Effect.flatMap(succeeds(key, name, args), Schema.decodeUnknown(schema)).pipe(Effect.orDie)

/** Calls a tool that must fail and returns its `{ code, message }`. */
export const toolError = (key: string, name: string, args: unknown) => refuses(key, name, args)

export type ThreadView = typeof OrdinaryThread.Type
export type MessageView = typeof ThreadMessage.Type

export const createThread = (
  key: string,
  target: { readonly profileId: string; readonly pathId: string },
  content: string,
  extra: Record<string, unknown> = {}
) =>
  tool(key, "create_thread", { content, profileId: target.profileId, pathId: target.pathId, cliType: "claude", ...extra }, OrdinaryThread)

export const getThread = (key: string, threadId: string) => tool(key, "get_thread", { threadId }, OrdinaryThread)

export const listMessages = (key: string, threadId: string, limit = 20) =>
  Effect.map(
    tool(key, "list_thread_messages", { threadId, limit }, Schema.Struct({ messages: Schema.Array(ThreadMessage) })),
    (result) => result.messages
  )

export const sendMessage = (key: string, threadId: string, content: string) =>
  tool(key, "send_thread_message", { threadId, content }, SendThreadMessage.output)

// ---- the fake CLI -----------------------------------------------------------------------------

/** A registered fake CLI: its client, session, profile and the checkout threads target. */
export const connectCli = (key: string, projectId: ProjectId, options: Parameters<typeof registerCli>[2] = {}) =>
  Effect.gen(function*() {
    const client = yield* bridgeClient(key)
    const registered = yield* registerCli(client, projectId, options)
    const path = registered.profile.paths[0]
    expect(path).toBeDefined()
    return {
      client,
      sessionId: registered.sessionId,
      profile: registered.profile,
      timings: registered.timings,
      target: { profileId: registered.profile.profileId, pathId: path?.pathId ?? "" }
    }
  })

export type FakeCli = Effect.Effect.Success<ReturnType<typeof connectCli>>

export interface Claim {
  readonly threadId: string
  readonly epoch: number
}

/** Claims a thread (the given one, or the profile's longest-waiting) and fails the test if none comes. */
export const claimThread = (cli: { readonly client: BridgeClient; readonly sessionId: AgentSessionId }, threadId?: string) =>
  Effect.gen(function*() {
    const { thread } = yield* cli.client.agent.claim({
      payload: threadId === undefined ? { sessionId: cli.sessionId } : { sessionId: cli.sessionId, threadId }
    })
    expect(thread, `expected a claim of ${threadId ?? "a pending thread"}`).not.toBeNull()
    if (thread === null) return yield* Effect.dieMessage("no thread to claim")
    return thread
  })

export type StartedBatch = Extract<typeof BatchResponse.Type, { readonly drained: false }>

/** Starts the next batch under a claim and fails the test when the queue is drained. */
export const startBatch = (cli: { readonly client: BridgeClient; readonly sessionId: AgentSessionId }, claim: Claim) =>
  Effect.gen(function*() {
    const batch = yield* cli.client.agent.startBatch({
      path: { threadId: claim.threadId },
      payload: { sessionId: cli.sessionId, epoch: claim.epoch }
    })
    expect(batch.drained, `expected a batch on ${claim.threadId}`).toBe(false)
    if (batch.drained) return yield* Effect.dieMessage("the queue is drained")
    return batch
  })

/** Uploads runtime lines for the streaming message under a claim. */
export const upload = (
  cli: { readonly client: BridgeClient; readonly sessionId: AgentSessionId },
  claim: Claim,
  messageId: string,
  chunks: ReadonlyArray<{ readonly seq: number; readonly type: string; readonly data: string }>
) =>
  cli.client.agent.uploadChunks({
    path: { threadId: claim.threadId },
    payload: { sessionId: cli.sessionId, epoch: claim.epoch, messageId, chunks }
  })

export const complete = (cli: { readonly client: BridgeClient; readonly sessionId: AgentSessionId }, claim: Claim, messageId: string) =>
  cli.client.agent.complete({
    path: { threadId: claim.threadId },
    payload: { sessionId: cli.sessionId, epoch: claim.epoch, messageId }
  })

/**
 * One batch as the CLI runs it: start it, stream `texts` as Claude text lines (between an init
 * line and a result line), complete it. Returns the batch, or `{ drained: true }` when nothing waits.
 */
export const runBatch = (
  cli: { readonly client: BridgeClient; readonly sessionId: AgentSessionId },
  claim: Claim,
  texts: ReadonlyArray<string> | ((messages: StartedBatch["messages"]) => ReadonlyArray<string>)
) =>
  Effect.gen(function*() {
    const batch = yield* cli.client.agent.startBatch({
      path: { threadId: claim.threadId },
      payload: { sessionId: cli.sessionId, epoch: claim.epoch }
    })
    if (batch.drained) return batch
    const lines = typeof texts === "function" ? texts(batch.messages) : texts
    const uploaded = yield* upload(
      cli,
      claim,
      batch.assistantMessageId,
      numbered([claude.init(), ...lines.map((text) => claude.text(text)), claude.result(lines.join(""))])
    )
    expect(uploaded).toEqual({ accepted: lines.length + 2, duplicates: 0 })
    yield* complete(cli, claim, batch.assistantMessageId)
    return batch
  })

/** The `_tag` of an effect's failure, or "accepted" when it succeeded: lets a test compare many refusals at once. */
export const outcome = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.either(effect), (result) => (result._tag === "Left" ? result.left._tag : "accepted"))

/** Sleeps on the real clock, also inside `it.effect` (whose TestClock never moves on its own). */
export const realSleep = (millis: number) => Effect.sleep(Duration.millis(millis)).pipe(Effect.withClock(Clock.make()))

/** Polls `check` every 50 ms (real time) until it holds, dying after `timeoutMs`. */
export const eventually = <A, E, R>(what: string, effect: Effect.Effect<A, E, R>, check: (a: A) => boolean, timeoutMs = 5_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const value = yield* effect
      if (check(value)) return value
      if (Date.now() > deadline) return yield* Effect.dieMessage(`timed out waiting for ${what}: ${JSON.stringify(value)}`)
      yield* realSleep(50)
    }
  })

const ThreadRecord = Schema.Struct({
  claimedBySessionId: Schema.NullOr(Schema.String),
  claimedAt: Schema.NullOr(Schema.DateFromSelf),
  claimLeaseExpiresAt: Schema.NullOr(Schema.DateFromSelf),
  claimEpoch: Schema.Number,
  activeAssistantMessageId: Schema.NullOr(Schema.String),
  hasPendingUserMessages: Schema.Boolean,
  processingState: Schema.String
})

/** The thread's bridge record (SPEC "Backend records for the CLI bridge"), read from the database. */
export const threadRecord = (threadId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql`
      SELECT claimed_by_session_id AS "claimedBySessionId", claimed_at AS "claimedAt",
        claim_lease_expires_at AS "claimLeaseExpiresAt", claim_epoch::float8 AS "claimEpoch",
        active_assistant_message_id AS "activeAssistantMessageId",
        has_pending_user_messages AS "hasPendingUserMessages", processing_state AS "processingState"
      FROM threads WHERE id = ${threadId}`
    const [row] = yield* Schema.decodeUnknown(Schema.Array(ThreadRecord))(rows)
    if (row === undefined) return yield* Effect.dieMessage(`no thread ${threadId}`)
    return row
  }).pipe(Effect.orDie)
