import { Deferred, Duration, Effect, Stream } from "effect"
import { CLI_STOPPED_TYPE } from "../../catalog/bridge/AgentApi.js"
import { backoff, type BridgeClient, isTransient } from "./BridgeClient.js"
import type { RuntimeFailed, RuntimeOutput } from "./runtimes/Runtime.js"

/**
 * Stopping a running turn from a client (docs/agents.md §5, docs/decisions.md "Stop"): while a
 * batch runs, its CLI long-polls the backend for a stop of that turn, as it waits for an answer.
 * Told, the runtime interrupts itself its own way (`stopRequested` in BatchInput: Claude Code's
 * interrupt, Codex's turn/interrupt, OpenCode's session abort; codex exec, which has none, is
 * ended), and the turn ends as stopped: what the runtime then reports (an error, a non-zero exit)
 * is not a failure, and a `trellis.stopped` line says so after the runtime's own.
 */

/** One long poll of the stop (the backend caps it at 25 s). */
const STOP_POLL_MS = 20_000

/**
 * How long a runtime that was told to stop may take to end its turn before it is killed: its own
 * interrupt ends a turn within a second or two; one that does not (wedged, or a runtime command
 * that cannot be interrupted) is ended as every batch can be, with its process group.
 */
export const STOP_GRACE = Duration.seconds(8)

export const STOPPED_MESSAGE = "Stopped by you"

/** Done once the turn's owner asks to stop it; never fails (a poll the backend refuses ends the watch). */
const watchStop = (client: BridgeClient, threadId: string, messageId: string, stopped: Deferred.Deferred<void>) =>
  Effect.gen(function*() {
    while (true) {
      const { stopRequested } = yield* client.agent.awaitStop({ path: { threadId }, urlParams: { messageId, waitMs: STOP_POLL_MS } }).pipe(
        Effect.retry({ schedule: backoff, while: isTransient })
      )
      if (stopRequested) return yield* Deferred.succeed(stopped, undefined)
    }
  }).pipe(Effect.ignore)

/**
 * Runs one batch's runtime so that it can be stopped: `run` is handed what completes when the
 * owner asks to stop, and the stream it returns is ended after `STOP_GRACE` should the runtime
 * not end it first.
 */
export const stoppable = <R>(
  client: BridgeClient,
  threadId: string,
  messageId: string,
  run: (stopRequested: Effect.Effect<void>) => Stream.Stream<RuntimeOutput, RuntimeFailed, R>
): Stream.Stream<RuntimeOutput, RuntimeFailed, R> =>
  Stream.unwrapScoped(Effect.gen(function*() {
    const stopped = yield* Deferred.make<void>()
    yield* Effect.forkScoped(watchStop(client, threadId, messageId, stopped))
    return stopStream(run(Deferred.await(stopped)), stopped)
  }))

/** The stream of a batch that a stop (`stopped`) ends, with the line saying so. */
export const stopStream = <R>(
  runtime: Stream.Stream<RuntimeOutput, RuntimeFailed, R>,
  stopped: Deferred.Deferred<void>
): Stream.Stream<RuntimeOutput, RuntimeFailed, R> => {
  const wasStopped = Deferred.isDone(stopped)
  const stoppedLine: RuntimeOutput = { _tag: "Line", line: { type: CLI_STOPPED_TYPE, data: JSON.stringify({ message: STOPPED_MESSAGE }) } }
  return runtime.pipe(
    Stream.interruptWhen(Deferred.await(stopped).pipe(Effect.zipRight(Effect.sleep(STOP_GRACE)))),
    // What a runtime reports of a turn it was told to stop is the stop, not a failure.
    Stream.catchAll((failure) => Stream.unwrap(Effect.map(wasStopped, (done) => (done ? Stream.empty : Stream.fail(failure))))),
    Stream.concat(Stream.unwrap(Effect.map(wasStopped, (done) => (done ? Stream.make(stoppedLine) : Stream.empty))))
  )
}
