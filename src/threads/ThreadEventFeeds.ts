import { SqlClient } from "@effect/sql"
import { Effect, Option, RcMap, Schedule, Schema, type Scope, Stream } from "effect"
import { NormalizedEvent } from "../../catalog/events/NormalizedEvent.js"
import { whileOpen } from "../platform/http/Sse.js"
import { LiveEvents } from "../platform/notifications/LiveEvents.js"

/**
 * One reader per watched thread, shared by all of its open event streams. A thread's change signal
 * costs one read of the new events, whatever the number of streams: the feed keeps the latest
 * events in memory and wakes its subscribers, which take what is after their own cursor from it,
 * rendered as SSE frames once for all the subscribers at that cursor.
 * Reading per stream cost a thousand open streams a thousand reads per upload, queued on the pool
 * ahead of the upload itself (which then failed for want of a connection). The feed lives while a
 * stream of its thread is open; the last one to close ends it (its signal subscription and fiber).
 */

const ChunkEvent = Schema.Struct({
  id: Schema.String,
  messageId: Schema.String,
  seq: Schema.Number,
  event: NormalizedEvent
})
export type ChunkEvent = typeof ChunkEvent.Type
const decodeChunkEvents = Schema.decodeUnknown(Schema.Array(ChunkEvent))

/** A stored event: its id as a number and its JSON, written once for every stream that sends it. */
export interface FeedEvent {
  readonly id: bigint
  readonly json: string
}

const encoder = new TextEncoder()

/**
 * Events as SSE bytes: one `event` frame each (id: the event's), or with `batched` one `events`
 * frame for all of them (data: an array; id: the last one's). Empty for no events.
 */
export const renderFrames = (events: ReadonlyArray<FeedEvent>, batched: boolean): Uint8Array => {
  const last = events.at(-1)
  if (last === undefined) return new Uint8Array(0)
  return encoder.encode(
    batched
      ? `id: ${last.id}\nevent: events\ndata: [${events.map((event) => event.json).join(",")}]\n\n`
      : events.map((event) => `id: ${event.id}\nevent: event\ndata: ${event.json}\n\n`).join("")
  )
}

/** What a stream sends next: the frames of the events after its cursor (maybe none), and its cursor after them. */
export interface Frames {
  readonly bytes: Uint8Array
  readonly last: bigint
}

/**
 * What a feed keeps in memory, the latest events up to either bound: enough for a thousand streams
 * opened on a thread to bootstrap from it rather than read the database a thousand times. A
 * stream further behind (a long thread's start, a slow client under a burst) reads the database
 * from its own cursor.
 */
const KEPT_EVENTS = 2_000
const KEPT_BYTES = 2_000_000
/** Events per read of the feed. */
const READ_PAGE = 5_000
/** A failed read is tried again soon; the next signal would too, but none may come for a while. */
const RETRY = Schedule.exponential("100 millis").pipe(Schedule.intersect(Schedule.recurs(4)))

export interface FeedSubscription {
  /**
   * The frames of the events after `cursor` that the feed holds; none when the cursor is older than
   * what it holds, and the reader must read the database. Rendered once for all the streams at the
   * same cursor (most of them: each took the last events when they came), not once per stream.
   */
  readonly framesAfter: (cursor: bigint, batched: boolean) => Option.Option<Frames>
}

interface Feed {
  /** Called whenever the feed has read new events: a flag and a resume each, no queue (SseStreams). */
  readonly subscribers: Set<() => void>
  readonly framesAfter: (cursor: bigint, batched: boolean) => Option.Option<Frames>
}

const toFeedEvents = (rows: ReadonlyArray<ChunkEvent>): ReadonlyArray<FeedEvent> =>
  rows.map((row) => ({ id: BigInt(row.id), json: JSON.stringify(row) }))

