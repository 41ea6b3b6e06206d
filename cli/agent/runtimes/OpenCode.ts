import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import { createOpencodeClient, type OpencodeClient } from "@opencode-ai/sdk/v2"
import { Deferred, Duration, Effect, Exit, Queue, Ref, Scope, Stream, Take } from "effect"
import { configuredModel, lastModelOf, type ModelRef, modelRef } from "./OpenCodeModel.js"
import type { OpenCodeServers } from "./OpenCodeServer.js"
import type { BatchInput, InteractionOutcome, RuntimeOutput } from "./Runtime.js"
import { readInBackground, resumeOrStartFresh, type Runtime, RuntimeFailed, SessionGone } from "./Runtime.js"
import { STANDING_RULE_FIELD } from "../../../catalog/domain/Interaction.js"
import { openCodeStandingRule, wantsAlways } from "./StandingRules.js"

/**
 * Runtime C, OpenCode: the CLI process's one `opencode serve` (OpenCodeServer.ts) driven through
 * `@opencode-ai/sdk/v2` (RUNTIMES.md §4.3). The session (the runtime session id) is created or
 * reused, each user message is `promptAsync` (or `session.command` for a runtime command,
 * `session.summarize` for `/compact`) and runs until `session.idle`. `permission.asked` and
 * `question.asked` are settled through the interaction bridge. Every event of the session is a
 * chunk typed with its event type.
 */

const CONNECT_TIMEOUT = Duration.seconds(30)
/** An abort is answered in milliseconds; a wedged server is stopped right after anyway. */
const ABORT_TIMEOUT = Duration.seconds(2)
/** How often a running message's session status is read, beside the event stream. */
const STATUS_POLL = Duration.seconds(2)
const STATUS_POLL_TIMEOUT = Duration.seconds(5)
/** Polls in a row the server leaves unanswered before it is taken for dead (about 30 s). */
const UNANSWERED_POLLS = 5

type Json = Record<string, unknown>
const record = (value: unknown): Json => (typeof value === "object" && value !== null && !Array.isArray(value) ? Object(value) : {})

/** One list of labels per question, from `[["Blue"]]`, `{ answers: [...] }` or one string. */
export const questionReplies = (questions: ReadonlyArray<unknown>, answer: unknown): Array<Array<string>> => {
  const given = record(answer)["answers"]
  const perQuestion: ReadonlyArray<unknown> = Array.isArray(given) ? given : Array.isArray(answer) ? answer : [answer]
  return questions.map((_, i) => {
    const value = perQuestion[i]
    return value === undefined || value === null ? [] : Array.isArray(value) ? value.map(String) : [String(value)]
  })
}

export const EXPIRED_MESSAGE = "Nobody answered this request in time, so it expired. This is not a refusal by the user."

/** `permission.reply`'s answer: allowed once, or rejected with why (an expiry says so, never a user refusal). */
export const permissionReply = (outcome: InteractionOutcome): { readonly reply: "once" | "always" | "reject"; readonly message?: string } =>
  outcome._tag === "Answered"
    ? { reply: wantsAlways(outcome) ? "always" : "once" }
    : outcome._tag === "Expired"
    ? { reply: "reject", message: EXPIRED_MESSAGE }
    : typeof record(outcome.answer)["message"] === "string"
    ? { reply: "reject", message: String(record(outcome.answer)["message"]) }
    : { reply: "reject" }

/** The message of an OpenCode error (`{name, data: {message}}`). */
const errorMessage = (error: unknown): string => {
  const message = record(record(error)["data"])["message"]
  return typeof message === "string" && message !== "" ? message : String(record(error)["name"] ?? "the session failed")
}

/**
 * What an OpenCode session is told of its thread (SPEC create_thread rule 7): the shared server
 * has no per-thread environment, so the thread ID comes with every prompt, in its system part,
 * ahead of the project agent's prompt.
 */
export const systemPrompt = (threadId: string, agentPrompt: string | null): string =>
  [
    `This session runs Trellis thread ${threadId} (SERVICE_THREAD_ID). It is your own thread ID for Trellis's tools: ` +
    "pass it as sourceThreadId when you send a message or create a thread, so that replies can find their way back to this thread.",
    ...(agentPrompt === null || agentPrompt === "" ? [] : [agentPrompt])
  ].join("\n\n")

const failed = (what: string) => (error: unknown) => new RuntimeFailed({ message: `${what}: ${String(error)}`, stderr: "" })

