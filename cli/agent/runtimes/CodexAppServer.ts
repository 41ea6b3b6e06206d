import * as Command from "@effect/platform/Command"
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import { Deferred, Effect, Fiber, Queue, Ref, Schema, Scope, Stream, Take } from "effect"
import type { ThreadResumeParams } from "./generated/codex-protocol/v2/ThreadResumeParams.js"
import type { ThreadStartParams } from "./generated/codex-protocol/v2/ThreadStartParams.js"
import type { TurnStartParams } from "./generated/codex-protocol/v2/TurnStartParams.js"
import type { TurnSteerParams } from "./generated/codex-protocol/v2/TurnSteerParams.js"
import type { ToolRequestUserInputParams } from "./generated/codex-protocol/v2/ToolRequestUserInputParams.js"
import type { ToolRequestUserInputResponse } from "./generated/codex-protocol/v2/ToolRequestUserInputResponse.js"
import type { CommandExecutionApprovalDecision } from "./generated/codex-protocol/v2/CommandExecutionApprovalDecision.js"
import type { BatchInput, InteractionOutcome, Runtime, RuntimeOutput } from "./Runtime.js"
import {
  MCP_TOKEN_VARIABLE,
  outputLines,
  readInBackground,
  resumeOrStartFresh,
  RuntimeFailed,
  SessionGone,
  startRuntime,
  stopRuntime
} from "./Runtime.js"
import { userTurns } from "./ClaudeCode.js"
import { STANDING_RULE_FIELD } from "../../../catalog/domain/Interaction.js"
import { codexStandingRule, wantsAlways } from "./StandingRules.js"

/**
 * Runtime B, default transport: `codex app-server`, JSON-RPC over stdio without the `jsonrpc`
 * field (RUNTIMES.md §3.3), one process per batch. initialize → thread/start (or thread/resume
 * of the thread's runtime session) → one turn/start per user turn, each until turn/completed;
 * `/compact` is thread/compact/start. Approval and user-input requests from the server are
 * settled through the interaction bridge. Every message the server sends is a chunk typed with
 * its method (a response with the method of its request), as the normalizer expects.
 */

type Json = Record<string, unknown>
const record = (value: unknown): Json => (typeof value === "object" && value !== null && !Array.isArray(value) ? Object(value) : {})

class RpcFailed extends Schema.TaggedError<RpcFailed>()("RpcFailed", { method: Schema.String, message: Schema.String }) {}

/**
 * The reply to a command or file-change approval. Codex has no "expired": an expired request is
 * declined (never `cancel`, which would end the turn as a refusal would); the interaction itself is
 * recorded as expired.
 */
export const approvalReply = (outcome: InteractionOutcome, params: Json = {}): { readonly decision: CommandExecutionApprovalDecision } => {
  const standing = wantsAlways(outcome) ? codexStandingRule(params) : undefined
  if (standing !== undefined) return { decision: { acceptWithExecpolicyAmendment: { execpolicy_amendment: [...standing.amendment] } } }
  return { decision: outcome._tag === "Answered" ? "accept" : "decline" }
}

/**
 * What Codex is told of a refusal's message. Its approval decision has no room for one, so the
 * message is steered into the waiting turn (`turn/steer`) as the user's words, before the decline.
 */
export const refusalSteer = (
  outcome: InteractionOutcome,
  turn: { readonly threadId: unknown; readonly turnId: unknown }
): TurnSteerParams | undefined => {
  const message = outcome._tag === "Denied" ? record(outcome.answer)["message"] : undefined
  if (typeof message !== "string" || message.trim() === "" || typeof turn.threadId !== "string" || typeof turn.turnId !== "string") {
    return undefined
  }
  const text = `I refused that request. My reason: ${message}`
  return { threadId: turn.threadId, expectedTurnId: turn.turnId, input: [{ type: "text", text, text_elements: [] }] }
}

/**
 * request_user_input answers keyed by question id, from a client's answer: one list of labels
 * per question (`[["Blue"]]`), `{ answers: { "<id>": ["<label>"] } }`, or one string.
 */
