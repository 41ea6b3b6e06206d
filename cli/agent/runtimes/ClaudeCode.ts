import * as Command from "@effect/platform/Command"
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import { Effect, Fiber, Queue, Ref, Scope, Stream } from "effect"
import { randomUUID } from "node:crypto"
import type { BatchInput, BatchMessage, InteractionOutcome, InteractionRequest, RawLine, Runtime, RuntimeOutput } from "./Runtime.js"
import { MCP_TOKEN_VARIABLE, outputLines, resumeOrStartFresh, RuntimeFailed, SessionGone, startRuntime } from "./Runtime.js"
import { STANDING_RULE_FIELD } from "../../../catalog/domain/Interaction.js"
import { claudeStandingRule, wantsAlways } from "./StandingRules.js"

/**
 * Runtime A, Claude Code: one subprocess per batch in print mode with stream-json in and out
 * (RUNTIMES.md §2). A new thread gets a session id chosen here; later batches resume it.
 * Tool permissions, questions (AskUserQuestion) and plan approvals (ExitPlanMode) arrive as
 * `control_request can_use_tool` on stdout; each is settled through the interaction bridge and
 * answered with a `control_response` on stdin, which stays open until the last `result`.
 * `result.is_error` — not `subtype` — says whether the batch failed.
 */

/** A new session with the id chosen here, or the resumption of the thread's. */
export type ClaudeSession = { readonly _tag: "New"; readonly id: string } | { readonly _tag: "Resume"; readonly id: string }

export const claudeArguments = (input: BatchInput, session: ClaudeSession): ReadonlyArray<string> => [
  "-p",
  "--input-format",
  "stream-json",
  "--output-format",
  "stream-json",
  "--verbose",
  "--permission-prompt-tool",
  "stdio",
  ...(session._tag === "New" ? ["--session-id", session.id] : ["--resume", session.id]),
  ...(input.model === null ? [] : ["--model", input.model]),
  ...(input.effort === null ? [] : ["--effort", input.effort]),
  ...(input.mode === "plan" ? ["--permission-mode", "plan"] : []),
  ...(input.agentPrompt === null || input.agentPrompt === "" ? [] : ["--append-system-prompt", input.agentPrompt]),
  // Claude expands `${VAR}` in the config's headers: the key stays in its environment.
  "--mcp-config",
  JSON.stringify({
    mcpServers: {
      trellis: { type: "http", url: input.mcp.url, headers: { Authorization: `Bearer \${${MCP_TOKEN_VARIABLE}}` } }
    }
  })
]

/**
 * The batch's user turns: consecutive messages become one turn (one text block each), and a
 * runtime command (a slash command) is a turn of its own, so Claude runs it as a command.
 */
export const userTurns = (messages: ReadonlyArray<BatchMessage>): ReadonlyArray<ReadonlyArray<string>> => {
  const turns: Array<Array<string>> = []
  let open: Array<string> | undefined
  for (const message of messages) {
    if (message.runtimeCommand) {
      turns.push([message.content])
      open = undefined
    } else if (open === undefined) {
      open = [message.content]
      turns.push(open)
    } else {
      open.push(message.content)
    }
  }
  return turns
}

const userTurn = (texts: ReadonlyArray<string>): string =>
  JSON.stringify({
    type: "user",
    message: { role: "user", content: texts.map((text) => ({ type: "text", text })) },
    parent_tool_use_id: null,
    session_id: ""
  }) + "\n"

/** Tools that only read: what `--approve read-only` may allow without asking. */
const READ_ONLY_TOOLS = new Set([
  "Read",
  "Glob",
  "Grep",
  "LS",
  "NotebookRead",
  "WebFetch",
  "WebSearch",
  "TodoWrite",
  "ListMcpResourcesTool",
  "ReadMcpResourceTool"
])

type Json = Record<string, unknown>
const record = (value: unknown): Json => (typeof value === "object" && value !== null && !Array.isArray(value) ? Object(value) : {})

/** What a `can_use_tool` request asks of a person. */
export const interactionOf = (request: Json): InteractionRequest => {
  const tool = String(request["tool_name"] ?? "")
  const standing = claudeStandingRule(request)
  const shown = {
    tool,
    input: request["input"] ?? {},
    ...(typeof request["description"] === "string" ? { description: request["description"] } : {}),
    ...(typeof request["blocked_path"] === "string" ? { blockedPath: request["blocked_path"] } : {})
  }
  if (tool === "AskUserQuestion") {
    return { kind: "question", request: { ...shown, questions: record(request["input"])["questions"] ?? [] }, approval: "ask" }
  }
  if (tool === "ExitPlanMode" || tool === "EnterPlanMode") return { kind: "permission", request: shown, approval: "ask" }
  const offered = standing === undefined ? shown : { ...shown, [STANDING_RULE_FIELD]: standing.words }
  return { kind: "permission", request: offered, approval: READ_ONLY_TOOLS.has(tool) ? "read-only" : "write" }
}