/**
 * A call through the SDK: its data, or the error it returned, as a failure. Interruptible even
 * where it runs from an uninterruptible region (a finalizer, a stream run in one): there its
 * timeout, or the batch's end, would otherwise wait for a reply a wedged server never sends.
 */
const call = <A>(what: string, promise: () => Promise<{ readonly data?: A; readonly error?: unknown }>) =>
  Effect.interruptible(Effect.tryPromise({ try: promise, catch: failed(what) })).pipe(
    Effect.flatMap((
      result
    ) => (result.error === undefined ? Effect.succeed(result.data) : Effect.fail(failed(what)(JSON.stringify(result.error)))))
  )

/** One batch on the shared server, in the thread's session (created for a new one). */
const runBatch = (servers: OpenCodeServers, input: BatchInput) =>
  Stream.unwrapScoped(Effect.gen(function*() {
    const scope = yield* Scope.Scope
    const server = yield* servers.acquire(input.mcp)
    const client: OpencodeClient = createOpencodeClient({
      baseUrl: server.baseUrl,
      directory: input.cwd,
      headers: { authorization: server.authorization }
    })
    const model = modelRef(input.model)

    const resumed = input.runtimeSessionId
    if (resumed !== null) {
      const found = yield* Effect.interruptible(
        Effect.tryPromise({ try: () => client.session.get({ sessionID: resumed }), catch: failed("session.get") })
      ).pipe(
        Effect.timeoutFail({
          duration: CONNECT_TIMEOUT,
          onTimeout: () => new RuntimeFailed({ message: "opencode serve did not answer session.get", stderr: "" })
        })
      )
      // A request that got no answer comes back with the fetch's error and no response, whatever
      // the SDK's types say: the server died after it was acquired, and the batch can be retried.
      const answered: Response | undefined = found.response
      if (answered === undefined) return yield* failed("session.get")(JSON.stringify(found.error))
      if (answered.status === 404) return yield* new SessionGone({ sessionId: resumed })
    }
    const session = resumed ?? (yield* call("session.create", () => client.session.create({ title: `Trellis ${input.threadId}` })).pipe(
      Effect.map((created) => String(record(created)["id"] ?? "")),
      Effect.timeoutFail({
        duration: CONNECT_TIMEOUT,
        onTimeout: () => new RuntimeFailed({ message: "opencode serve did not create the session", stderr: "" })
      })
    ))
    const compactionModel: Effect.Effect<ModelRef, RuntimeFailed> = model !== undefined ? Effect.succeed(model) : Effect.gen(function*() {
      const ran = lastModelOf(yield* call("session.messages", () => client.session.messages({ sessionID: session })))
      if (ran !== undefined) return ran
      const configured = configuredModel(
        yield* call("config.get", () => client.config.get()),
        yield* call("config.providers", () => client.config.providers())
      )
      if (configured !== undefined) return configured
      return yield* new RuntimeFailed({
        message: "/compact needs a model: the thread has no cliModel and OpenCode has none configured (set `model` in opencode.json)",
        stderr: ""
      })
    })
    const out = yield* Queue.unbounded<Take.Take<RuntimeOutput, RuntimeFailed>>()
    yield* Queue.offer(out, Take.of<RuntimeOutput>({ _tag: "SessionId", id: session }))
    const idle = yield* Ref.make<Deferred.Deferred<void> | undefined>(undefined)
    // Whether the current message's run has been seen working (busy, retrying, asking).
    const working = yield* Ref.make(false)
    const sessionError = yield* Ref.make<string | undefined>(undefined)
    // The session and the sessions of the subagents it started, and theirs.
    const subagents = yield* Ref.make<ReadonlySet<string>>(new Set([session]))

    const settle = (type: string, props: Json) => {
      const id = String(props["id"] ?? "")
      if (type === "permission.asked") {
        const standing = openCodeStandingRule(props)
        const request = {
          tool: props["permission"],
          patterns: props["patterns"],
          metadata: props["metadata"],
          ...(standing === undefined ? {} : { [STANDING_RULE_FIELD]: standing.words })
        }
        return input.ask({ kind: "permission", request, approval: "write" }).pipe(
          Effect.flatMap((outcome: InteractionOutcome) =>
            call("permission.reply", () => client.permission.reply({ requestID: id, ...permissionReply(outcome) }))
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

    // The event stream is aborted when the batch ends: the SDK's SSE client otherwise
    // reconnects forever, and its generator can then never be closed (the batch hung there).
    // Until then it reconnects quickly (with Last-Event-ID): a dropped stream mid-run (seen
    // during API retries) must not lose the run's session.idle.
    const abort = new AbortController()
    yield* Effect.addFinalizer(() => Effect.sync(() => abort.abort()))
    const connected = yield* Deferred.make<void>()
    const events = yield* Effect.tryPromise({
      try: () => client.event.subscribe(undefined, { signal: abort.signal, sseDefaultRetryDelay: 200, sseMaxRetryDelay: 1000 }),
      catch: failed("event.subscribe")
    })
    yield* readInBackground(
      Stream.fromAsyncIterable(events.stream, failed("events")).pipe(
        Stream.runForEach((event) =>
          Effect.gen(function*() {
            yield* Deferred.succeed(connected, undefined)
            const type = String(record(event)["type"] ?? "")
            const props = record(record(event)["properties"])
            const about = props["sessionID"] ?? record(props["info"])["sessionID"] ?? record(props["part"])["sessionID"] ??
              record(props["info"])["id"]
            const parent = record(props["info"])["parentID"]
            if (type.startsWith("session.") && typeof parent === "string" && (yield* Ref.get(subagents)).has(parent)) {
              yield* Ref.update(subagents, (known) => new Set([...known, String(about)]))
            }
            if (about !== session) {
              // A subagent's session (the task tool) asks under the same approval rules as its
              // parent; its output stays in its own session.
              if ((type === "permission.asked" || type === "question.asked") && (yield* Ref.get(subagents)).has(String(about))) {
                yield* Effect.forkIn(Effect.interruptible(settle(type, props)), scope)
              }
              return
            }
            yield* Queue.offer(out, Take.of<RuntimeOutput>({ _tag: "Line", line: { type, data: JSON.stringify(event) } }))
            if (type === "permission.asked" || type === "question.asked") {
              yield* Effect.forkIn(Effect.interruptible(settle(type, props)), scope)
            }
            if (type === "session.error") {
              yield* Ref.set(sessionError, errorMessage(props["error"]))
            }
            if (
              type === "permission.asked" || type === "question.asked" ||
              (type === "session.status" && record(props["status"])["type"] !== "idle")
            ) {
              yield* Ref.set(working, true)
            }
            if (type === "session.idle") {
              const waiting = yield* Ref.get(idle)
              if (waiting !== undefined) yield* Deferred.succeed(waiting, undefined)
            }
          })
        )
      )
    )
    // The stream connects lazily: a prompt sent before it has would lose the run's first events.
    yield* Deferred.await(connected).pipe(
      Effect.timeoutFail({
        duration: CONNECT_TIMEOUT,
        onTimeout: () => new RuntimeFailed({ message: "opencode's event stream did not connect", stderr: "" })
      })
    )

    // The batch ends with its last message, or fails when the server dies under it.
    const ended = yield* Deferred.make<void, RuntimeFailed>()
    // Tells the status watchers the batch is over, however it ends.
    yield* Effect.addFinalizer(() => Deferred.interrupt(ended))

    // The event stream is not the only witness of a run's end: an event lost while the stream
    // reconnects (OpenCode does not replay them) would leave the batch waiting forever. The
    // session's status is polled too; once the run has been seen working and the session is
    // idle again, the run is over, and its last message says whether it failed. A server that
    // stops answering the poll is as good as dead: it is stopped and the run fails, retryable.
    const watchStatus = (done: Deferred.Deferred<void>) =>
      Effect.gen(function*() {
        const unanswered = yield* Ref.make(0)
        const poll = Effect.gen(function*() {
          const statuses = yield* call("session.status", () => client.session.status())
          yield* Ref.set(unanswered, 0)
          const status = record(record(statuses)[session])["type"] ?? "idle"
          if (status !== "idle") return yield* Ref.set(working, true)
          if (!(yield* Ref.get(working))) return
          const [last] = (yield* call("session.messages", () => client.session.messages({ sessionID: session, limit: 1 }))) ?? []
          const error = record(record(last)["info"])["error"]
          if (error !== undefined) yield* Ref.update(sessionError, (known) => known ?? errorMessage(error))
          yield* Deferred.succeed(done, undefined)
        }).pipe(Effect.timeout(STATUS_POLL_TIMEOUT))
        const over = Effect.zipWith(Deferred.isDone(done), Deferred.isDone(ended), (a, b) => a || b)
        yield* poll.pipe(
          Effect.catchAll(() =>
            Effect.gen(function*() {
              if ((yield* Ref.updateAndGet(unanswered, (n) => n + 1)) < UNANSWERED_POLLS) return
              yield* servers.discard(server)
              yield* Deferred.fail(
                ended,
                new RuntimeFailed({ message: "opencode serve stopped answering mid-run; the run can be retried", stderr: "" })
              )
            })
          ),
          Effect.zipRight(over),
          Effect.delay(STATUS_POLL),
          Effect.repeat({ until: (finished) => finished })
        )
      })

    const runMessage = (message: BatchInput["messages"][number]) =>
      Effect.gen(function*() {
        const done = yield* Deferred.make<void>()
        yield* Ref.set(idle, done)
        yield* Ref.set(working, false)
        // The watcher ends itself once the message (or the batch) is over, and the batch's end
        // does not wait for it: an interrupted watcher was seen to poll on and hold the batch's
        // scope open.
        yield* Effect.forkDaemon(watchStatus(done))
        const text = message.content.trim()
        const [name = "", ...rest] = text.slice(1).split(/\s+/)
        const sent: Effect.Effect<unknown, RuntimeFailed> = message.runtimeCommand && text === "/compact"
          ? Effect.flatMap(
            compactionModel,
            (named) => call("session.summarize", () => client.session.summarize({ sessionID: session, ...named }))
          )
          : message.runtimeCommand
          ? call("session.command", () => client.session.command({ sessionID: session, command: name, arguments: rest.join(" ") }))
          : call("session.promptAsync", () =>
            client.session.promptAsync({
              sessionID: session,
              parts: [{ type: "text", text: message.content }],
              ...(model === undefined ? {} : { model }),
              ...(input.effort === null ? {} : { variant: input.effort }),
              ...(input.mode === "plan" ? { agent: "plan" } : {}),
              system: systemPrompt(input.threadId, input.agentPrompt)
            }))
        // The run's end is told by the session going idle, never by the call's response: the
        // pinned server sometimes never answers `summarize` although the compaction it started
        // has ended, so no call is waited for. A call that fails ends the message with its error.
        yield* Effect.forkIn(
          sent.pipe(
            Effect.interruptible,
            Effect.catchAll((error) => Ref.set(sessionError, error.message).pipe(Effect.zipRight(Deferred.succeed(done, undefined))))
          ),
          scope
        )
        yield* Deferred.await(done)
        const error = yield* Ref.getAndSet(sessionError, undefined)
        if (error !== undefined) return yield* new RuntimeFailed({ message: error, stderr: "" })
      })

    // A batch that does not end normally (interrupted, failed) aborts its session on the shared server.
    yield* Effect.addFinalizer((exit) =>
      Effect.flatMap(Deferred.isDone(ended), (done) =>
        done && Exit.isSuccess(exit)
          ? Effect.void
          : call("session.abort", () => client.session.abort({ sessionID: session })).pipe(Effect.timeout(ABORT_TIMEOUT), Effect.ignore))
    )
    yield* server.died.pipe(Effect.catchAll((died) => Deferred.fail(ended, died)), Effect.interruptible, Effect.forkIn(scope))
    // OpenCode's own stop is the session's abort: the run goes idle (its error, the abort, is the
    // stop's), and no later message of the batch is sent.
    const stopping = yield* Ref.make(false)
    yield* input.stopRequested.pipe(
      Effect.zipRight(Ref.set(stopping, true)),
      Effect.zipRight(
        call("session.abort", () => client.session.abort({ sessionID: session })).pipe(Effect.timeout(ABORT_TIMEOUT), Effect.ignore)
      ),
      Effect.interruptible,
      Effect.forkIn(scope)
    )
    const unlessStopped = (message: BatchInput["messages"][number]) =>
      Effect.flatMap(Ref.get(stopping), (stopped) => (stopped ? Effect.void : runMessage(message)))
    yield* Effect.forEach(input.messages, unlessStopped, { discard: true }).pipe(
      Effect.exit,
      Effect.flatMap((exit) => Deferred.done(ended, exit)),
      Effect.interruptible,
      Effect.forkIn(scope)
    )
    yield* Deferred.await(ended).pipe(
      Effect.matchEffect({ onSuccess: () => Queue.offer(out, Take.end), onFailure: (error) => Queue.offer(out, Take.fail(error)) }),
      Effect.interruptible,
      Effect.forkIn(scope)
    )
    return Stream.flattenTake(Stream.fromQueue(out))
  }))

/** Runtime C on the CLI process's one `opencode serve`. */
export const makeOpenCode = (servers: OpenCodeServers): Runtime => ({
  cliType: "opencode",
  transport: "server",
  run: (input: BatchInput): Stream.Stream<RuntimeOutput, RuntimeFailed, CommandExecutor.CommandExecutor> =>
    resumeOrStartFresh("opencode", input, (batch) => runBatch(servers, batch))
})