export const userInputAnswers = (
  questions: ToolRequestUserInputParams["questions"],
  outcome: InteractionOutcome
): ToolRequestUserInputResponse => {
  if (outcome._tag !== "Answered") return { answers: {} }
  const given = record(outcome.answer)["answers"]
  const byId = record(given)
  const perQuestion: ReadonlyArray<unknown> = Array.isArray(given)
    ? given
    : Array.isArray(outcome.answer)
    ? outcome.answer
    : [outcome.answer]
  return {
    answers: Object.fromEntries(questions.flatMap((question, i) => {
      const value = byId[question.id] ?? perQuestion[i]
      if (value === undefined || value === null) return []
      return [[question.id, { answers: Array.isArray(value) ? value.map(String) : [String(value)] }]]
    }))
  }
}

const decodeQuestions = (value: unknown): ToolRequestUserInputParams["questions"] =>
  Array.isArray(value) ? value.flatMap((q) => (typeof record(q)["id"] === "string" ? [q] : [])) : []

const isCompact = (turn: ReadonlyArray<string>, command: boolean): boolean => command && turn.length === 1 && turn[0]?.trim() === "/compact"

export const codexThreadConfig = (input: BatchInput): ThreadStartParams => ({
  cwd: input.cwd,
  approvalPolicy: "untrusted",
  sandbox: "workspace-write",
  ...(input.model === null ? {} : { model: input.model }),
  ...(input.agentPrompt === null || input.agentPrompt === "" ? {} : { developerInstructions: input.agentPrompt }),
  config: { mcp_servers: { trellis: { url: input.mcp.url, bearer_token_env_var: MCP_TOKEN_VARIABLE } } }
})

