import { SqlClient } from "@effect/sql"
import { Duration, Effect, Option, Ref, Schedule, Schema, Stream } from "effect"
import { ApiKeys } from "../platform/auth/ApiKeys.js"
import type { Principal } from "../platform/auth/Principal.js"
import { NotFound } from "../../catalog/domain/Errors.js"
import type { AgentSessionId } from "../../catalog/domain/Ids.js"
import { NormalizedEvent } from "../../catalog/events/NormalizedEvent.js"
import { Threads } from "./Threads.js"
import { LiveEvents } from "../platform/notifications/LiveEvents.js"
import { LiveSessions } from "./LiveSessions.js"

/**
 * Server-sent event streams: a thread's normalized events as bootstrap plus deltas after a
 * cursor (resumable with `Last-Event-ID`), and a CLI session's pending-thread queue. Each stream
 * subscribes to change signals first, then reads from its cursor on every signal, so nothing
 * written between the bootstrap and the first signal is missed, and a merged signal costs nothing.
 */

const ChunkEvent = Schema.Struct({
  id: Schema.String,
  messageId: Schema.String,
  seq: Schema.Number,
  event: NormalizedEvent
})
export type ChunkEvent = typeof ChunkEvent.Type
const decodeChunkEvents = Schema.decodeUnknown(Schema.Array(ChunkEvent))
const decodePending = Schema.decodeUnknown(Schema.Array(Schema.Struct({ threadId: Schema.String })))

/**
 * Events per read of the database. Batched, a read is one `events` frame: a browser bootstrapping
 * a 20,000-event thread waits for 4 reads instead of 40 (each read costs a round trip, most of the
 * bootstrap on the embedded database), and its frames stay near a megabyte.
 */
const PAGE = 500
const BATCHED_PAGE = 5000
/** The longest queue a pending frame lists: the oldest threads, which are the ones claimed next. */
const PENDING_SHOWN = 1000
const KEEP_ALIVE = Duration.seconds(15)
/**
 * The least time between two reads of a queue for its stream. A frame is only a cue to claim, so
 * an idle queue's first change still goes out at once; under a burst of changes (threads created
 * by the hundred), the changes of the interval cost one read and one frame.
 */
const PENDING_FRAME_SPACING = Duration.millis(100)

/** One SSE frame. Data is one line of JSON, so no field needs escaping. */
export const sseFrame = (frame: { readonly id?: string; readonly event: string; readonly data: unknown }): string =>
  `${frame.id === undefined ? "" : `id: ${frame.id}\n`}event: ${frame.event}\ndata: ${JSON.stringify(frame.data)}\n\n`

const keepAlive = Stream.fromSchedule(Schedule.spaced(KEEP_ALIVE)).pipe(Stream.as(": keep-alive\n\n"))

/** A comment first, so the response (and its headers) start at once even when nothing is to be sent yet. */
const opening = Stream.make(": connected\n\n")

/** The SSE response body: the opening comment, then the frames kept alive, until the frames end or `end` completes. */
const sseBody = <E>(frames: Stream.Stream<string, E>, end: Effect.Effect<void>) =>
  Stream.concat(opening, Stream.merge(frames, keepAlive, { haltStrategy: "left" })).pipe(Stream.interruptWhen(end))

/** A cursor is the id of the last chunk seen: a decimal integer. */
export const parseCursor = (value: string | undefined): bigint => {
  if (value === undefined || !/^\d{1,19}$/.test(value.trim())) return 0n
  return BigInt(value.trim())
}

