import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import { Deferred, Duration, Effect, Either, Option, Ref, Schedule, Stream } from "effect"
import { type ClaimedThread, MAX_CHUNKS_PER_UPLOAD } from "../../catalog/bridge/AgentApi.js"
import type { AgentSessionId } from "../../catalog/domain/Ids.js"
import { backoff, type BridgeClient, isTransient, shutdownCall } from "./BridgeClient.js"
import type { Git } from "./Git.js"
import { type GroupLimits, groupLines } from "./GroupLines.js"
import { Journal, type JournalChunk, type JournalFile, type JournalHeader } from "./Journal.js"
import type { AgentLog } from "./AgentLog.js"
import { type ApprovalPolicy, settleLocally } from "./ApprovalPolicy.js"
import type { InteractionOutcome, InteractionRequest, RawLine, Runtime } from "./runtimes/Runtime.js"
import { callTool } from "./TrellisTools.js"
import { stoppable } from "./TurnStop.js"
import { createWorktree, WorktreeRequest } from "./Worktree.js"
import { changeBase, sendChangeReport } from "./ChangeReporter.js"
import { Schema } from "effect"

/**
 * Runs one claimed thread: batches until the backend says the queue is drained, streaming the
 * runtime's lines as journaled, idempotent chunk uploads, under a lease renewed on its own
 * schedule. Losing the claim (a newer one fenced us) stops the work and drops what is unsent.
 */

export interface ThreadRunContext {
  readonly client: BridgeClient
  /** For the calls made while shutting down: connections of their own (see makeShutdownBridgeClient). */
  readonly shutdownClient: BridgeClient
  /** Told once the thread has handed its claim back on shutdown (or tried to): the agent then disconnects. */
  readonly onReleased: Effect.Effect<void>
  readonly sessionId: AgentSessionId
  readonly runtimeFor: (cliType: string) => Runtime | undefined
  readonly mcp: { readonly url: string; readonly apiKey: string }
  readonly worktreesDir: string
  readonly claimLeaseMs: number
  readonly log: AgentLog
  readonly onProgress: (threadId: string, events: number) => Effect.Effect<void>
  /** Permission requests this machine answers itself (`--approve`). */
  readonly approve: ApprovalPolicy
  /** An interaction nobody answered within this time expires (reported to the runtime as expired). */
  readonly interactionTimeoutMs: number
}

/** One long poll of an interaction's answer (the backend caps it at 25 s). */
const INTERACTION_POLL_MS = 20_000

/**
 * Settles a runtime's request: locally when the `--approve` policy covers it, else filed with the
 * bridge under the claim and long-polled until a person answers or it expires. A claim lost while
 * waiting stops the work anyway; the runtime is then told the request expired, never denied.
 */
const askThroughBridge =
  (context: ThreadRunContext, threadId: string, claimRef: { readonly sessionId: AgentSessionId; readonly epoch: number }) =>
  (request: InteractionRequest): Effect.Effect<InteractionOutcome> =>
    Effect.gen(function*() {
      const local = settleLocally(context.approve, request)
      if (Option.isSome(local)) {
        yield* context.log.info(`thread ${threadId}: ${request.kind} request allowed by the --approve ${context.approve} policy`)
        return local.value
      }
      const filed = yield* persist(context.client.agent.requestInteraction({
        path: { threadId },
        payload: { ...claimRef, kind: request.kind, request: request.request, expiresInMs: context.interactionTimeoutMs }
      }))
      yield* context.log.info(`thread ${threadId}: waiting for an answer to ${request.kind} request ${filed.interactionId}`)
      let settled = filed
      while (settled.status === "pending") {
        settled = yield* persist(context.client.agent.awaitInteraction({
          path: { interactionId: filed.interactionId },
          urlParams: { waitMs: INTERACTION_POLL_MS }
        }))
      }
      yield* context.log.info(`thread ${threadId}: ${request.kind} request ${filed.interactionId} ${settled.status}`)
      const outcome: InteractionOutcome = settled.status === "answered"
        ? { _tag: "Answered", answer: settled.answer }
        : settled.status === "denied"
        ? { _tag: "Denied", answer: settled.answer }
        : { _tag: "Expired" }
      return outcome
    }).pipe(
      Effect.catchAll((gone) =>
        Effect.as(context.log.warn(`thread ${threadId}: ${request.kind} request abandoned (${gone.reason})`), { _tag: "Expired" } as const)
      )
    )

