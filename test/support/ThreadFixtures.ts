import { SqlClient } from "@effect/sql"
import { expect } from "@effect/vitest"
import { Effect, Schema } from "effect"
import {
  GetThread,
  ListCliProfiles,
  ListThreadMessages,
  ListThreads,
  OrdinaryThread,
  SendThreadMessage,
  ThreadContainer
} from "../../catalog/Threads.js"
import type { ProjectId } from "../../catalog/domain/Ids.js"
import { Memberships } from "../../src/orgs/Memberships.js"
import { Projects } from "../../src/projects/Projects.js"
import { Users } from "../../src/orgs/Users.js"
import { type BridgeClient, bridgeClient, registerCli } from "./FakeCli.js"
import { createKey, seedOwner } from "./Seed.js"
import { answer, decodeStrict, refuses, type Scope, scopedTo, succeeds, type ToolError } from "./ToolCalls.js"

export { decodeStrict, scopedTo, type Scope, type ToolError } from "./ToolCalls.js"

/**
 * Helpers for the thread tool tests: typed tool calls (results are decoded with the catalog's
 * own Schemas, excess properties refused, so a response that drifts from the catalog fails),
 * scenario builders (an owner with a registered CLI, teammates, a second project) and a fake CLI
 * run (claim, batch, chunks, complete) to put a thread through its lifecycle.
 */

// ---------------------------------------------------------------------------------------------
// Tool calls
// ---------------------------------------------------------------------------------------------

/** A tool call's answer: whether it is a tool error, and its raw structured content; the JSON-RPC call itself must succeed. */
export const call = (key: string, name: string, args: unknown, scope: Scope = {}) =>
  Effect.map(answer(key, name, args, scope), (result) => ({ isError: result.isError === true, content: result.structuredContent }))

/** A tool call that must succeed: its raw structured result. */
export const okRaw = succeeds

/** A tool call that must succeed, its result decoded with `schema`. */
export const ok = <A, I>(schema: Schema.Schema<A, I>, key: string, name: string, args: unknown, scope: Scope = {}) =>
  Effect.flatMap(okRaw(key, name, args, scope), (content) => decodeStrict(schema, content, name))

/** A tool call that must fail with a tool error: its `{ code, message }`. */
export const fails = refuses

/** A tool call that must fail with `code`, naming `field` (or containing the text) in its message. */
export const failsWith = (
  key: string,
  name: string,
  args: unknown,
  expected: { readonly code: ToolError["code"]; readonly mentions?: string },
  scope: Scope = {}
) =>
  Effect.gen(function*() {
    const error = yield* fails(key, name, args, scope)
    const label = `${name} ${JSON.stringify(args)} → ${error.code}: ${error.message}`
    expect(error.code, label).toBe(expected.code)
    if (expected.mentions !== undefined) expect(error.message, label).toContain(expected.mentions)
    return error
  })

// ---------------------------------------------------------------------------------------------
// Typed thread tools
// ---------------------------------------------------------------------------------------------

export type Thread = typeof GetThread.output.Type
export type Ordinary = typeof OrdinaryThread.Type
export type Container = typeof ThreadContainer.Type
export type ThreadPage = typeof ListThreads.output.Type
export type Message = typeof ListThreadMessages.output.Type["messages"][number]
export type Profile = typeof ListCliProfiles.output.Type["profiles"][number]
export type Sent = typeof SendThreadMessage.output.Type

export const getThread = (key: string, threadId: string) => ok(GetThread.output, key, "get_thread", { threadId })

/** `get_thread` of an ordinary thread (a container fails the decode). */
export const getOrdinary = (key: string, threadId: string) => ok(OrdinaryThread, key, "get_thread", { threadId })

/** `get_thread` of a group or workflow run (an ordinary thread fails the decode). */
export const getContainer = (key: string, threadId: string) => ok(ThreadContainer, key, "get_thread", { threadId })

/** `create_thread`, which always makes an ordinary thread. */
export const createThread = (key: string, args: Record<string, unknown>, scope: Scope = {}) =>
  ok(OrdinaryThread, key, "create_thread", args, scope)

export const listThreads = (key: string, args: Record<string, unknown>, scope: Scope = {}) =>
  ok(ListThreads.output, key, "list_threads", args, scope)

export const listMessages = (key: string, threadId: string, limit?: number) =>
  Effect.map(
    ok(ListThreadMessages.output, key, "list_thread_messages", limit === undefined ? { threadId } : { threadId, limit }),
    (result) => result.messages
  )

