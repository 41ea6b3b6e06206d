import { Command, type CommandExecutor } from "@effect/platform"
import { createOpencodeClient, type OpencodeClient } from "@opencode-ai/sdk/v2"
import { Deferred, Duration, Effect, Fiber, Queue, Ref, Scope, Stream, Take } from "effect"
import type { BatchInput, InteractionOutcome, RuntimeOutput } from "./Runtime.js"
import { type Runtime, RuntimeFailed, startRuntime, stopRuntime } from "./Runtime.js"

/**
 * Runtime C, OpenCode: `opencode serve` on 127.0.0.1 (a free port) driven through
 * `@opencode-ai/sdk/v2` (RUNTIMES.md §4.3). The session (the runtime session id) is created or
 * reused, each user message is `promptAsync` (or `session.command` for a runtime command,
 * `session.summarize` for `/compact`) and runs until `session.idle`. `permission.asked` and
 * `question.asked` are settled through the interaction bridge. Every event of the session is a
 * chunk typed with its event type.
 */

const START_TIMEOUT = Duration.seconds(60)

type Json = Record<string, unknown>
const record = (value: unknown): Json => (typeof value === "object" && value !== null && !Array.isArray(value) ? Object(value) : {})

/** `provider/model` as OpenCode names a model. */
export const modelRef = (model: string | null): { readonly providerID: string; readonly modelID: string } | undefined => {
  if (model === null) return undefined
  const slash = model.indexOf("/")
  return slash <= 0 ? undefined : { providerID: model.slice(0, slash), modelID: model.slice(slash + 1) }
}

/** One list of labels per question, from `[["Blue"]]`, `{ answers: [...] }` or one string. */
export const questionReplies = (questions: ReadonlyArray<unknown>, answer: unknown): Array<Array<string>> => {
  const given = record(answer)["answers"]
  const perQuestion: ReadonlyArray<unknown> = Array.isArray(given) ? given : Array.isArray(answer) ? answer : [answer]
  return questions.map((_, i) => {
    const value = perQuestion[i]
    return value === undefined || value === null ? [] : Array.isArray(value) ? value.map(String) : [String(value)]
  })
}

const failed = (what: string) => (error: unknown) => new RuntimeFailed({ message: `${what}: ${String(error)}`, stderr: "" })

/** A call through the SDK: its data, or the error it returned, as a failure. */
const call = <A>(what: string, promise: () => Promise<{ readonly data?: A; readonly error?: unknown }>) =>
  Effect.tryPromise({ try: promise, catch: failed(what) }).pipe(
    Effect.flatMap((result) => (result.error === undefined ? Effect.succeed(result.data) : Effect.fail(failed(what)(JSON.stringify(result.error)))))
  )