/**
 * The thread's earlier messages (the last 20 the tools return), read over MCP with the profile's
 * key; empty when they cannot be read (a fresh session then starts without them). Only settled
 * ones: a message still pending arrived after this batch began and belongs to a later one, and
 * the streaming ones are this batch.
 */
const threadHistory = (mcp: ThreadRunContext["mcp"], threadId: string, exclude: ReadonlySet<string>) =>
  callTool(mcp, "list_thread_messages", { threadId, limit: 20 }).pipe(
    Effect.map(({ messages }) =>
      messages
        .filter((m) => !exclude.has(m.messageId) && m.text !== "" && m.status !== "pending" && m.status !== "streaming")
        .map(({ role, text }) => ({ role, text }))
    ),
    Effect.orElseSucceed(() => [])
  )

/**
 * Per upload: what arrived within the window, up to the backend's 1,000 chunks and 1 MiB of
 * body. Fewer, larger uploads are what makes streaming fast (each costs the backend one
 * transaction); the byte cap keeps a group of long lines from holding hundreds of megabytes, and
 * its body under the backend's 4 MiB (a lone 512 K-character part escapes to at most 3 MiB).
 */
export const GROUP_LIMITS: GroupLimits = { lines: MAX_CHUNKS_PER_UPLOAD, bytes: 1024 * 1024, window: Duration.millis(50) }
/** Groups journaled and waiting while one uploads: journaling the next overlaps the upload. */
const GROUPS_AHEAD = 1
/** The backend keeps an error message up to 10,000 characters; a longer one is cut, never refused. */
const MAX_ERROR_MESSAGE = 10_000
/** A chunk holds at most this much data; a longer line is split into parts, never dropped. */
export const MAX_CHUNK_BYTES = 512 * 1024

/** Splits an oversized line into parts typed `<type>#part<i>/<n>`, which the normalizer keeps as raw. */
export const splitLine = (line: RawLine): ReadonlyArray<RawLine> => {
  if (line.data.length <= MAX_CHUNK_BYTES) return [line]
  const parts = Math.ceil(line.data.length / MAX_CHUNK_BYTES)
  return Array.from({ length: parts }, (_, i) => ({
    type: `${line.type}#part${i + 1}/${parts}`,
    data: line.data.slice(i * MAX_CHUNK_BYTES, (i + 1) * MAX_CHUNK_BYTES)
  }))
}

class ClaimGone extends Schema.TaggedError<ClaimGone>()("ClaimGone", { reason: Schema.String }) {}

const decodeWorktree = Schema.decodeUnknownOption(WorktreeRequest)

/** Retries what failed in transit; a refusal from the backend (fencing, expiry) ends the claim. */
const persist = <A, E extends { readonly _tag: string; readonly message?: string }, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(
    Effect.retry({ schedule: backoff, while: isTransient }),
    Effect.mapError((error) =>
      error._tag === "ClaimLost" || error._tag === "SessionExpired" || error._tag === "NotFound"
        ? new ClaimGone({ reason: `${error._tag}: ${error.message ?? ""}` })
        : new ClaimGone({ reason: `${error._tag}: ${error.message ?? "the backend refused the write"}` })
    )
  )