export class EventStreams extends Effect.Service<EventStreams>()("trellis/EventStreams", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const threads = yield* Threads
    const live = yield* LiveEvents
    const apiKeys = yield* ApiKeys
    const sessions = yield* LiveSessions

    // The id goes out as text (a bigint is past a JSON number), but must sort as the bigint: a bare
    // `ORDER BY id` names the text output column, and "1000" < "2" lost every event past a page.
    const eventsAfter = (threadId: string, cursor: bigint, limit: number) =>
      sql`
        SELECT c.id::text AS id, c.message_id AS "messageId", c.seq, c.normalized_event AS event
        FROM thread_chunks c WHERE c.thread_id = ${threadId} AND c.id > ${cursor.toString()}::bigint
        ORDER BY c.id LIMIT ${limit}`.pipe(Effect.flatMap(decodeChunkEvents), Effect.orDie)

    /** Everything after the cursor, page by page, advancing it. */
    const drain = (threadId: string, cursor: Ref.Ref<bigint>, limit: number) =>
      Stream.paginateEffect(undefined, () =>
        Effect.gen(function* () {
          const rows = yield* eventsAfter(threadId, yield* Ref.get(cursor), limit)
          const last = rows.at(-1)
          if (last !== undefined) yield* Ref.set(cursor, BigInt(last.id))
          return [rows, rows.length === limit ? Option.some(undefined) : Option.none()] as const
        }))

    /**
     * The thread's events after `after` (0: from the start), then each new one as it is stored:
     * one `event` frame each, or with `batched`, one `events` frame per read (an array, up to a
     * page; its id is the last event's), so a client that bootstraps a long thread handles a few
     * dozen frames instead of thousands.
     */
    const threadEvents = Effect.fn("EventStreams.threadEvents")(function* (
      principal: Principal,
      threadId: string,
      after: bigint,
      batched = false
    ) {
      const thread = yield* threads.get(principal, threadId)
      if (thread.kind !== "thread") {
        return yield* new NotFound({ message: `threadId: ${threadId} is a thread group; stream its members' events instead` })
      }
      return Stream.unwrapScoped(Effect.gen(function* () {
        const signals = yield* live.threadSignals(threadId)
        const cursor = yield* Ref.make(after)
        const pages = Stream.concat(Stream.make(undefined), signals).pipe(Stream.flatMap(() => drain(threadId, cursor, batched ? BATCHED_PAGE : PAGE), { switch: false }))
        const frames = batched
          ? pages.pipe(Stream.filterMap((rows) =>
            Option.map(Option.fromNullable(rows.at(-1)), (last) => sseFrame({ id: last.id, event: "events", data: rows }))
          ))
          : pages.pipe(Stream.flattenIterables, Stream.map((row) => sseFrame({ id: row.id, event: "event", data: row })))
        // A stream outlives the request that authenticated it: it ends when its key is revoked.
        return sseBody(frames, apiKeys.revoked(principal.apiKeyId))
      }))
    })

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

    /** A session's queue: the profile's pending threads now, then the list again whenever it changes. */
    const pendingThreads = Effect.fn("EventStreams.pendingThreads")(function* (principal: Principal, sessionId: AgentSessionId) {
      const session = yield* sessions.live(principal, sessionId)
      const { machineId, profileId } = session
      return Stream.unwrapScoped(Effect.gen(function* () {
        const signals = yield* live.queueSignals(profileId)
        // Claims send no signal here (see LiveEvents.signalClaimSql): this session made them. Any
        // other change reads the queue again, and the frame goes out if it differs from the last.
        const frames = Stream.concat(Stream.make(undefined), signals).pipe(
          Stream.throttle({ cost: () => 1, units: 1, duration: PENDING_FRAME_SPACING, strategy: "shape" }),
          Stream.mapEffect(() => pendingOf(profileId, machineId)),
          Stream.changesWith((a, b) => a.length === b.length && a.every((id, i) => id === b[i])),
          Stream.map((threadIds) => sseFrame({ event: "pending", data: { threadIds } }))
        )
        // A stream outlives the request that authenticated it: it ends when its key is revoked.
        return sseBody(frames, apiKeys.revoked(principal.apiKeyId))
      }))
    })

    return { threadEvents, pendingThreads } as const
  }),
  dependencies: [Threads.Default, LiveEvents.Default, ApiKeys.Default, LiveSessions.Default]
}) {}