export const OpenCode: Runtime = {
  cliType: "opencode",
  transport: "server",
  run: (input: BatchInput): Stream.Stream<RuntimeOutput, RuntimeFailed, CommandExecutor.CommandExecutor> =>
    Stream.unwrapScoped(Effect.gen(function* () {
      const scope = yield* Scope.Scope
      const { process, stderr } = yield* startRuntime("opencode serve", Command.make("opencode", "serve", "--hostname", "127.0.0.1", "--port", "0"), input, {
        OPENCODE_ENABLE_QUESTION_TOOL: "1",
        OPENCODE_CONFIG_CONTENT: JSON.stringify({
          mcp: { trellis: { type: "remote", url: input.mcp.url, headers: { Authorization: `Bearer ${input.mcp.apiKey}` } } }
        })
      })
      const listening = yield* Deferred.make<string, RuntimeFailed>()
      yield* process.stdout.pipe(
        Stream.decodeText(),
        Stream.splitLines,
        Stream.runForEach((line) => {
          const url = /https?:\/\/127\.0\.0\.1:\d+/.exec(line)?.[0]
          return line.includes("listening") && url !== undefined ? Deferred.succeed(listening, url) : Effect.void
        }),
        Effect.ignore,
        Effect.forkScoped
      )
      const baseUrl = yield* Deferred.await(listening).pipe(
        Effect.timeoutFail({ duration: START_TIMEOUT, onTimeout: () => new RuntimeFailed({ message: "opencode serve did not start", stderr: "" }) }),
        Effect.raceFirst(Effect.flatMap(process.exitCode.pipe(Effect.orElseSucceed(() => -1)), (code) =>
          Effect.flatMap(Fiber.join(stderr), (errors) => Effect.fail(new RuntimeFailed({ message: `opencode serve exited with code ${code}`, stderr: errors })))))
      )
      const client: OpencodeClient = createOpencodeClient({ baseUrl, directory: input.cwd })
      const model = modelRef(input.model)

      const session = input.runtimeSessionId ?? (yield* call("session.create", () => client.session.create({ title: `Trellis ${input.threadId}` })).pipe(
        Effect.map((created) => String(record(created)["id"] ?? ""))
      ))
      const out = yield* Queue.unbounded<Take.Take<RuntimeOutput, RuntimeFailed>>()
      yield* Queue.offer(out, Take.of<RuntimeOutput>({ _tag: "SessionId", id: session }))
      const idle = yield* Ref.make<Deferred.Deferred<void> | undefined>(undefined)
      const sessionError = yield* Ref.make<string | undefined>(undefined)

      const settle = (type: string, props: Json) => {
        const id = String(props["id"] ?? "")
        if (type === "permission.asked") {
          return input.ask({ kind: "permission", request: { tool: props["permission"], patterns: props["patterns"], metadata: props["metadata"] }, approval: "write" }).pipe(
            Effect.flatMap((outcome: InteractionOutcome) =>
              call("permission.reply", () =>
                client.permission.reply({
                  requestID: id,
                  reply: outcome._tag === "Answered" ? "once" : "reject",
                  ...(outcome._tag === "Expired"
                    ? { message: "Nobody answered this request in time, so it expired. This is not a refusal by the user." }
                    : outcome._tag === "Denied" && typeof record(outcome.answer)["message"] === "string"
                    ? { message: String(record(outcome.answer)["message"]) }
                    : {})
                }))
            ),
            Effect.ignore
          )
        }
        const questions = Array.isArray(props["questions"]) ? props["questions"] : []
        return input.ask({ kind: "question", request: { tool: "question", questions }, approval: "ask" }).pipe(
          Effect.flatMap((outcome) =>
            outcome._tag === "Answered"
              ? call("question.reply", () => client.question.reply({ requestID: id, answers: questionReplies(questions, outcome.answer) }))
              : call("question.reject", () => client.question.reject({ requestID: id }))
          ),
          Effect.ignore
        )
      }

      const events = yield* Effect.tryPromise({ try: () => client.event.subscribe(), catch: failed("event.subscribe") })
      yield* Stream.fromAsyncIterable(events.stream, failed("events")).pipe(
        Stream.runForEach((event) =>
          Effect.gen(function* () {
            const type = String(record(event)["type"] ?? "")
            const props = record(record(event)["properties"])
            const about = props["sessionID"] ?? record(props["info"])["sessionID"] ?? record(props["part"])["sessionID"] ?? record(props["info"])["id"]
            if (about !== session) return
            yield* Queue.offer(out, Take.of<RuntimeOutput>({ _tag: "Line", line: { type, data: JSON.stringify(event) } }))
            if (type === "permission.asked" || type === "question.asked") yield* Effect.forkIn(settle(type, props), scope)
            if (type === "session.error") yield* Ref.set(sessionError, String(record(record(props["error"])["data"])["message"] ?? "the session failed"))
            if (type === "session.idle") {
              const waiting = yield* Ref.get(idle)
              if (waiting !== undefined) yield* Deferred.succeed(waiting, undefined)
            }
          })
        ),
        Effect.ignore,
        Effect.forkScoped
      )

      const runMessage = (message: BatchInput["messages"][number]) =>
        Effect.gen(function* () {
          const done = yield* Deferred.make<void>()
          yield* Ref.set(idle, done)
          const text = message.content.trim()
          if (message.runtimeCommand && text === "/compact") {
            yield* call("session.summarize", () => client.session.summarize({ sessionID: session, ...(model === undefined ? {} : model) }))
          } else if (message.runtimeCommand) {
            const [name = "", ...rest] = text.slice(1).split(/\s+/)
            yield* Effect.forkIn(call("session.command", () => client.session.command({ sessionID: session, command: name, arguments: rest.join(" ") })).pipe(
              Effect.catchAll((error) => Ref.set(sessionError, error.message).pipe(Effect.zipRight(Deferred.succeed(done, undefined))))
            ), scope)
          } else {
            yield* call("session.promptAsync", () =>
              client.session.promptAsync({
                sessionID: session,
                parts: [{ type: "text", text: message.content }],
                ...(model === undefined ? {} : { model }),
                ...(input.effort === null ? {} : { variant: input.effort }),
                ...(input.mode === "plan" ? { agent: "plan" } : {}),
                ...(input.agentPrompt === null || input.agentPrompt === "" ? {} : { system: input.agentPrompt })
              }))
          }
          yield* Deferred.await(done)
          const error = yield* Ref.getAndSet(sessionError, undefined)
          if (error !== undefined) return yield* new RuntimeFailed({ message: error, stderr: "" })
        })

      yield* Effect.forEach(input.messages, runMessage, { discard: true }).pipe(
        Effect.matchEffect({
          onSuccess: () => stopRuntime(process).pipe(Effect.zipRight(Queue.offer(out, Take.end))),
          onFailure: (error) => Queue.offer(out, Take.fail(error))
        }),
        Effect.forkIn(scope)
      )
      return Stream.flattenTake(Stream.fromQueue(out))
    }))
}