export const runThread = (context: ThreadRunContext, claim: ClaimedThread) =>
  Effect.gen(function*() {
    const journal = yield* Journal
    const { client, log, sessionId } = context
    const threadId = claim.threadId
    const epoch = claim.epoch
    const path = { threadId }
    const claimRef = { sessionId, epoch }
    const lost = yield* Deferred.make<never, ClaimGone>()

    // The lease is renewed on its own schedule, apart from the work; losing it stops the work.
    yield* client.agent.renew({ path, payload: claimRef }).pipe(
      Effect.retry({ schedule: Schedule.spaced(Duration.seconds(2)), while: isTransient }),
      Effect.repeat(Schedule.spaced(Duration.millis(Math.max(500, context.claimLeaseMs / 3)))),
      Effect.catchAll((error) => Deferred.fail(lost, new ClaimGone({ reason: `lease renewal refused: ${error._tag}` }))),
      Effect.forkScoped
    )

    // The batch in flight, so a shutdown can flush its journal before handing the thread back.
    const active = yield* Ref.make<Option.Option<JournalHeader>>(Option.none())
    const runtime = context.runtimeFor(claim.cliType)
    const cwd = yield* workingDirectory(context, claim)
    const baseRef = Either.isRight(cwd) ? yield* changeBase(claim, cwd.right, Option.getOrNull(decodeWorktree(claim.worktree))) : null

    const work = Effect.gen(function*() {
      while (true) {
        const batch = yield* persist(client.agent.startBatch({
          path,
          payload: { ...claimRef, ...(runtime === undefined ? {} : { transport: runtime.transport }) }
        }))
        if (batch.drained) return
        const header: JournalHeader = { threadId, messageId: batch.assistantMessageId, epoch, sessionId }
        yield* journal.open(header)
        yield* Ref.set(active, Option.some(header))
        yield* log.info(`thread ${threadId}: batch of ${batch.messages.length} message(s) started`)
        if (runtime === undefined || Either.isLeft(cwd)) {
          const reason = runtime !== undefined && Either.isLeft(cwd) ? cwd.left : `execution is not implemented for ${claim.cliType}`
          yield* persist(client.agent.fail({ path, payload: { ...claimRef, messageId: batch.assistantMessageId, errorMessage: reason } }))
          yield* journal.remove(header)
          yield* log.warn(`thread ${threadId}: ${reason}`)
          continue
        }
        const seq = yield* Ref.make(0)
        const sessionRef = yield* Ref.make<string | null>(batch.runtimeSessionId)
        const events = yield* Ref.make(0)
        // Every group is in the journal before its upload starts.
        const journaled = (lines: ReadonlyArray<RawLine>) =>
          Effect.gen(function*() {
            const start = yield* Ref.getAndUpdate(seq, (n) => n + lines.length)
            const chunks: ReadonlyArray<JournalChunk> = lines.map((line, i) => ({ seq: start + i, type: line.type, data: line.data }))
            yield* journal.append(header, chunks)
            return chunks
          })
        const upload = (chunks: ReadonlyArray<JournalChunk>) =>
          Effect.gen(function*() {
            const runtimeSessionId = yield* Ref.get(sessionRef)
            yield* persist(client.agent.uploadChunks({
              path,
              payload: {
                ...claimRef,
                messageId: header.messageId,
                chunks,
                ...(runtimeSessionId === null ? {} : { runtimeSessionId })
              }
            }))
            yield* context.onProgress(threadId, yield* Ref.updateAndGet(events, (n) => n + chunks.length))
          })
        const outcome = yield* groupLines(
          stoppable(client, threadId, header.messageId, (stopRequested) =>
            runtime.run({
              threadId,
              cwd: cwd.right,
              messages: batch.messages,
              runtimeSessionId: batch.runtimeSessionId,
              model: claim.cliModel,
              effort: claim.cliEffort,
              mode: claim.cliMode,
              agentPrompt: claim.agentPrompt,
              mcp: context.mcp,
              history: threadHistory(context.mcp, threadId, new Set([...batch.messages.map((m) => m.messageId), batch.assistantMessageId])),
              ask: askThroughBridge(context, threadId, claimRef),
              stopRequested
            })).pipe(
              Stream.tap((output) => (output._tag === "SessionId" ? Ref.set(sessionRef, output.id) : Effect.void)),
              Stream.filterMap((output) => (output._tag === "Line" ? Option.some(output.line) : Option.none())),
              Stream.mapConcat(splitLine)
            ),
          GROUP_LIMITS
        ).pipe(
          Stream.mapEffect(journaled),
          Stream.buffer({ capacity: GROUPS_AHEAD }),
          Stream.mapEffect(upload),
          Stream.runDrain,
          Effect.either
        )
        const runtimeSessionId = yield* Ref.get(sessionRef)
        const session = runtimeSessionId === null ? {} : { runtimeSessionId }
        if (Either.isLeft(outcome) && outcome.left._tag === "ClaimGone") return yield* outcome.left
        if (Either.isLeft(outcome) && outcome.left._tag === "RuntimeFailed") {
          const failure = outcome.left
          const stderr = failure.stderr.trim()
          yield* log.warn(`thread ${threadId}: the runtime failed: ${failure.message}${stderr === "" ? "" : `\n${stderr}`}`)
          yield* persist(client.agent.fail({
            path,
            payload: { ...claimRef, messageId: header.messageId, errorMessage: failure.message.slice(0, MAX_ERROR_MESSAGE), ...session }
          }))
        } else {
          yield* persist(client.agent.complete({ path, payload: { ...claimRef, messageId: header.messageId, ...session } }))
        }
        yield* journal.remove(header)
        yield* Ref.set(active, Option.none())
        yield* log.info(`thread ${threadId}: batch ${Either.isLeft(outcome) ? "failed" : "completed"}`)
        // Under the claim, before the next batch: once the queue drains the claim is gone.
        if (baseRef !== null) yield* sendChangeReport(client, { threadId, ...claimRef }, cwd.right, baseRef, log)
      }
    })

    yield* Effect.raceFirst(work, Deferred.await(lost)).pipe(
      // What the journal holds was written under the lost claim: no upload can land any more. The
      // claim is handed back in case the backend only refused a write and it is still ours.
      Effect.catchTag("ClaimGone", (gone) =>
        Effect.gen(function*() {
          yield* log.warn(`thread ${threadId}: stopped, the claim is no longer ours (${gone.reason})`)
          const header = yield* Ref.get(active)
          if (Option.isSome(header)) {
            const file = yield* journal.read(header.value)
            yield* journal.remove(header.value)
            const chunks = Option.match(file, { onNone: () => 0, onSome: (f) => f.chunks.length })
            yield* log.warn(`thread ${threadId}: dropped ${chunks} journaled chunk(s) of message ${header.value.messageId} with the claim`)
          }
          yield* shutdownCall(client.agent.release({ path, payload: claimRef }))
        })),
      // Shutting down: send what the journal holds, end the batch as failed (retryable), hand the
      // thread back — each step bounded, as the agent disconnects right after. The runtime is
      // stopped meanwhile (the work's fiber is being interrupted), and this fiber ends once it is gone.
      Effect.onInterrupt(() =>
        Effect.gen(function*() {
          yield* log.info(`thread ${threadId}: stopped for the shutdown; handing it back`)
          const header = yield* Ref.get(active)
          if (Option.isSome(header)) {
            const file = yield* journal.read(header.value)
            if (Option.isSome(file)) {
              // The flush gives up (and says the journal is kept) before its budget ends.
              const budget = Duration.sum(SHUTDOWN_FLUSH, Duration.millis(200))
              yield* shutdownCall(
                flushJournal(context.shutdownClient, log, file.value, "The CLI shut down mid-run", SHUTDOWN_FLUSH),
                budget
              )
            }
          }
          yield* shutdownCall(context.shutdownClient.agent.release({ path, payload: claimRef }))
          yield* log.info(`thread ${threadId}: released on shutdown`)
        }).pipe(Effect.ensuring(context.onReleased))
      )
    )
  }).pipe(Effect.scoped)