const runAppServer = (input: BatchInput, turns: ReadonlyArray<{ readonly texts: ReadonlyArray<string>; readonly command: boolean }>) =>
  Stream.unwrapScoped(Effect.gen(function*() {
    const scope = yield* Scope.Scope
    const { process, stderr } = yield* startRuntime(
      "codex app-server",
      Command.make("codex", "app-server").pipe(Command.stdin("pipe")),
      input
    )
    const stdin = yield* Queue.unbounded<string>()
    yield* Stream.fromQueue(stdin).pipe(Stream.encodeText, Stream.run(process.stdin), Effect.ignore, Effect.forkScoped)
    const out = yield* Queue.unbounded<Take.Take<RuntimeOutput, RuntimeFailed | SessionGone>>()
    const emit = (type: string, data: string) => Queue.offer(out, Take.of<RuntimeOutput>({ _tag: "Line", line: { type, data } }))
    const send = (message: Json) => Queue.offer(stdin, JSON.stringify(message) + "\n")

    const nextId = yield* Ref.make(1)
    const pending = new Map<number, { readonly method: string; readonly reply: Deferred.Deferred<Json, RpcFailed> }>()
    const turnEnd = yield* Ref.make<Deferred.Deferred<Json, RpcFailed> | undefined>(undefined)
    // The turn running now, which a stop interrupts (turn/interrupt); once stopped, no later turn starts.
    const running = yield* Ref.make<{ readonly threadId: string; readonly turnId: string } | undefined>(undefined)
    const stopping = yield* Ref.make(false)

    const request = (method: string, params: unknown) =>
      Effect.gen(function*() {
        const id = yield* Ref.getAndUpdate(nextId, (n) => n + 1)
        const reply = yield* Deferred.make<Json, RpcFailed>()
        pending.set(id, { method, reply })
        yield* send({ id, method, params })
        return yield* Deferred.await(reply)
      })

    /** A server→client request: settled through the bridge off the reading fiber. */
    const serverRequest = (id: unknown, method: string, params: Json) => {
      const reply = (result: unknown) => send({ id, result })
      switch (method) {
        case "item/commandExecution/requestApproval":
        case "item/fileChange/requestApproval": {
          const tool = method === "item/fileChange/requestApproval" ? "fileChange" : "command"
          const standing = codexStandingRule(params)
          const shown = { tool, ...params, ...(standing === undefined ? {} : { [STANDING_RULE_FIELD]: standing.words }) }
          return input.ask({ kind: "permission", request: shown, approval: "write" }).pipe(
            Effect.tap((outcome) => {
              const steer = refusalSteer(outcome, { threadId: params["threadId"], turnId: params["turnId"] })
              return steer === undefined ? Effect.void : request("turn/steer", steer).pipe(
                Effect.catchAll((error) => Effect.logWarning(`the refusal's message could not reach Codex (turn/steer: ${error.message})`))
              )
            }),
            Effect.flatMap((outcome) => reply(approvalReply(outcome, params)))
          )
        }
        case "item/tool/requestUserInput": {
          const questions = decodeQuestions(params["questions"])
          return input.ask({ kind: "question", request: { tool: "request_user_input", questions }, approval: "ask" }).pipe(
            Effect.flatMap((outcome) => reply(userInputAnswers(questions, outcome)))
          )
        }
        default:
          return send({ id, error: { code: -32601, message: `${method} is not supported by this client` } })
      }
    }

    const reader = outputLines(process.stdout).pipe(
      Stream.runForEach((data) =>
        Effect.gen(function*() {
          let parsed: unknown
          try {
            parsed = JSON.parse(data)
          } catch {
            return yield* emit("unparsed", data)
          }
          const message = record(parsed)
          const method = message["method"]
          if (typeof method !== "string") {
            const id = Number(message["id"])
            const waiting = pending.get(id)
            pending.delete(id)
            yield* emit(waiting?.method ?? "response", data)
            if (waiting === undefined) return
            const error = message["error"]
            return yield* error === undefined
              ? Deferred.succeed(waiting.reply, record(message["result"]))
              : Deferred.fail(
                waiting.reply,
                new RpcFailed({ method: waiting.method, message: String(record(error)["message"] ?? JSON.stringify(error)) })
              )
          }
          yield* emit(method, data)
          if (message["id"] !== undefined) {
            return yield* Effect.forkIn(serverRequest(message["id"], method, record(message["params"])), scope)
          }
          if (method === "turn/completed") {
            const waiting = yield* Ref.get(turnEnd)
            if (waiting !== undefined) yield* Deferred.succeed(waiting, record(record(message["params"])["turn"]))
          }
        })
      )
    )

    const exited = Effect.gen(function*() {
      const exitCode = yield* process.exitCode.pipe(Effect.orElseSucceed(() => -1))
      return new RuntimeFailed({ message: `codex app-server exited with code ${exitCode}`, stderr: yield* Fiber.join(stderr) })
    })

    /** Codex's own stop: the turn ends with turn/completed `interrupted`. */
    const interrupt = Effect.flatMap(Ref.get(running), (turn) =>
      turn === undefined ? Effect.void : request("turn/interrupt", turn).pipe(
        Effect.catchAll((error) => Effect.logWarning(`turn/interrupt was refused: ${error.message}`))
      ))
    yield* input.stopRequested.pipe(Effect.zipRight(Ref.set(stopping, true)), Effect.zipRight(interrupt), Effect.forkIn(scope))

    /** Runs one turn (or a compaction) to its turn/completed. */
    const runTurn = (threadId: string, model: string | null, turn: { readonly texts: ReadonlyArray<string>; readonly command: boolean }) =>
      Effect.gen(function*() {
        const end = yield* Deferred.make<Json, RpcFailed>()
        yield* Ref.set(turnEnd, end)
        if (isCompact(turn.texts, turn.command)) {
          yield* request("thread/compact/start", { threadId })
        } else {
          const params: TurnStartParams = {
            threadId,
            input: turn.texts.map((text) => ({ type: "text", text, text_elements: [] })),
            ...(input.model === null ? {} : { model: input.model }),
            ...(input.effort === null ? {} : { effort: input.effort }),
            ...(input.mode === "plan" && model !== null
              ? { collaborationMode: { mode: "plan", settings: { model, reasoning_effort: null, developer_instructions: null } } }
              : {})
          }
          const started = yield* request("turn/start", params)
          const turnId = record(started["turn"])["id"]
          if (typeof turnId === "string") {
            yield* Ref.set(running, { threadId, turnId })
            // A stop that came while the turn was starting.
            if (yield* Ref.get(stopping)) yield* interrupt
          }
        }
        const completed = yield* Deferred.await(end)
        yield* Ref.set(running, undefined)
        if (completed["status"] === "failed") {
          const error = record(completed["error"])
          return yield* new RpcFailed({ method: "turn", message: String(error["message"] ?? "the turn failed") })
        }
      })

    const driver = Effect.gen(function*() {
      yield* request("initialize", {
        clientInfo: { name: "trellis", title: "Trellis", version: "1" },
        capabilities: { experimentalApi: true }
      })
      yield* send({ method: "initialized" })
      const config = codexThreadConfig(input)
      const sessionId = input.runtimeSessionId
      // A refused resume means the app-server no longer has the session: the batch starts a fresh one.
      const resumed = sessionId !== null
        ? yield* request("thread/resume", { ...config, threadId: sessionId } satisfies ThreadResumeParams).pipe(
          Effect.catchAll(() => new SessionGone({ sessionId }))
        )
        : undefined
      const started = resumed ?? (yield* request("thread/start", config))
      const threadId = String(record(started["thread"])["id"] ?? "")
      const model = typeof started["model"] === "string" ? started["model"] : input.model
      yield* Queue.offer(out, Take.of<RuntimeOutput>({ _tag: "SessionId", id: threadId }))
      for (const turn of turns) {
        if (yield* Ref.get(stopping)) break
        yield* runTurn(threadId, model, turn)
      }
    })

    // The batch ends when the driver does, or fails when codex's output ends first (it died
    // mid-batch): whichever comes first settles one Deferred. Raced with Effect.raceFirst
    // instead, the race was seen (about one run in three) to never complete after the driver had
    // ended, right after an interaction: the batch hung with its turn completed.
    const ended = yield* Deferred.make<void, RuntimeFailed | SessionGone>()
    const outputEnded = yield* readInBackground(reader)
    yield* outputEnded.pipe(Effect.zipRight(exited), Effect.flatMap((died) => Deferred.fail(ended, died)), Effect.forkIn(scope))
    yield* driver.pipe(
      Effect.mapError((error) => error._tag === "SessionGone" ? error : new RuntimeFailed({ message: error.message, stderr: "" })),
      Effect.exit,
      Effect.flatMap((exit) => Deferred.done(ended, exit)),
      Effect.forkIn(scope)
    )
    yield* Deferred.await(ended).pipe(
      Effect.matchEffect({
        // stdin closed, the app-server exits on its own.
        onSuccess: () =>
          Queue.shutdown(stdin).pipe(Effect.zipRight(stopRuntime(process, "none")), Effect.zipRight(Queue.offer(out, Take.end))),
        onFailure: (error) =>
          Queue.shutdown(stdin).pipe(Effect.zipRight(stopRuntime(process)), Effect.zipRight(Queue.offer(out, Take.fail(error))))
      }),
      Effect.forkIn(scope)
    )
    return Stream.flattenTake(Stream.fromQueue(out))
  }))

const turnsOf = (input: BatchInput) => {
  let i = 0
  return userTurns(input.messages).map((texts) => {
    const first = input.messages[i]
    i += texts.length
    return { texts, command: first?.runtimeCommand === true }
  })
}

export const CodexAppServer: Runtime = {
  cliType: "codex",
  transport: "app-server",
  run: (input): Stream.Stream<RuntimeOutput, RuntimeFailed, CommandExecutor.CommandExecutor> =>
    resumeOrStartFresh("codex", input, (batch) => runAppServer(batch, turnsOf(batch)))
}
