import type { Statement } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Chunk, Effect, PubSub, Stream } from "effect"

/**
 * Change signals for live subscribers, carried by PostgreSQL `NOTIFY` so that every backend
 * instance on the database hears every other's writes. A signal says only *what* changed
 * (a thread, a profile's queue); subscribers re-read from their cursor, so a lost or merged
 * signal costs a query, never an event. The one exception is the commonest change of a queue,
 * a claim: its signal names the thread that left the queue, so a subscriber holding the queue
 * drops it without a read.
 */

/** A profile's queue changed in some way (read it again), or lost one thread to a claim. */
export type QueueSignal =
  | { readonly _tag: "Changed" }
  | { readonly _tag: "Claimed"; readonly threadId: string }

const CLAIMED = "\tclaimed\t"

const queueSignalOf = (payload: string): QueueSignal => {
  const at = payload.indexOf(CLAIMED)
  return at === -1 ? { _tag: "Changed" } : { _tag: "Claimed", threadId: payload.slice(at + CLAIMED.length) }
}

const profileOf = (payload: string): string => {
  const at = payload.indexOf(CLAIMED)
  return at === -1 ? payload : payload.slice(0, at)
}

const THREAD_CHANNEL = "trellis_thread"
const PROFILE_CHANNEL = "trellis_profile"

export class LiveEvents extends Effect.Service<LiveEvents>()("trellis/LiveEvents", {
  scoped: Effect.gen(function* () {
    const pg = yield* PgClient.PgClient
    const threads = yield* PubSub.unbounded<string>()
    const profiles = yield* PubSub.unbounded<string>()

    const relay = (channel: string, hub: PubSub.PubSub<string>) =>
      pg.listen(channel).pipe(
        Stream.runForEach((payload) => PubSub.publish(hub, payload)),
        Effect.tapErrorCause((cause) => Effect.logWarning(`LISTEN ${channel} stopped`, cause)),
        Effect.retry({ times: 1_000_000 }),
        Effect.forkScoped
      )
    yield* relay(THREAD_CHANNEL, threads)
    yield* relay(PROFILE_CHANNEL, profiles)

    // sql-pg's `notify` sends `NOTIFY "channel", $1`, which PostgreSQL rejects (a utility statement
    // takes no parameters); pg_notify is the same signal as a function, and is delivered at commit.
    const notify = (channel: string, payload: string) =>
      pg`SELECT pg_notify(${channel}, ${payload})`.pipe(
        Effect.catchAllCause((cause) => Effect.logWarning(`NOTIFY ${channel} failed`, cause))
      )

    /** A thread's state or timeline changed; its profile's queue may have too (one statement for both). */
    const threadChanged = (threadId: string, profileId: string | null) =>
      (profileId === null
        ? pg`SELECT pg_notify(${THREAD_CHANNEL}, ${threadId})`
        : pg`SELECT pg_notify(${THREAD_CHANNEL}, ${threadId}), pg_notify(${PROFILE_CHANNEL}, ${profileId})`).pipe(
        Effect.asVoid,
        Effect.catchAllCause((cause) => Effect.logWarning("NOTIFY failed", cause))
      )

    const chunksAdded = (threadId: string) => notify(THREAD_CHANNEL, threadId)

    /** The signals of a claim, as select-list columns of the statement that claims the thread. */
    const signalClaimSql = (threadId: Statement.Fragment, profileId: Statement.Fragment) =>
      pg`pg_notify(${THREAD_CHANNEL}, ${threadId}) AS "_threadSignal",
        pg_notify(${PROFILE_CHANNEL}, ${profileId} || ${CLAIMED} || ${threadId}) AS "_profileSignal"`

    /**
     * Subscribes now (call before reading the bootstrap so nothing falls between). Signals that
     * pile up while the subscriber re-reads are one signal: a burst of claims or chunks costs the
     * subscriber one read, not one per change.
     */
    const signals = (hub: PubSub.PubSub<string>, id: string) =>
      Effect.map(PubSub.subscribe(hub), (queue) =>
        Stream.fromQueue(queue).pipe(
          Stream.filter((payload) => payload === id),
          Stream.mapChunks((chunk) => Chunk.isEmpty(chunk) ? Chunk.empty<void>() : Chunk.of(undefined))
        ))

    return {
      threadChanged,
      chunksAdded,
      signalClaimSql,
      threadSignals: (threadId: string) => signals(threads, threadId),
      /** A profile's queue signals; those that pile up while the subscriber works arrive together. */
      queueSignals: (profileId: string) =>
        Effect.map(PubSub.subscribe(profiles), (queue) =>
          Stream.fromQueue(queue).pipe(
            Stream.filter((payload) => profileOf(payload) === profileId),
            Stream.map(queueSignalOf),
            Stream.chunks,
            Stream.filter((chunk) => Chunk.isNonEmpty(chunk))
          ))
    } as const
  })
}) {}
