import * as Command from "@effect/platform/Command"
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import { Duration, Effect, Fiber, Schema, Stream } from "effect"
import type { CliType, RuntimeTransport } from "../../../catalog/domain/CliType.js"
import { CLI_WARNING_TYPE } from "../../../catalog/bridge/AgentApi.js"

/** One raw line of runtime output, typed the way the backend's normalizer for this runtime expects. */
export interface RawLine {
  readonly type: string
  readonly data: string
}

/** What a batch produces: output lines, and the runtime session id once the runtime names it. */
export type RuntimeOutput =
  | { readonly _tag: "Line"; readonly line: RawLine }
  | { readonly _tag: "SessionId"; readonly id: string }

export interface BatchMessage {
  readonly messageId: string
  readonly content: string
  readonly runtimeCommand: boolean
}

/**
 * A permission or question the runtime asks mid-run, routed through the interaction bridge.
 * `approval` says what a local `--approve` policy may do with it: a read-only or writing tool
 * use can be settled locally; questions and plan approvals always go to a person.
 */
export interface InteractionRequest {
  readonly kind: "permission" | "question"
  /** What the person sees: the tool and its full input, or the questions. */
  readonly request: unknown
  readonly approval: "read-only" | "write" | "ask"
}

/** How a request ended. `Expired` (no answer in time) is never a denial. */
export type InteractionOutcome =
  | { readonly _tag: "Answered"; readonly answer: unknown }
  | { readonly _tag: "Denied"; readonly answer: unknown }
  | { readonly _tag: "Expired" }

/** Everything a runtime needs to run one batch of a thread. */
export interface BatchInput {
  readonly threadId: string
  readonly cwd: string
  readonly messages: ReadonlyArray<BatchMessage>
  readonly runtimeSessionId: string | null
  readonly model: string | null
  readonly effort: string | null
  readonly mode: string | null
  readonly agentPrompt: string | null
  /** This backend as an MCP server, so the agent can use the tools. */
  readonly mcp: { readonly url: string; readonly apiKey: string }
  /**
   * The thread's earlier messages, oldest first (without this batch): what a fresh session is
   * told when the runtime lost the one it should resume.
   */
  readonly history: Effect.Effect<ReadonlyArray<{ readonly role: string; readonly text: string }>>
  /** Files a request with the interaction bridge (or the local policy) and waits for its outcome. */
  readonly ask: (request: InteractionRequest) => Effect.Effect<InteractionOutcome>
  /**
   * Completes when the thread's owner asks to stop the running turn (cli/agent/TurnStop.ts): the
   * runtime interrupts it its own way and runs no further turn of the batch; the stream then ends.
   */
  readonly stopRequested: Effect.Effect<void>
}

/** The runtime no longer has the session a batch was to resume: the batch starts a fresh one instead. */
export class SessionGone extends Schema.TaggedError<SessionGone>()("SessionGone", { sessionId: Schema.String }) {}

type History = ReadonlyArray<{ readonly role: string; readonly text: string }>

/** The introduction of a fresh session on a thread that already has a conversation: that conversation. */
const historyPrompt = (history: History): string =>
  [
    "The previous session of this conversation could not be resumed, so this is a fresh session. The conversation so far, oldest first:",
    ...history.map((message) => `${message.role === "assistant" ? "Assistant" : "User"}: ${message.text}`),
    "Continue from there; the new message follows."
  ].join("\n\n")

/**
 * The batch's messages with the conversation so far in front: in the first message's text, or
 * as a message of its own before a runtime command (which must stay the whole text).
 */
const withHistory = (messages: ReadonlyArray<BatchMessage>, history: History): ReadonlyArray<BatchMessage> => {
  const summary = historyPrompt(history)
  const [first, ...rest] = messages
  if (first === undefined || first.runtimeCommand) return [{ messageId: "history", content: summary, runtimeCommand: false }, ...messages]
  return [{ ...first, content: `${summary}\n\n${first.content}` }, ...rest]
}

const warning = (message: string): RuntimeOutput => ({ _tag: "Line", line: { type: CLI_WARNING_TYPE, data: JSON.stringify({ message }) } })

/**
 * Resume safety, the same for every runtime: a batch resumes the thread's runtime session; when
 * the runtime no longer has it (`SessionGone`), or the thread has none although it has a
 * conversation (it was started fresh, or its session was never named), the batch runs in a new
 * session whose first prompt summarises the thread's earlier messages, and a warning says so.
 * `run` gets `runtimeSessionId: null` for a new session.
 */
