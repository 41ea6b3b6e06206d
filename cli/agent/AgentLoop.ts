import * as FileSystem from "@effect/platform/FileSystem"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Path from "@effect/platform/Path"
import { Deferred, Duration, Effect, Either, Exit, Fiber, FiberSet, Option, Ref, Schedule, Schema, Stream, SubscriptionRef } from "effect"
import type { AvailableCli } from "../../catalog/domain/CliProfile.js"
import { AgentSessionId, CliProfileId, type ProjectId } from "../../catalog/domain/Ids.js"
import { VERSION } from "../../catalog/Version.js"
import type { AgentLog, AgentStatus } from "./AgentLog.js"
import type { ApprovalPolicy } from "./ApprovalPolicy.js"
import { backoff, isTransient, makeBridgeClient, makeShutdownBridgeClient, shutdownCall } from "./BridgeClient.js"
import { Journal } from "./Journal.js"
import { makeChangeRequestAnswers } from "./ChangeRequestAnswers.js"
import { pendingCues } from "./PendingCues.js"
import type { Runtime } from "./runtimes/Runtime.js"
import { flushJournal, runThread, type ThreadRunRequirements } from "./ThreadRunner.js"

/**
 * `trellis agent start`: SPEC's session lifecycle. Register (or resume the previous session of
 * this profile), heartbeat, follow the pending-thread queue, claim up to `maxConcurrent` threads
 * and run each in its own scoped fiber. Interrupting the loop (SIGINT/SIGTERM) releases every
 * running thread, then disconnects.
 */

export interface AgentOptions {
  readonly profileName: string
  readonly server: string
  readonly apiKey: string
  readonly projectId: ProjectId
  readonly machineName: string
  readonly hostname: string
  /** Stable for this machine (see MachineId): threads whose runtime session is here are claimed only here. */
  readonly machineId: string
  readonly profileId: string | undefined
  readonly paths: ReadonlyArray<
    { readonly path: string; readonly label: string; readonly gitRemoteUrl: string | null; readonly branch: string | null }
  >
  readonly availableClis: ReadonlyArray<AvailableCli>
  readonly runtimeFor: (cliType: string) => Runtime | undefined
  /** Permission requests this machine answers itself (`--approve`). */
  readonly approve: ApprovalPolicy
  /** An unanswered interaction expires after this long. */
  readonly interactionTimeoutMs: number
  readonly maxConcurrent: number
  readonly force: boolean
  readonly stateDir: string
  readonly log: AgentLog
  /** Called with the profile ID the backend assigned, so the next start keeps the same path IDs. */
  readonly rememberProfileId: (profileId: string) => Effect.Effect<void>
}

export class AgentStartFailed extends Schema.TaggedError<AgentStartFailed>()("AgentStartFailed", { message: Schema.String }) {}

interface Session {
  readonly sessionId: AgentSessionId
  readonly heartbeatIntervalMs: number
  readonly claimLeaseMs: number
}

const SavedState = Schema.parseJson(Schema.Struct({ sessionId: AgentSessionId }))

/** At start, a journal left by a crash is sent within this time, else kept for the next start. */
const LEFTOVER_FLUSH = Duration.seconds(20)

/**
 * Shutting down, the disconnect waits at most this long for the running threads to hand their
 * claims back (the disconnect ends them anyway): with the disconnect's own second, the profile is
 * offline within 2 s of the signal, however long the runtimes take to die.
 */
const RELEASE_WAIT = Duration.seconds(1)

interface RunningThread {
  readonly threadId: string
  readonly startedAt: string
  events: number
  /** Done once the thread has handed its claim back on shutdown, or ended. */
  readonly released: Deferred.Deferred<void>
}

