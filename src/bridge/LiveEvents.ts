import { PgClient } from "@effect/sql-pg"
import { Chunk, Effect, Stream } from "effect"
import { makeSignalHub, type SignalHub } from "./SignalHub.js"

/**
 * Change signals for live subscribers, carried by PostgreSQL `NOTIFY` so that every backend
 * instance on the database hears every other's writes. A signal says only *what* changed
 * (a thread, a profile's queue); subscribers re-read from their cursor, so a lost or merged
 * signal costs a query, never an event.
 */

const THREAD_CHANNEL = "trellis_thread"
const PROFILE_CHANNEL = "trellis_profile"

export class LiveEvents extends Effect.Service<LiveEvents>()("trellis/LiveEvents", {
  scoped: Effect.gen(function* () {
    const pg = yield* PgClient.PgClient
    const threads = makeSignalHub()
    const profiles = makeSignalHub()

    const relay = (channel: string, publish: (payload: string) => Effect.Effect<void>) =>
      pg.listen(channel).pipe(
        Stream.runForEach(publish),
        Effect.tapErrorCause((cause) => Effect.logWarning(`LISTEN ${channel} stopped`, cause)),
        Effect.retry({ times: 1_000_000 }),
        Effect.forkScoped
      )
    yield* relay(THREAD_CHANNEL, threads.publish)
    yield* relay(PROFILE_CHANNEL, profiles.publish)

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

    /**
     * Subscribes now (call before reading the bootstrap so nothing falls between). Signals that
     * pile up while the subscriber re-reads are one signal: a burst of claims or chunks costs the
     * subscriber one read, not one per change.
     */
    const signals = (hub: SignalHub, key: string) =>
      Effect.map(hub.subscribe(key), (queue) =>
        Stream.fromQueue(queue).pipe(Stream.mapChunks((chunk) => Chunk.isEmpty(chunk) ? Chunk.empty<void>() : Chunk.of(undefined))))

    return {
      threadChanged,
      chunksAdded,
      threadSignals: (threadId: string) => signals(threads, threadId),
      queueSignals: (profileId: string) => signals(profiles, profileId)
    } as const
  })
}) {}