/**
 * Shutting down, the journal of a running batch is sent within this time, else kept for the next
 * start; with the release after it, it fits in the second the agent waits before disconnecting.
 */
const SHUTDOWN_FLUSH = Duration.millis(600)

/**
 * Sends a journal's chunks (the backend skips those it has) and ends its message as failed
 * (retryable) — if the claim it was written under is still ours. Otherwise the chunks were
 * fenced: they are dropped with a warning. When the backend cannot be reached within `patience`,
 * the journal is kept for the next start; otherwise it is removed.
 */
export const flushJournal = (client: BridgeClient, log: AgentLog, file: JournalFile, reason: string, patience: Duration.Duration) =>
  Effect.gen(function*() {
    const journal = yield* Journal
    const { epoch, messageId, sessionId, threadId } = file.header
    const path = { threadId }
    const send = Effect.gen(function*() {
      for (let i = 0; i < file.chunks.length; i += MAX_CHUNKS_PER_UPLOAD) {
        yield* client.agent.uploadChunks({
          path,
          payload: { sessionId, epoch, messageId, chunks: file.chunks.slice(i, i + MAX_CHUNKS_PER_UPLOAD) }
        })
      }
      yield* client.agent.fail({ path, payload: { sessionId, epoch, messageId, errorMessage: reason } })
    }).pipe(
      Effect.retry({ schedule: backoff.pipe(Schedule.upTo(patience)), while: isTransient }),
      Effect.timeoutFail({ duration: patience, onTimeout: () => ({ _tag: "Timeout" as const }) }),
      Effect.either
    )
    const sent = yield* send
    if (Either.isLeft(sent) && (sent.left._tag === "Timeout" || isTransient(sent.left))) {
      return yield* log.warn(
        `thread ${threadId}: the backend is unreachable; ${file.chunks.length} journaled chunk(s) kept for the next start`
      )
    }
    if (Either.isRight(sent)) {
      yield* log.info(`thread ${threadId}: ${file.chunks.length} journaled chunk(s) sent; the run is marked failed and can be retried`)
    } else {
      yield* log.warn(
        `thread ${threadId}: dropped ${file.chunks.length} journaled chunk(s) of message ${messageId}: the claim is no longer ours (${sent.left._tag})`
      )
    }
    yield* journal.remove(file.header)
  })

