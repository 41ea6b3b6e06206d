import { HttpClient, HttpClientRequest } from "@effect/platform"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Fiber, Option, Stream, TestClock } from "effect"
import { ApiKeys } from "../../src/platform/auth/ApiKeys.js"
import { RevokedKeys } from "../../src/platform/auth/RevokedKeys.js"
import { ThreadEventFeeds } from "../../src/threads/ThreadEventFeeds.js"
import { connect, type Frame } from "../support/Sse.js"
import { TestServer, type Transport } from "../support/TestServer.js"
import { createKey } from "../support/Seed.js"
import { chunks, missingThreadId, ownerWithCli, startStreaming, threadOn, upload } from "../support/ThreadFixtures.js"

/**
 * A thread's event stream answers alike through the @effect/platform router (what embedders
 * mount) and on `trellis serve`'s node fast path (the route a thousand browser tabs open at once):
 * the frames and their ids, resuming, batches, the refusals, keep-alives from one shared timer, a
 * revoked key's streams ending, and nothing left behind by a client that goes away. The server runs
 * on the test clock: the 15 s keep-alive and the 5 s key period pass by moving it.
 */

const sleep = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

/** Waits (up to 10 s, real time) until `condition` holds; what it last saw goes to the assertion. */
const eventually = <A>(read: Effect.Effect<A>, condition: (value: A) => boolean) =>
  Effect.gen(function*() {
    let value = yield* read
    for (let i = 0; i < 100 && !condition(value); i++) {
      yield* sleep(100)
      value = yield* read
    }
    return value
  })

const textOf = (frame: Frame): unknown => Reflect.get(Object(Reflect.get(Object(frame.data), "event")), "text")

const take = (frames: Stream.Stream<Frame, unknown>, count: number) =>
  Effect.map(Stream.runCollect(Stream.take(frames, count)), (got) => [...got])

/** A GET's status and JSON body, for the answers that are not a stream. */
const answerOf = (key: string, path: string) =>
  Effect.gen(function*() {
    const response = yield* (yield* HttpClient.HttpClient).execute(HttpClientRequest.get(path).pipe(HttpClientRequest.bearerToken(key)))
    return { status: response.status, body: yield* response.json }
  }).pipe(Effect.scoped)

/** A stream's raw blocks (comments included) from `: connected` on, one pull at a time. */
const rawBlocks = (key: string, path: string) =>
  Effect.gen(function*() {
    const response = yield* (yield* HttpClient.HttpClient).execute(HttpClientRequest.get(path).pipe(HttpClientRequest.bearerToken(key)))
    expect(response.status).toBe(200)
    const blocks = response.stream.pipe(
      Stream.decodeText(),
      Stream.mapAccum("", (buffer, piece): readonly [string, ReadonlyArray<string>] => {
        const parts = (buffer + piece).split("\n\n")
        return [parts.pop() ?? "", parts]
      }),
      Stream.flattenIterables
    )
    const pull = yield* Stream.toPull(blocks)
    let pending: Array<string> = []
    const next = Effect.gen(function*() {
      while (pending.length === 0) pending = [...(yield* pull)]
      return pending.shift() ?? ""
    })
    /** The next block that is `block`, skipping others (the frames before it). */
    const until = (block: string) =>
      Effect.gen(function*() {
        while ((yield* next) !== block) continue
      })
    yield* until(": connected")
    return { until }
  })