export const sendMessage = (key: string, args: Record<string, unknown>) => ok(SendThreadMessage.output, key, "send_thread_message", args)

export const listProfiles = (key: string, args: Record<string, unknown>, scope: Scope = {}) =>
  Effect.map(ok(ListCliProfiles.output, key, "list_cli_profiles", args, scope), (result) => result.profiles)

export const idsOf = (threads: ReadonlyArray<{ readonly threadId: string }>) => threads.map((thread) => thread.threadId)

/** The only element of a one-element array (fails the test otherwise). */
export const only = <A>(items: ReadonlyArray<A>, label: string): A => {
  expect(items, label).toHaveLength(1)
  const [item] = items
  if (item === undefined) throw new Error(`${label}: empty`)
  return item
}

/** The last element of a non-empty array. */
export const last = <A>(items: ReadonlyArray<A>, label: string): A => {
  const item = items.at(-1)
  if (item === undefined) throw new Error(`${label}: empty`)
  return item
}

/** Whether a raw tool result carries `field` at the top level. */
export const hasField = (value: unknown, field: string): boolean =>
  typeof value === "object" && value !== null && Object.hasOwn(value, field)

// ---------------------------------------------------------------------------------------------
// Scenarios
// ---------------------------------------------------------------------------------------------

/** A registered CLI: its live session, profile and (only) checkout. */
export interface Cli {
  readonly client: BridgeClient
  readonly sessionId: Effect.Effect.Success<ReturnType<typeof registerCli>>["sessionId"]
  readonly profileId: string
  readonly profileName: string
  readonly pathId: string
  readonly path: string
}

/** The target arguments of `create_thread` for a CLI's checkout. */
export const target = (cli: Cli, cliType = "claude") => ({ profileId: cli.profileId, pathId: cli.pathId, cliType })

/** Registers a new CLI profile (one checkout, runtimes claude, codex and opencode) for the project. */
export const registerMachine = (key: string, projectId: ProjectId, options: { readonly name?: string; readonly path?: string } = {}) =>
  Effect.gen(function*() {
    const client = yield* bridgeClient(key)
    const name = options.name ?? "laptop"
    const registered = yield* registerCli(client, projectId, { name, path: options.path ?? "/home/dev/project" }).pipe(Effect.orDie)
    const checkout = only(registered.profile.paths, "registered paths")
    return {
      client,
      sessionId: registered.sessionId,
      profileId: registered.profile.profileId,
      profileName: registered.profile.name,
      pathId: checkout.pathId,
      path: checkout.path
    } satisfies Cli
  })

/** Ends the CLI's session: its profile is offline from then on. */
export const disconnect = (cli: Cli) => cli.client.agent.disconnect({ payload: { sessionId: cli.sessionId } }).pipe(Effect.orDie)

/** An organization owner with a project and a CLI registered for it. */
export const ownerWithCli = (slug: string) =>
  Effect.gen(function*() {
    const owner = yield* seedOwner(slug)
    const cli = yield* registerMachine(owner.key, owner.project.id)
    return { ...owner, scope: scopedTo(owner.project.id), cli }
  })

export type Owner = Effect.Effect.Success<ReturnType<typeof ownerWithCli>>

/** Another user, a member of the owner's project, with their own CLI registered for it. */
export const teammate = (owner: Owner, name: string) =>
  Effect.gen(function*() {
    const user = yield* (yield* Users).create({ name: `Teammate ${name}`, email: `${name}@${owner.organization.slug}.test` })
    yield* (yield* Memberships).addToProject(owner.project.id, user.id, "member")
    const key = (yield* createKey(user.id, null)).secret
    const cli = yield* registerMachine(key, owner.project.id, { name: `${name}-box`, path: `/home/${name}/project` })
    return { user, key, cli }
  })

/** A second project of the owner's organization, with a CLI of the owner's registered for it. */
export const secondProject = (owner: Owner, ref: string) =>
  Effect.gen(function*() {
    const project = yield* (yield* Projects).create({ organizationId: owner.organization.id, name: `Project ${ref}`, ref })
    const cli = yield* registerMachine(owner.key, project.id, { name: `${ref.toLowerCase()}-box`, path: `/srv/${ref.toLowerCase()}` })
    return { project, cli }
  })

/** A new thread on the CLI's checkout (claude unless the arguments say otherwise). */
export const threadOn = (key: string, cli: Cli, args: Record<string, unknown> = {}) =>
  createThread(key, { content: "Look into the flaky test", ...target(cli), ...args })