export const EXPIRED_MESSAGE =
  "Nobody answered this request in time, so it expired. This is not a refusal by the user: do not treat it as one. " +
  "Continue without it, or ask again later."

/**
 * The answers to AskUserQuestion, keyed by question text, from a client's answer: one list of
 * chosen labels per question (`[["Blue"]]`), `{ answers: { "<question>": "<label>" } }`, or one string.
 */
const questionAnswers = (input: Json, answer: unknown): Record<string, string> => {
  const questions = Array.isArray(input["questions"]) ? input["questions"].map((q) => String(record(q)["question"] ?? "")) : []
  const given = record(answer)["answers"]
  if (typeof given === "object" && given !== null && !Array.isArray(given)) {
    return Object.fromEntries(
      Object.entries(given).map(([question, value]) => [question, Array.isArray(value) ? value.join(", ") : String(value)])
    )
  }
  const perQuestion: ReadonlyArray<unknown> = Array.isArray(given) ? given : Array.isArray(answer) ? answer : [answer]
  return Object.fromEntries(questions.flatMap((question, i) => {
    const value = perQuestion[i]
    if (value === undefined || value === null) return []
    return [[question, Array.isArray(value) ? value.map(String).join(", ") : String(value)]]
  }))
}

const denialMessage = (answer: unknown, fallback: string): string => {
  const message = typeof answer === "string" ? answer : record(answer)["message"]
  return typeof message === "string" && message !== "" ? message : fallback
}

/** The `can_use_tool` reply for an outcome. */
export const permissionReply = (request: Json, outcome: InteractionOutcome): Json => {
  const tool = String(request["tool_name"] ?? "")
  const input = record(request["input"])
  switch (outcome._tag) {
    case "Expired":
      return { behavior: "deny", message: EXPIRED_MESSAGE }
    case "Denied":
      return {
        behavior: "deny",
        message: denialMessage(
          outcome.answer,
          tool === "AskUserQuestion" ? "The user declined to answer." : "The user denied this request."
        )
      }
    case "Answered": {
      const updatedInput = tool === "AskUserQuestion" ? { ...input, answers: questionAnswers(input, outcome.answer) } : input
      const standing = wantsAlways(outcome) ? claudeStandingRule(request) : undefined
      return standing === undefined
        ? { behavior: "allow", updatedInput }
        : { behavior: "allow", updatedInput, updatedPermissions: standing.updatedPermissions }
    }
  }
}

const controlResponse = (requestId: string, response: Json): string =>
  JSON.stringify({ type: "control_response", response: { subtype: "success", request_id: requestId, response } }) + "\n"

/** Claude Code's own interrupt (the SDK's `interrupt()`): the running turn ends with its result. */
const interruptRequest = (): string =>
  JSON.stringify({ type: "control_request", request_id: `interrupt_${randomUUID()}`, request: { subtype: "interrupt" } }) + "\n"

const controlError = (requestId: string, error: string): string =>
  JSON.stringify({ type: "control_response", response: { subtype: "error", request_id: requestId, error } }) + "\n"

interface ParsedLine {
  readonly value: Json
  readonly type: string
  readonly sessionId: string | undefined
  readonly failure: string | undefined
  readonly isResult: boolean
}

const parseLine = (line: string): ParsedLine => {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return { value: {}, type: "unparsed", sessionId: undefined, failure: undefined, isResult: false }
  }
  const json = record(value)
  const type = json["type"]
  const sessionId = json["session_id"]
  const isResult = type === "result"
  const result = json["result"]
  return {
    value: json,
    type: typeof type === "string" ? type : "unparsed",
    sessionId: typeof sessionId === "string" ? sessionId : undefined,
    failure: isResult && json["is_error"] === true
      ? (typeof result === "string" && result !== "" ? result : "Claude reported an error")
      : undefined,
    isResult
  }
}

/** How claude says it no longer has the session a batch asked to resume. */
const SESSION_GONE = /No conversation found/i

const isInit = (parsed: ParsedLine): boolean => parsed.type === "system" && parsed.value["subtype"] === "init"