describe.each<Transport>(["platform", "node"])("a thread's event stream on the %s transport", (transport) => {
  layer(TestServer({ rateLimit: Option.none() }, transport))((it) => {
    it.effect("the stored events first, then each new one, each frame with its event's id; batch=1 sends them as `events` frames with the last one's id", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli(`frames-${transport}`)
        const thread = yield* threadOn(owner.key, owner.cli)
        const run = yield* startStreaming(owner.cli, thread.threadId, [chunks.text("one"), chunks.text("two")])
        const path = `/api/threads/${thread.threadId}/events`
        const single = yield* connect(owner.key, path)
        const batched = yield* connect(owner.key, `${path}?batch=1`)
        yield* upload(owner.cli, thread.threadId, run.epoch, run.assistantMessageId, [chunks.text("three")], 2)

        const events = yield* take(single, 3)
        expect(events.map((frame) => frame.event)).toEqual(["event", "event", "event"])
        expect(events.map(textOf)).toEqual(["one", "two", "three"])
        for (const frame of events) expect(frame.id).toBe(String(Reflect.get(Object(frame.data), "id")))

        const batches = yield* take(batched, 2)
        expect(batches.map((frame) => frame.event)).toEqual(["events", "events"])
        const items = batches.map((frame) => (Array.isArray(frame.data) ? frame.data : []))
        expect(items.map((batch) => batch.map((item) => Reflect.get(Object(Reflect.get(Object(item), "event")), "text")))).toEqual([
          ["one", "two"],
          ["three"]
        ])
        expect(batches.map((frame) => frame.id)).toEqual(items.map((batch) => String(Reflect.get(Object(batch.at(-1)), "id"))))
      }).pipe(Effect.scoped))

    it.effect("Last-Event-ID and ?after= resume after the event named, without repeating it", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli(`resume-${transport}`)
        const thread = yield* threadOn(owner.key, owner.cli)
        yield* startStreaming(owner.cli, thread.threadId, [chunks.text("a"), chunks.text("b"), chunks.text("c")])
        const path = `/api/threads/${thread.threadId}/events`
        const first = yield* take(yield* connect(owner.key, path), 3)
        const resumed = yield* take(yield* connect(owner.key, path, { "last-event-id": first[0]?.id ?? "" }), 2)
        expect(resumed.map(textOf)).toEqual(["b", "c"])
        const after = yield* take(yield* connect(owner.key, `${path}?after=${first[1]?.id ?? ""}`), 1)
        expect(after.map(textOf)).toEqual(["c"])
      }).pipe(Effect.scoped))

    it.effect("a thread the key cannot reach is 404 NotFound, and an unknown batch value a 400 decode error", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli(`refusals-${transport}`)
        const thread = yield* threadOn(owner.key, owner.cli)
        const missing = yield* answerOf(owner.key, `/api/threads/${missingThreadId}/events`)
        expect(missing.status).toBe(404)
        expect(Reflect.get(Object(missing.body), "_tag")).toBe("NotFound")
        const badBatch = yield* answerOf(owner.key, `/api/threads/${thread.threadId}/events?batch=2`)
        expect(badBatch.status).toBe(400)
        expect(Reflect.get(Object(badBatch.body), "_tag")).toBe("HttpApiDecodeError")
      }))

    it.effect("open streams share one keep-alive timer: twenty more schedule nothing on the clock, and 15 s later each has its keep-alive comment", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli(`keep-alive-${transport}`)
        const thread = yield* threadOn(owner.key, owner.cli)
        const path = `/api/threads/${thread.threadId}/events`
        const first = yield* rawBlocks(owner.key, path)
        const timers = (yield* TestClock.sleeps()).length
        const more = yield* Effect.all(Array.from({ length: 20 }, () => rawBlocks(owner.key, path)), { concurrency: "unbounded" })
        expect((yield* TestClock.sleeps()).length).toBe(timers)

        yield* TestClock.adjust("15 seconds")
        yield* Effect.forEach([first, ...more], (stream) => stream.until(": keep-alive"), { concurrency: "unbounded" })
      }).pipe(Effect.scoped))

    it.effect("a revoked key's streams end within the key cache's period; the others go on, and streams that closed leave nothing behind", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli(`revoke-${transport}`)
        const thread = yield* threadOn(owner.key, owner.cli)
        const run = yield* startStreaming(owner.cli, thread.threadId, [chunks.text("before")])
        const reader = yield* createKey(owner.user.id, null)
        const path = `/api/threads/${thread.threadId}/events`
        const feeds = yield* ThreadEventFeeds
        const revokedKeys = yield* RevokedKeys

        yield* Effect.gen(function*() {
          const revocable = yield* Effect.all([connect(reader.secret, path), connect(reader.secret, path)])
          const kept = yield* connect(owner.key, path)
          expect(yield* feeds.stats).toEqual({ feeds: 1, subscribers: 3 })
          const ending = yield* Effect.fork(Effect.forEach(revocable, Stream.runCollect))
          yield* (yield* ApiKeys).revoke(reader.record.id)
          yield* TestClock.adjust("5 seconds")
          expect((yield* Fiber.join(ending)).map((frames) => [...frames].map(textOf))).toEqual([["before"], ["before"]])
          yield* upload(owner.cli, thread.threadId, run.epoch, run.assistantMessageId, [chunks.text("after")], 1)
          expect((yield* take(kept, 2)).map(textOf)).toEqual(["before", "after"])
        }).pipe(Effect.scoped)

        // Every client went away: no subscription, feed or key watch is left.
        expect(yield* eventually(feeds.stats, (stats) => stats.feeds === 0)).toEqual({ feeds: 0, subscribers: 0 })
        expect(yield* eventually(revokedKeys.watchedKeys, (count) => count === 0)).toBe(0)
      }))
  })
})
