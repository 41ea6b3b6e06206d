import { SqlClient } from "@effect/sql"
import { Deferred, Duration, Effect, FiberId, Option, Schema, Stream } from "effect"
import { sseBody, sseFrame, sseStream, SseStreams } from "../platform/http/Sse.js"
import type { Principal } from "../platform/auth/Principal.js"
import { RevokedKeys } from "../platform/auth/RevokedKeys.js"
import { NotFound } from "../../catalog/domain/Errors.js"
import type { AgentSessionId } from "../../catalog/domain/Ids.js"
import { type ChangeRequest, ChangeRequestsEvent } from "../../catalog/bridge/AgentApi.js"
import { requestedAtOf } from "./ChangeRequests.js"
import { ThreadRows } from "./ThreadRows.js"
import { LiveEvents } from "../platform/notifications/LiveEvents.js"
import { LiveSessions } from "../machines/LiveSessions.js"
import { renderFrames, ThreadEventFeeds } from "./ThreadEventFeeds.js"

/**
 * Server-sent event streams: a thread's normalized events as bootstrap plus deltas after a
 * cursor (resumable with `Last-Event-ID`), and a CLI session's pending-thread queue. A thread's
 * stream subscribes to its thread's shared feed first, then reads its bootstrap from its cursor,
 * so nothing written between the two is missed; its deltas come from the feed, which reads each
 * change once for all of the thread's streams (see ThreadEventFeeds).
 */
const decodePending = Schema.decodeUnknown(Schema.Array(Schema.Struct({ threadId: Schema.String })))
const decodeRequests = Schema.decodeUnknown(ChangeRequestsEvent.fields.requests)

/** What a session's pending stream last showed: its pending threads and the change reports asked. */
interface Shown {
  readonly pending: ReadonlyArray<string>
  readonly requests: ReadonlyArray<ChangeRequest>
}

const sameIds = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) => a.length === b.length && a.every((id, i) => id === b[i])
/** A request is known by its thread and when it was asked: one asked again after an answer is news. */
const requestKeys = (requests: ReadonlyArray<ChangeRequest>) => requests.map((r) => `${r.threadId}@${r.requestedAt}`)

/** The frames that tell a session what changed since `last`: none when nothing did. */
const framesAfter = (last: Shown | undefined, now: Shown): ReadonlyArray<string> => [
  ...(last !== undefined && sameIds(last.pending, now.pending) ? [] : [sseFrame({ event: "pending", data: { threadIds: now.pending } })]),
  ...(now.requests.length === 0 ||
      (last !== undefined && sameIds(requestKeys(last.requests), requestKeys(now.requests)))
    ? []
    : [sseFrame({ event: "changes", data: { requests: now.requests } })])
]

/**
 * Events per read of the database. Batched, a read is one `events` frame: a browser bootstrapping
 * a 20,000-event thread waits for 4 reads instead of 40 (each read costs a round trip, most of the
 * bootstrap on the embedded database), and its frames stay near a megabyte.
 */
const PAGE = 500
const BATCHED_PAGE = 5000
/** The longest queue a pending frame lists: the oldest threads, which are the ones claimed next. */
const PENDING_SHOWN = 1000
/**
 * Streams' own reads at once (the access check, a bootstrap the feed does not hold): a thousand
 * streams opened together then wait their turn here, and the pool (10 connections by default)
 * keeps room for the server's other requests, which would otherwise queue behind them and fail at
 * the pool's acquire timeout (an upload's 500).
 */
const OPENING_READS = 4
/**
 * The least time between two reads of a queue for its stream. A frame is only a cue to claim, so
 * an idle queue's first change still goes out at once; under a burst of changes (threads created
 * by the hundred), the changes of the interval cost one read and one frame.
 */
const PENDING_FRAME_SPACING = Duration.millis(100)