/** A thread spawned beside `sourceThreadId` (or added to that group). */
export const spawn = (key: string, sourceThreadId: string, args: Record<string, unknown> = {}) =>
  createThread(key, { content: "Help with part of it", sourceThreadId, ...args })

/** Shares a thread (a thread in a group shares through its group). */
export const share = (cli: Cli, threadId: string) =>
  cli.client.threads.setShared({ path: { threadId }, payload: { shared: true } }).pipe(Effect.orDie)

export const pin = (cli: Cli, threadId: string) =>
  cli.client.threads.setPinned({ path: { threadId }, payload: { pinned: true } }).pipe(Effect.orDie)

export const markDone = (cli: Cli, threadId: string) =>
  cli.client.threads.setDone({ path: { threadId }, payload: { done: true } }).pipe(Effect.orDie)

export const createWorkflowRun = (cli: Cli, projectId: ProjectId, title: string) =>
  cli.client.threads.createWorkflowRun({ payload: { projectId, title } }).pipe(Effect.orDie)

// ---------------------------------------------------------------------------------------------
// Raw runtime chunks (Claude Code stream-json lines)
// ---------------------------------------------------------------------------------------------

export interface Chunk {
  readonly type: string
  readonly data: string
}

let uuidCounter = 0
const nextUuid = () => `u${++uuidCounter}`

const assistantLine = (content: ReadonlyArray<unknown>): Chunk => ({
  type: "assistant",
  data: JSON.stringify({ type: "assistant", uuid: nextUuid(), message: { content } })
})

export const chunks = {
  /** An assistant text block: the only thing a message's text is made of. */
  text: (text: string): Chunk => assistantLine([{ type: "text", text }]),
  /** Model reasoning. */
  reasoning: (thinking: string): Chunk => assistantLine([{ type: "thinking", thinking, signature: "c2ln" }]),
  /** A tool call. */
  toolUse: (id: string, name: string, input: unknown): Chunk => assistantLine([{ type: "tool_use", id, name, input }]),
  /** A tool's output. */
  toolResult: (toolUseId: string, content: string): Chunk => ({
    type: "user",
    data: JSON.stringify({
      type: "user",
      uuid: nextUuid(),
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: toolUseId, content }] }
    })
  }),
  /** The end of a turn: its cost and the tokens of its context (input, output and cache, as Claude Code counts them). */
  result: (costUsd: number, usage: { readonly input: number; readonly output: number; readonly cacheRead: number }): Chunk => ({
    type: "result",
    data: JSON.stringify({
      type: "result",
      subtype: "success",
      uuid: nextUuid(),
      session_id: "session-1",
      total_cost_usd: costUsd,
      duration_ms: 1200,
      num_turns: 1,
      usage: { input_tokens: usage.input, output_tokens: usage.output, cache_read_input_tokens: usage.cacheRead },
      modelUsage: { "claude-sonnet": { contextWindow: 200000 } }
    })
  })
}

// ---------------------------------------------------------------------------------------------
// A fake CLI run
// ---------------------------------------------------------------------------------------------

/** Claims the thread for the CLI's session (it must be claimable). */
export const claim = (cli: Cli, threadId: string) =>
  Effect.gen(function*() {
    const { thread } = yield* cli.client.agent.claim({ payload: { sessionId: cli.sessionId, threadId } }).pipe(Effect.orDie)
    if (thread === null) return yield* Effect.dieMessage(`thread ${threadId} could not be claimed`)
    return thread
  })

/** Starts the next batch under the claim (there must be waiting user messages). */
export const startBatch = (cli: Cli, threadId: string, epoch: number) =>
  Effect.gen(function*() {
    const batch = yield* cli.client.agent.startBatch({ path: { threadId }, payload: { sessionId: cli.sessionId, epoch } }).pipe(
      Effect.orDie
    )
    if (batch.drained) return yield* Effect.dieMessage(`thread ${threadId}: no batch to start`)
    return batch
  })

export const upload = (cli: Cli, threadId: string, epoch: number, messageId: string, raw: ReadonlyArray<Chunk>, firstSeq = 0) =>
  cli.client.agent.uploadChunks({
    path: { threadId },
    payload: { sessionId: cli.sessionId, epoch, messageId, chunks: raw.map((chunk, i) => ({ seq: firstSeq + i, ...chunk })) }
  }).pipe(Effect.orDie)

export const complete = (cli: Cli, threadId: string, epoch: number, messageId: string) =>
  cli.client.agent.complete({ path: { threadId }, payload: { sessionId: cli.sessionId, epoch, messageId } }).pipe(Effect.orDie)