export const runAgent = (options: AgentOptions) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const http = yield* HttpClient.HttpClient
    const { log } = options
    const client = yield* makeBridgeClient(options.server, options.apiKey)
    const shutdownClient = yield* makeShutdownBridgeClient(options.server, options.apiKey)
    yield* fs.makeDirectory(options.stateDir, { recursive: true, mode: 0o700 }).pipe(Effect.orDie)
    const stateFile = path.join(options.stateDir, `${options.profileName}.session.json`)
    const statusFile = path.join(options.stateDir, `${options.profileName}.status.json`)

    // The profile the last registration named: a first run learns it from its registration, and a
    // later one (the session expired) must name it again, or the backend would make a new profile.
    const knownProfileId = yield* Ref.make(options.profileId)
    const register = (force: boolean) =>
      Effect.flatMap(Ref.get(knownProfileId), (profileId) =>
        client.agent.register({
          payload: {
            ...Option.match(Schema.decodeUnknownOption(CliProfileId)(profileId), {
              onNone: () => ({}),
              onSome: (profileId) => ({ profileId })
            }),
            projectId: options.projectId,
            name: options.machineName,
            hostname: options.hostname,
            machineId: options.machineId,
            appVersion: VERSION,
            availableClis: options.availableClis,
            paths: options.paths,
            force
          }
        })).pipe(
          Effect.tapError((error) => isTransient(error) ? log.warn(`cannot reach ${options.server}; retrying`) : Effect.void),
          Effect.retry({ schedule: backoff, while: isTransient }),
          Effect.catchTag("SessionConflict", (conflict) =>
            new AgentStartFailed({
              message:
                `Another CLI holds profile "${options.profileName}" (session ${conflict.sessionId}). Stop it, or take over with --force.`
            })),
          Effect.catchAll((error) =>
            error._tag === "AgentStartFailed"
              ? Effect.fail(error)
              : Effect.fail(
                new AgentStartFailed({ message: `Registration failed: ${"message" in error ? String(error.message) : error._tag}` })
              )
          ),
          Effect.tap((registered) =>
            Effect.all([
              Ref.set(knownProfileId, registered.profile.profileId),
              options.rememberProfileId(registered.profile.profileId),
              fs.writeFileString(stateFile, JSON.stringify({ sessionId: registered.sessionId }), { mode: 0o600 }).pipe(Effect.orDie),
              log.info(`registered as session ${registered.sessionId} for profile ${options.profileName}`)
            ])
          ),
          Effect.map((registered): Session => ({
            sessionId: registered.sessionId,
            heartbeatIntervalMs: registered.timings.heartbeatIntervalMs,
            claimLeaseMs: registered.timings.claimLeaseMs
          }))
        )

    // A restarted CLI first tries to keep its previous session, so claims it still holds stay its own.
    const previous = yield* fs.readFileString(stateFile).pipe(
      Effect.flatMap(Schema.decodeUnknown(SavedState)),
      Effect.option
    )
    const resumed = yield* Option.match(previous, {
      onNone: () => Effect.succeed(Option.none<Session>()),
      onSome: ({ sessionId }) =>
        client.agent.heartbeat({ payload: { sessionId } }).pipe(
          Effect.map((timings) =>
            Option.some<Session>({ sessionId, heartbeatIntervalMs: timings.heartbeatIntervalMs, claimLeaseMs: timings.claimLeaseMs })
          ),
          Effect.orElseSucceed(() => Option.none<Session>())
        )
    })
    const first = Option.isSome(resumed) ? resumed.value : yield* register(options.force)
    if (Option.isSome(resumed)) yield* log.info(`resumed session ${first.sessionId}`)
    const session = yield* SubscriptionRef.make(first)
    const lastHeartbeat = yield* Ref.make<string | null>(new Date().toISOString())
    const connection = yield* Ref.make<AgentStatus["connection"]>("online")

    // Chunks a crash left unsent: uploaded if the claim is still ours, dropped with a warning if fenced.
    // Nothing runs the thread any more, so its claim (if still ours) is let go: held, it would keep the
    // thread from a retry or its next messages until the lease ran out.
    const journal = yield* Journal
    for (const file of yield* journal.leftovers) {
      yield* flushJournal(client, log, file, "The CLI restarted mid-run", LEFTOVER_FLUSH)
      const { epoch, sessionId, threadId } = file.header
      yield* shutdownCall(client.agent.release({ path: { threadId }, payload: { sessionId, epoch } }))
    }

    // Heartbeat; an expired session registers again (its claims are gone: the threads stop on their own).
    const heartbeat = yield* Effect.gen(function*() {
      const current = yield* SubscriptionRef.get(session)
      const beat = yield* client.agent.heartbeat({ payload: { sessionId: current.sessionId } }).pipe(Effect.either)
      if (Either.isRight(beat)) {
        yield* Ref.set(connection, "online")
        return yield* Ref.set(lastHeartbeat, new Date().toISOString())
      }
      if (beat.left._tag === "SessionExpired" || beat.left._tag === "NotFound") {
        yield* log.warn("the session expired; registering again")
        yield* SubscriptionRef.set(session, yield* register(false))
      } else if (isTransient(beat.left)) {
        yield* Ref.set(connection, "reconnecting")
        yield* log.warn(`heartbeat failed (${beat.left._tag}); retrying`)
      }
    }).pipe(
      Effect.catchAll((error) => log.warn(`heartbeat: ${error.message}`)),
      Effect.repeat(Schedule.spaced(Duration.millis(first.heartbeatIntervalMs))),
      Effect.forkScoped
    )

    // Claiming: one dispatcher at a time, up to maxConcurrent threads, each in its own fiber.
    const running = new Map<string, RunningThread>()
    const threads = yield* FiberSet.make()
    const stopping = yield* Ref.make(false)
    // Shutting down. Registered after the FiberSet, this finalizer runs before the FiberSet waits
    // for its fibers, which end only once their runtimes are gone: the threads are told to stop,
    // hand their claims back (bounded) and the session is disconnected without waiting for that.
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        // The slots the interrupted threads free are not filled again.
        yield* Ref.set(stopping, true)
        yield* log.info(`shutting down: ${running.size} running thread(s) to hand back`)
        // A beat after the disconnect would find the session gone and register again.
        yield* Fiber.interrupt(heartbeat)
        const stopped = [...running.values()]
        yield* Effect.forEach(threads, Fiber.interruptFork, { discard: true })
        yield* Effect.forEach(stopped, (thread) => Deferred.await(thread.released), { discard: true }).pipe(
          Effect.interruptible,
          Effect.timeout(RELEASE_WAIT),
          Effect.ignore
        )
        const { sessionId } = yield* SubscriptionRef.get(session)
        const confirmed = yield* shutdownCall(shutdownClient.agent.disconnect({ payload: { sessionId } }).pipe(Effect.as(true)))
        yield* fs.remove(stateFile, { force: true }).pipe(Effect.ignore)
        yield* fs.remove(statusFile, { force: true }).pipe(Effect.ignore)
        yield* Option.isSome(confirmed)
          ? log.info("disconnected")
          : log.warn("disconnected without the backend's answer: the session ends once its heartbeats are missed")
      })
    )
    const changeRequests = yield* makeChangeRequestAnswers({
      client,
      log,
      sessionId: Effect.map(SubscriptionRef.get(session), (current) => current.sessionId),
      isRunning: (threadId) => running.has(threadId)
    })

    const dispatchLock = yield* Effect.makeSemaphore(1)
    const mcp = { url: `${options.server}/api/mcp?project=${options.projectId}`, apiKey: options.apiKey }
    const worktreesDir = path.join(options.stateDir, "..", "worktrees")

    const dispatch: Effect.Effect<void, never, ThreadRunRequirements> = dispatchLock.withPermits(1)(Effect.gen(function*() {
      while (running.size < options.maxConcurrent && !(yield* Ref.get(stopping))) {
        const current = yield* SubscriptionRef.get(session)
        const claimed = yield* client.agent.claim({ payload: { sessionId: current.sessionId } }).pipe(
          Effect.map((response) => response.thread),
          Effect.orElseSucceed(() => null)
        )
        if (claimed === null) return
        // Claimed while the shutdown began: handed straight back.
        if (yield* Ref.get(stopping)) {
          return yield* shutdownCall(
            shutdownClient.agent.release({
              path: { threadId: claimed.threadId },
              payload: { sessionId: current.sessionId, epoch: claimed.epoch }
            })
          )
        }
        yield* log.info(`claimed thread ${claimed.threadId} (${claimed.cliType}, epoch ${claimed.epoch})`)
        const released = yield* Deferred.make<void>()
        const entry: RunningThread = { threadId: claimed.threadId, startedAt: new Date().toISOString(), events: 0, released }
        running.set(claimed.threadId, entry)
        yield* FiberSet.run(
          threads,
          runThread({
            client,
            shutdownClient,
            onReleased: Deferred.done(released, Exit.void),
            sessionId: current.sessionId,
            runtimeFor: options.runtimeFor,
            approve: options.approve,
            interactionTimeoutMs: options.interactionTimeoutMs,
            mcp,
            worktreesDir,
            claimLeaseMs: current.claimLeaseMs,
            log,
            onProgress: (threadId, events) =>
              Effect.sync(() => {
                const thread = running.get(threadId)
                if (thread !== undefined) thread.events = events
              })
          }, claimed).pipe(
            Effect.catchAllCause((cause) => log.warn(`thread ${claimed.threadId} stopped: ${String(cause)}`)),
            // A finalizer runs uninterruptibly, and so would a fiber forked from it, with every
            // thread it claims: no interrupt would reach their runs (a turn's stop watch when its
            // batch ends, a shutdown), and they would hang on it.
            Effect.ensuring(Effect.suspend(() => {
              running.delete(claimed.threadId)
              return Deferred.done(released, Exit.void).pipe(
                Effect.zipRight(changeRequests.afterRun(claimed.threadId)),
                Effect.zipRight(Effect.forkDaemon(Effect.interruptible(dispatch)))
              )
            }))
          )
        )
      }
    }))

    // The queue: SSE frames (reconnected with backoff, following session changes) and a slow poll as a safety net.
    const pendingFrames = Effect.gen(function*() {
      const { sessionId } = yield* SubscriptionRef.get(session)
      const response = yield* http.execute(
        HttpClientRequest.get(`${options.server}/api/agent/sessions/${sessionId}/pending`).pipe(
          HttpClientRequest.bearerToken(options.apiKey),
          HttpClientRequest.acceptJson,
          HttpClientRequest.setHeader("accept", "text/event-stream")
        )
      )
      if (response.status !== 200) return yield* Effect.fail({ _tag: "ResponseError" as const, status: response.status })
      yield* Stream.runForEach(pendingCues(response.stream), (cue) => cue._tag === "Claim" ? dispatch : changeRequests.answer(cue.requests))
    }).pipe(Effect.scoped)
    yield* pendingFrames.pipe(
      Effect.catchAll(() => Effect.void),
      Effect.zipRight(Effect.sleep(Duration.millis(500))),
      Effect.repeat(Schedule.forever),
      Effect.forkScoped
    )
    yield* dispatch.pipe(Effect.repeat(Schedule.spaced(Duration.seconds(15))), Effect.forkScoped)

    // What `trellis agent status` shows, and the live view on a terminal.
    yield* Effect.gen(function*() {
      const current = yield* SubscriptionRef.get(session)
      const status: AgentStatus = {
        pid: process.pid,
        profile: options.profileName,
        server: options.server,
        sessionId: current.sessionId,
        connection: yield* Ref.get(connection),
        lastHeartbeatAt: yield* Ref.get(lastHeartbeat),
        threads: [...running.values()].map(({ events, startedAt, threadId }) => ({ threadId, startedAt, events }))
      }
      yield* log.status(status)
      yield* fs.writeFileString(statusFile, JSON.stringify(status, null, 2), { mode: 0o600 }).pipe(Effect.ignore)
    }).pipe(Effect.repeat(Schedule.spaced(Duration.seconds(1))), Effect.forkScoped)

    yield* log.info(`waiting for threads (up to ${options.maxConcurrent} at once)`)
    return yield* Effect.never
  }).pipe(Effect.scoped)