/**
 * At most `permits` of the effects it wraps run at once; the others wait in their order of arrival,
 * and a permit released goes to the first of them. Effect's Semaphore wakes every waiter on each
 * release, and all but one wait again, a stack frame deeper: a thousand streams opened at once
 * were half a million wake-ups, 25 s of CPU and a heap grown by a gigabyte (issue 27 §2).
 */
const inTurn = (permits: number) => {
  let free = permits
  const waiting: Array<Deferred.Deferred<void>> = []
  const release = Effect.sync(() => {
    const next = waiting.shift()
    if (next === undefined) free++
    else Deferred.unsafeDone(next, Effect.void)
  })
  const acquire = Effect.suspend(() => {
    if (free > 0) {
      free--
      return Effect.void
    }
    const turn = Deferred.unsafeMake<void>(FiberId.none)
    waiting.push(turn)
    // Interrupted while waiting, it leaves the line, or passes on the permit it was just handed.
    return Effect.onInterrupt(Deferred.await(turn), () =>
      Effect.suspend(() => {
        const at = waiting.indexOf(turn)
        if (at < 0) return release
        waiting.splice(at, 1)
        return Effect.void
      }))
  })
  return <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.uninterruptibleMask((restore) => Effect.zipRight(restore(acquire), Effect.ensuring(restore(effect), release)))
}

/** A cursor is the id of the last chunk seen: a decimal integer. */
export const parseCursor = (value: string | undefined): bigint => {
  if (value === undefined || !/^\d{1,19}$/.test(value.trim())) return 0n
  return BigInt(value.trim())
}