export const resumeOrStartFresh = <R>(
  name: string,
  input: BatchInput,
  run: (input: BatchInput) => Stream.Stream<RuntimeOutput, RuntimeFailed | SessionGone, R>
): Stream.Stream<RuntimeOutput, RuntimeFailed, R> => {
  const fresh = (why: string) =>
    Stream.unwrap(Effect.map(input.history, (history) =>
      history.length === 0
        ? run({ ...input, runtimeSessionId: null })
        : Stream.concat(
          Stream.succeed(
            warning(`${why}; started a fresh ${name} session with the thread's ${history.length} earlier messages summarised`)
          ),
          run({ ...input, runtimeSessionId: null, messages: withHistory(input.messages, history) })
        ))).pipe(
        Stream.catchTag("SessionGone", (gone) =>
          Stream.fail(new RuntimeFailed({ message: `${name} lost the new session ${gone.sessionId}`, stderr: "" })))
      )
  const sessionId = input.runtimeSessionId
  if (sessionId === null) return fresh("This thread has no runtime session to resume")
  return run(input).pipe(Stream.catchTag("SessionGone", () => fresh(`${name} no longer has session ${sessionId}`)))
}

export class RuntimeFailed extends Schema.TaggedError<RuntimeFailed>()("RuntimeFailed", {
  message: Schema.String,
  /** What the runtime printed on stderr, kept for the failure report. */
  stderr: Schema.String
}) {}

/**
 * A coding-agent runtime. `run` streams one batch's output; the stream ends when the batch
 * succeeded and fails with `RuntimeFailed` when it did not (lines already emitted stay emitted).
 * Interrupting the stream kills the runtime's whole process group.
 */
export interface Runtime {
  readonly cliType: CliType
  readonly transport: RuntimeTransport
  readonly run: (input: BatchInput) => Stream.Stream<RuntimeOutput, RuntimeFailed, CommandExecutor.CommandExecutor>
}

/** How much of a runtime's stderr is kept for the failure report. */
const STDERR_KEPT = 64 * 1024

/**
 * The environment variable holding the profile's API key for the runtime's MCP config, which
 * names the variable instead of the key: a command line is readable by every local user
 * (/proc/<pid>/cmdline, `ps`), a process's environment only by its owner.
 */
export const MCP_TOKEN_VARIABLE = "TRELLIS_MCP_TOKEN"

/**
 * Starts a runtime's process in the batch's scope with the thread's id and the MCP key in its
 * environment, and keeps the tail of its stderr (a fiber) for the failure report.
 */
export const startRuntime = (name: string, command: Command.Command, input: BatchInput) =>
  Effect.gen(function*() {
    const process = yield* Command.start(
      command.pipe(
        Command.workingDirectory(input.cwd),
        Command.env({ TRELLIS_THREAD_ID: input.threadId, SERVICE_THREAD_ID: input.threadId, [MCP_TOKEN_VARIABLE]: input.mcp.apiKey })
      )
    ).pipe(Effect.mapError((error) => new RuntimeFailed({ message: `Cannot start ${name}: ${error.message}`, stderr: "" })))
    const stderr = yield* process.stderr.pipe(
      Stream.decodeText(),
      Stream.runFold("", (kept, piece) => (kept + piece).slice(-STDERR_KEPT)),
      Effect.orElseSucceed(() => ""),
      Effect.forkScoped
    )
    return { process, stderr }
  })

/** A runtime's stdout as its non-empty lines. */
export const outputLines = <E, R>(stdout: Stream.Stream<Uint8Array, E, R>): Stream.Stream<string, E, R> =>
  stdout.pipe(Stream.decodeText(), Stream.splitLines, Stream.filter((line) => line.trim() !== ""))

/**
 * How long a runtime may take to exit before it is killed, and to die once killed: with
 * OpenCode's 2 s `session.abort`, every runtime is gone within 10 s of a shutdown (target 12 s).
 */
const EXIT_GRACE = Duration.seconds(4)

/**
 * Ends a long-running runtime process once its batch is done and waits for it to exit (SIGKILL
 * after 4 s): a lingering one would still hold the runtime's session store when the next batch
 * starts a new process on the same session. `none` waits for it to exit on its own (its stdin
 * was closed). Never waits forever: the platform's kill waits for the exit, so each step is
 * bounded — interruptibly, for the bound to hold in a finalizer too (OpenCodeServer's).
 */
export const stopRuntime = (process: CommandExecutor.Process, signal: "SIGTERM" | "none" = "SIGTERM") =>
  Effect.gen(function*() {
    const ended = signal === "SIGTERM" ? process.kill("SIGTERM") : Effect.asVoid(process.exitCode)
    const exited = yield* ended.pipe(Effect.interruptible, Effect.timeout(EXIT_GRACE), Effect.option)
    if (exited._tag === "None") yield* process.kill("SIGKILL").pipe(Effect.interruptible, Effect.timeout(EXIT_GRACE), Effect.ignore)
  })

/**
 * Reads a runtime's output in a fiber of its own that is never interrupted while the runtime
 * runs, and is let go of (not waited for) when the batch's scope ends, so a reader still blocked
 * on a pipe some grandchild holds open cannot keep the batch from ending. The effect returned
 * completes when the output has ended.
 */
export const readInBackground = <E, R>(reader: Effect.Effect<void, E, R>) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.forkDaemon(Effect.ignore(reader))
    yield* Effect.addFinalizer(() => Fiber.interruptFork(fiber))
    return Effect.asVoid(Fiber.await(fiber))
  })