/** Asks for the next batch when none waits: the queue drains, the claim is released and the thread goes idle. */
export const drain = (cli: Cli, threadId: string, epoch: number) =>
  Effect.gen(function*() {
    const batch = yield* cli.client.agent.startBatch({ path: { threadId }, payload: { sessionId: cli.sessionId, epoch } }).pipe(
      Effect.orDie
    )
    expect(batch.drained, `thread ${threadId} should have drained`).toBe(true)
  })

/** Claims the thread, starts its batch and uploads `raw`, leaving the answer streaming. */
export const startStreaming = (cli: Cli, threadId: string, raw: ReadonlyArray<Chunk> = []) =>
  Effect.gen(function*() {
    const claimed = yield* claim(cli, threadId)
    const batch = yield* startBatch(cli, threadId, claimed.epoch)
    if (raw.length > 0) yield* upload(cli, threadId, claimed.epoch, batch.assistantMessageId, raw)
    return { claimed, epoch: claimed.epoch, assistantMessageId: batch.assistantMessageId, userMessages: batch.messages }
  })

/** One whole turn: claim, batch, chunks, complete, drain. The thread ends idle with a completed answer. */
export const runToCompletion = (cli: Cli, threadId: string, raw: ReadonlyArray<Chunk>) =>
  Effect.gen(function*() {
    const run = yield* startStreaming(cli, threadId, raw)
    yield* complete(cli, threadId, run.epoch, run.assistantMessageId)
    yield* drain(cli, threadId, run.epoch)
    return run
  })

/** One turn that fails: claim, batch, chunks, fail (with `errorMessage`), drain. */
export const runToFailure = (cli: Cli, threadId: string, raw: ReadonlyArray<Chunk>, errorMessage: string) =>
  Effect.gen(function*() {
    const run = yield* startStreaming(cli, threadId, raw)
    yield* cli.client.agent.fail({
      path: { threadId },
      payload: { sessionId: cli.sessionId, epoch: run.epoch, messageId: run.assistantMessageId, errorMessage }
    }).pipe(Effect.orDie)
    yield* drain(cli, threadId, run.epoch)
    return run
  })

// ---------------------------------------------------------------------------------------------
// Database probes and setup no tool offers
// ---------------------------------------------------------------------------------------------

/** Stored columns the tools do not show: pin/share, the agent binding and the worktree request. */
export const storedThread = (threadId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{
      readonly pinned: boolean
      readonly shared: boolean
      readonly projectAgentId: string | null
      readonly agentPrompt: string | null
      readonly hasWorktree: boolean
    }>`
      SELECT pinned_at IS NOT NULL AS pinned, shared_at IS NOT NULL AS shared, project_agent_id AS "projectAgentId",
        agent_prompt AS "agentPrompt", worktree IS NOT NULL AS "hasWorktree"
      FROM threads WHERE id = ${threadId}`.pipe(Effect.orDie)
    return only(rows, `stored thread ${threadId}`)
  })

/**
 * The groups a spawn made from `originThreadId`, each with its stored `member_count` (deleted members
 * included, what the 100-thread limit counts) and the members that really point at it.
 */
export const storedGroups = (originThreadId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return yield* sql<{ readonly id: string; readonly memberCount: number; readonly members: number }>`
      SELECT g.id, g.member_count AS "memberCount",
        (SELECT count(*) FROM threads m WHERE m.parent_thread_id = g.id)::int AS members
      FROM threads g WHERE g.kind = 'group' AND g.origin_thread_id = ${originThreadId}
      ORDER BY g.created_at, g.id`.pipe(Effect.orDie)
  })

/** Soft-deletes a thread as the web UI would (no tool deletes threads). */
export const softDelete = (threadId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE threads SET deleted_at = now() WHERE id = ${threadId}`.pipe(Effect.orDie))

/** Sets a thread's last activity to an exact timestamp (to build ties and near-ties). */
export const setLastActivity = (threadId: string, timestamp: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`UPDATE threads SET last_activity_at = ${timestamp}::timestamptz WHERE id = ${threadId}`.pipe(Effect.orDie)
  )

/** A `thread_…` ID that was never issued. */
export const missingThreadId = `thread_${"0".repeat(32)}`

const CreatedTask = Schema.Struct({
  taskId: Schema.String,
  refId: Schema.NullOr(Schema.String),
  taskPath: Schema.NullOr(Schema.String),
  taskUrl: Schema.NullOr(Schema.String)
})

/** A task created through `create_task`. */
export const createTask = (key: string, projectId: string, name: string) => ok(CreatedTask, key, "create_task", { name, projectId })