/** One claude process for the batch's turns. */
const runClaude = (input: BatchInput, session: ClaudeSession, turns: ReadonlyArray<ReadonlyArray<string>>) =>
  Stream.unwrapScoped(Effect.gen(function*() {
    const scope = yield* Scope.Scope
    const { process, stderr } = yield* startRuntime(
      "claude",
      Command.make("claude", ...claudeArguments(input, session)).pipe(Command.stdin("pipe")),
      input
    )
    // stdin stays open until the last result, so control responses can still be written.
    const stdin = yield* Queue.unbounded<string>()
    yield* Queue.offerAll(stdin, turns.map(userTurn))
    yield* Stream.fromQueue(stdin).pipe(Stream.encodeText, Stream.run(process.stdin), Effect.ignore, Effect.forkScoped)
    const failure = yield* Ref.make<string | undefined>(undefined)
    const results = yield* Ref.make(0)
    // Stopped, claude is sent its interrupt (the SDK's), and stdin closes at the result that ends
    // the interrupted turn: the batch's later turns are not run.
    const stopping = yield* Ref.make(false)
    yield* input.stopRequested.pipe(
      Effect.zipRight(Ref.set(stopping, true)),
      Effect.zipRight(Queue.offer(stdin, interruptRequest())),
      Effect.forkScoped
    )
    // Resuming, output is held back until claude shows it has the session (its init line): a
    // lost session is then retried fresh without its error lines in the thread.
    const held = yield* Ref.make<ReadonlyArray<RuntimeOutput> | undefined>(session._tag === "Resume" ? [] : undefined)

    /** Settles a control request off the output stream, so output keeps flowing while a person decides. */
    const answerControl = (line: Json) => {
      const requestId = String(line["request_id"] ?? "")
      const request = record(line["request"])
      if (request["subtype"] !== "can_use_tool") {
        return Queue.offer(stdin, controlError(requestId, `unsupported control request: ${String(request["subtype"])}`))
      }
      return input.ask(interactionOf(request)).pipe(
        Effect.flatMap((outcome) => Queue.offer(stdin, controlResponse(requestId, permissionReply(request, outcome)))),
        Effect.forkIn(scope)
      )
    }

    const outputs = outputLines(process.stdout).pipe(
      Stream.mapConcatEffect((data) =>
        Effect.gen(function*() {
          const parsed = parseLine(data)
          if (parsed.failure !== undefined) yield* Ref.set(failure, parsed.failure)
          if (parsed.type === "control_request") yield* answerControl(parsed.value)
          if (parsed.isResult && ((yield* Ref.updateAndGet(results, (n) => n + 1)) >= turns.length || (yield* Ref.get(stopping)))) {
            yield* Queue.shutdown(stdin)
          }
          const line: RawLine = { type: parsed.type, data }
          const out: Array<RuntimeOutput> = [{ _tag: "Line", line }]
          if (parsed.sessionId !== undefined) out.push({ _tag: "SessionId", id: parsed.sessionId })
          const holding = yield* Ref.get(held)
          if (holding === undefined) return out
          if (!isInit(parsed)) return yield* Ref.set(held, [...holding, ...out]).pipe(Effect.as([]))
          yield* Ref.set(held, undefined)
          return [...holding, ...out]
        })
      ),
      Stream.mapError((error) => new RuntimeFailed({ message: `Reading claude's output failed: ${String(error)}`, stderr: "" }))
    )

    const ending = Effect.gen(function*() {
      yield* Queue.shutdown(stdin)
      const exitCode = yield* process.exitCode.pipe(Effect.orElseSucceed(() => -1))
      const errors = yield* Fiber.join(stderr)
      const holding = yield* Ref.get(held)
      const reported = yield* Ref.get(failure)
      const outcome: Stream.Stream<RuntimeOutput, RuntimeFailed | SessionGone> =
        session._tag === "Resume" && holding !== undefined && exitCode !== 0 && SESSION_GONE.test(errors)
          ? Stream.fail(new SessionGone({ sessionId: session.id }))
          : reported !== undefined
          ? Stream.concat(Stream.fromIterable(holding ?? []), Stream.fail(new RuntimeFailed({ message: reported, stderr: errors })))
          : exitCode !== 0
          ? Stream.concat(
            Stream.fromIterable(holding ?? []),
            Stream.fail(new RuntimeFailed({ message: `claude exited with code ${exitCode}`, stderr: errors }))
          )
          : Stream.fromIterable(holding ?? [])
      return outcome
    })
    return Stream.concat(outputs, Stream.unwrap(ending))
  }))

export const ClaudeCode: Runtime = {
  cliType: "claude",
  transport: "stream-json",
  run: (input): Stream.Stream<RuntimeOutput, RuntimeFailed, CommandExecutor.CommandExecutor> =>
    resumeOrStartFresh("claude", input, (batch) =>
      runClaude(
        batch,
        batch.runtimeSessionId === null ? { _tag: "New", id: randomUUID() } : { _tag: "Resume", id: batch.runtimeSessionId },
        userTurns(batch.messages)
      ))
}