/**
 * The checkout the thread runs in, or its fresh worktree, created and reported at first claim;
 * or why there is none (the reason the thread's batches fail with).
 */
const workingDirectory = (context: ThreadRunContext, claim: ClaimedThread) =>
  Effect.gen(function*() {
    if (claim.path === null) return Either.left(`thread ${claim.threadId} has no working directory on this machine`)
    const requested = decodeWorktree(claim.worktree)
    if (Option.isNone(requested)) return Either.right(claim.path)
    if (requested.value.path !== undefined) return Either.right(requested.value.path)
    const target = `${context.worktreesDir}/${claim.threadId}`
    const created = yield* createWorktree(claim.path, target, requested.value).pipe(Effect.either)
    if (Either.isLeft(created)) {
      yield* context.log.warn(`thread ${claim.threadId}: ${created.left.message}`)
      return Either.left(`The worktree on branch ${requested.value.branch} could not be created: ${created.left.message}`)
    }
    yield* persist(context.client.agent.reportWorktree({
      path: { threadId: claim.threadId },
      payload: { sessionId: context.sessionId, epoch: claim.epoch, path: created.right, branch: requested.value.branch }
    })).pipe(Effect.catchAll((gone) => context.log.warn(`thread ${claim.threadId}: worktree not reported (${gone.reason})`)))
    return Either.right(created.right)
  })

export type ThreadRunRequirements = Journal | Git | CommandExecutor.CommandExecutor | FileSystem.FileSystem | Path.Path