export class ThreadEventFeeds extends Effect.Service<ThreadEventFeeds>()("trellis/ThreadEventFeeds", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const live = yield* LiveEvents
    const open = new Set<Feed>()

    // The id goes out as text (a bigint is past a JSON number), but must sort as the bigint: a bare
    // `ORDER BY id` names the text output column, and "1000" < "2" lost every event past a page.
    const eventsAfter = (threadId: string, cursor: bigint, limit: number) =>
      sql`
        SELECT c.id::text AS id, c.message_id AS "messageId", c.seq, c.normalized_event AS event
        FROM thread_chunks c WHERE c.thread_id = ${threadId} AND c.id > ${cursor.toString()}::bigint
        ORDER BY c.id LIMIT ${limit}`.pipe(Effect.flatMap(decodeChunkEvents), Effect.orDie, Effect.map(toFeedEvents))

    /** The thread's latest events, oldest first. */
    const latest = (threadId: string, limit: number) =>
      sql`
        SELECT * FROM (
          SELECT c.id::text AS id, c.message_id AS "messageId", c.seq, c.normalized_event AS event
          FROM thread_chunks c WHERE c.thread_id = ${threadId} ORDER BY c.id DESC LIMIT ${limit}
        ) latest ORDER BY id::bigint`.pipe(Effect.flatMap(decodeChunkEvents), Effect.orDie, Effect.map(toFeedEvents))

    const startFeed = (threadId: string): Effect.Effect<Feed, never, Scope.Scope> =>
      Effect.gen(function*() {
        // Signals first, then the latest events: one stored in between is read by the first signal's read.
        const signals = yield* live.threadSignals(threadId)
        const loaded = yield* latest(threadId, KEPT_EVENTS)
        let head = loaded.at(-1)?.id ?? 0n
        // All of a short thread is held; of a longer one, what is after the event before the first held.
        let floor = loaded.length < KEPT_EVENTS ? 0n : (loaded[0]?.id ?? 1n) - 1n
        let recent: ReadonlyArray<FeedEvent> = []
        let bytes = 0
        const subscribers = new Set<() => void>()
        // The frames given out since the last read, by mode and cursor, up to KEPT_BYTES in all:
        // streams resumed at a thousand different cursors render their own rather than hold them all.
        const rendered = new Map<string, Frames>()
        let renderedBytes = 0

        const keep = (events: ReadonlyArray<FeedEvent>) => {
          let all = [...recent, ...events]
          bytes += events.reduce((sum, event) => sum + event.json.length, 0)
          let dropped = Math.max(0, all.length - KEPT_EVENTS)
          for (let i = 0; i < dropped; i++) bytes -= all[i]?.json.length ?? 0
          while (bytes > KEPT_BYTES && dropped < all.length - 1) bytes -= all[dropped++]?.json.length ?? 0
          if (dropped > 0) {
            floor = all[dropped - 1]?.id ?? floor
            all = all.slice(dropped)
          }
          recent = all
          head = events.at(-1)?.id ?? head
          rendered.clear()
          renderedBytes = 0
          for (const wake of subscribers) wake()
        }
        keep(loaded)

        const readNew: Effect.Effect<void> = Effect.suspend(() => eventsAfter(threadId, head, READ_PAGE)).pipe(
          Effect.flatMap((events) =>
            events.length === 0
              ? Effect.void
              : Effect.zipRight(Effect.sync(() => keep(events)), events.length === READ_PAGE ? readNew : Effect.void)
          )
        )

        yield* signals.pipe(
          Stream.runForEach(() =>
            readNew.pipe(
              Effect.sandbox,
              Effect.retry(RETRY),
              Effect.catchAll((cause) => Effect.logWarning(`reading thread ${threadId}'s new events failed`, cause))
            )
          ),
          Effect.forkScoped
        )

        /** The index of the first held event after `cursor` (ids ascend). */
        const firstAfter = (cursor: bigint) => {
          let low = 0
          let high = recent.length
          while (low < high) {
            const middle = (low + high) >>> 1
            if ((recent[middle]?.id ?? head) > cursor) high = middle
            else low = middle + 1
          }
          return low
        }

        const feed: Feed = {
          subscribers,
          framesAfter: (cursor, batched) => {
            if (cursor < floor) return Option.none()
            const key = `${batched ? "b" : "e"}${cursor}`
            let frames = rendered.get(key)
            if (frames === undefined) {
              const events = recent.slice(firstAfter(cursor))
              frames = { bytes: renderFrames(events, batched), last: events.at(-1)?.id ?? cursor }
              if (renderedBytes + frames.bytes.length <= KEPT_BYTES) {
                rendered.set(key, frames)
                renderedBytes += frames.bytes.length
              }
            }
            return Option.some(frames)
          }
        }
        yield* Effect.acquireRelease(Effect.sync(() => open.add(feed)), () => Effect.sync(() => open.delete(feed)))
        return feed
      })

    const feeds = yield* RcMap.make({ lookup: startFeed })

    /**
     * Subscribes to a thread's new events until the scope closes: `wake` is called whenever the
     * feed has read some. Call before reading the stream's bootstrap: whatever the feed reads from
     * then on wakes the subscriber, and anything it read before was stored before the bootstrap's read.
     */
    const subscribe = (threadId: string, wake: () => void): Effect.Effect<FeedSubscription, never, Scope.Scope> =>
      Effect.gen(function*() {
        const feed = yield* RcMap.get(feeds, threadId)
        yield* whileOpen(() => feed.subscribers.add(wake), () => feed.subscribers.delete(wake))
        return { framesAfter: feed.framesAfter }
      })

    /** The threads being watched and their open subscriptions: what the open streams hold on the server. */
    const stats = Effect.sync(() => ({
      feeds: open.size,
      subscribers: [...open].reduce((sum, feed) => sum + feed.subscribers.size, 0)
    }))

    return { subscribe, eventsAfter, stats } as const
  }),
  dependencies: [LiveEvents.Default]
}) {}
