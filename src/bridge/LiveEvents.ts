import type { Statement } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, PubSub, Stream } from "effect"

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

    /** The same signals as `threadChanged`, as select-list columns for a statement that changes the thread. */
    const signalThreadSql = (threadId: Statement.Fragment, profileId: Statement.Fragment) =>
      pg`pg_notify(${THREAD_CHANNEL}, ${threadId}) AS "_threadSignal", pg_notify(${PROFILE_CHANNEL}, ${profileId}) AS "_profileSignal"`

    /** Subscribes now (call before reading the bootstrap so nothing falls between). */
    const signals = (hub: PubSub.PubSub<string>, id: string) =>
      Effect.map(PubSub.subscribe(hub), (queue) =>
        Stream.fromQueue(queue).pipe(Stream.filter((payload) => payload === id), Stream.as(undefined)))

    return {
      threadChanged,
      chunksAdded,
      signalThreadSql,
      threadSignals: (threadId: string) => signals(threads, threadId),
      profileSignals: (profileId: string) => signals(profiles, profileId)
    } as const
  })
}) {}