export class EventStreams extends Effect.Service<EventStreams>()("trellis/EventStreams", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* ThreadRows
    const live = yield* LiveEvents
    const feeds = yield* ThreadEventFeeds
    const revokedKeys = yield* RevokedKeys
    const sessions = yield* LiveSessions
    const sse = yield* SseStreams
    const opening = inTurn(OPENING_READS)

    /**
     * The thread's events after `after` (0: from the start), then each new one as it is stored:
     * one `event` frame each, or with `batched`, one `events` frame per read (an array, up to a
     * page; its id is the last event's), so a client that bootstraps a long thread handles a few
     * dozen frames instead of thousands. The access check first (a thread the principal cannot
     * read is NotFound), then the body, opened in the scope it is served in.
     */
    const threadEventsBody = Effect.fn("EventStreams.threadEventsBody")(function*(
      principal: Principal,
      threadId: string,
      after: bigint,
      batched = false
    ) {
      const thread = yield* opening(rows.get(principal, threadId))
      if (thread.kind !== "thread") {
        return yield* new NotFound({ message: `threadId: ${threadId} is a thread group; stream its members' events instead` })
      }
      return Effect.gen(function*() {
        // A stream outlives the request that authenticated it: SseStreams ends it when its key is revoked.
        const outlet = yield* sse.make(principal.apiKeyId)
        const feed = yield* feeds.subscribe(threadId, outlet.wake)
        const limit = batched ? BATCHED_PAGE : PAGE
        // The stream's own state, read and advanced by its one pull at a time.
        let cursor = after
        // The bootstrap too comes from the feed when it holds the events after the cursor (a short
        // thread, a resumed stream); a reader behind what it holds reads the database, a page per pull.
        const read = Effect.suspend(() => {
          const held = feed.framesAfter(cursor, batched)
          if (Option.isSome(held)) {
            cursor = held.value.last
            return Effect.succeed(held.value.bytes)
          }
          return Effect.map(opening(feeds.eventsAfter(threadId, cursor, limit)), (events) => {
            cursor = events.at(-1)?.id ?? cursor
            if (events.length === limit) outlet.wake()
            return renderFrames(events, batched)
          })
        })
        return outlet.body(read)
      })
    })

    /** threadEventsBody as a response stream, for the HttpApi route. */
    const threadEvents = (principal: Principal, threadId: string, after: bigint, batched = false) =>
      Effect.map(threadEventsBody(principal, threadId, after, batched), (open) => Stream.unwrapScoped(Effect.map(open, sseStream)))

    /** What the session can claim: a thread whose runtime session is on another machine is not listed. */
    const pendingOf = (profileId: string, machineId: string | null) =>
      sql`
        SELECT id AS "threadId" FROM threads
        WHERE profile_id = ${profileId} AND processing_state = 'pending' AND claimed_by_session_id IS NULL
          AND queue_held_at IS NULL AND deleted_at IS NULL AND kind = 'thread'
          AND (runtime_machine_id IS NULL OR runtime_machine_id = ${machineId})
        ORDER BY last_activity_at, id LIMIT ${PENDING_SHOWN}`.pipe(
        Effect.flatMap(decodePending),
        Effect.orDie,
        Effect.map((rows) => rows.map((r) => r.threadId))
      )

    /**
     * The change reports asked of the profile's threads that no session holds (a held one reports
     * when its turn ends): where each working copy is and the base its last report used.
     */
    // A thread with a worktree works there, and reports nothing until the worktree's path is known.
    const workingCopy = sql`CASE WHEN t.worktree IS NOT NULL THEN t.worktree->>'path' ELSE cp.path END`
    const requestsOf = (profileId: string) =>
      sql`
        SELECT t.id AS "threadId", ${workingCopy} AS directory, r.base_commit AS "baseCommit",
          ${requestedAtOf(sql)} AS "requestedAt"
        FROM threads t
        LEFT JOIN cli_paths cp ON cp.id = t.path_id
        JOIN LATERAL (SELECT base_commit FROM thread_change_reports
          WHERE thread_id = t.id ORDER BY created_at DESC, id DESC LIMIT 1) r ON true
        WHERE t.profile_id = ${profileId} AND t.changes_requested_at IS NOT NULL AND t.claimed_by_session_id IS NULL
          AND t.deleted_at IS NULL AND t.kind = 'thread' AND ${workingCopy} IS NOT NULL
        ORDER BY t.changes_requested_at, t.id LIMIT ${PENDING_SHOWN}`.pipe(Effect.flatMap(decodeRequests), Effect.orDie)

    /**
     * A session's queue: the profile's pending threads now, then the list again whenever it
     * changes (`pending`); and the change reports asked of its threads whenever those change
     * (`changes`, not sent while none is asked).
     */
    const pendingThreads = Effect.fn("EventStreams.pendingThreads")(function*(principal: Principal, sessionId: AgentSessionId) {
      const session = yield* sessions.live(principal, sessionId)
      const { machineId, profileId } = session
      return Stream.unwrapScoped(Effect.gen(function*() {
        const signals = yield* live.queueSignals(profileId)
        // Claims send no signal here (see LiveEvents.signalClaimSql): this session made them. Any
        // other change reads the queue again, and a frame goes out if its list differs from the last.
        const frames = Stream.concat(Stream.make(undefined), signals).pipe(
          Stream.throttle({ cost: () => 1, units: 1, duration: PENDING_FRAME_SPACING, strategy: "shape" }),
          Stream.mapEffect(() => Effect.all({ pending: pendingOf(profileId, machineId), requests: requestsOf(profileId) })),
          Stream.mapAccum<Shown | undefined, Shown, ReadonlyArray<string>>(undefined, (last, now) => [now, framesAfter(last, now)]),
          Stream.flattenIterables
        )
        // A stream outlives the request that authenticated it: it ends when its key is revoked.
        return sseBody(frames, yield* revokedKeys.revoked(principal.apiKeyId))
      }))
    })

    return { threadEvents, threadEventsBody, pendingThreads } as const
  }),
  dependencies: [
    ThreadRows.Default,
    LiveEvents.Default,
    ThreadEventFeeds.Default,
    RevokedKeys.Default,
    LiveSessions.Default,
    SseStreams.Default
  ]
}) {}
