import { describe, expect, layer } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Option, Scope, Stream, Tracer } from "effect"
import { ApiKeys } from "../../src/platform/auth/ApiKeys.js"
import { RevokedKeys } from "../../src/platform/auth/RevokedKeys.js"
import { ThreadEventFeeds } from "../../src/threads/ThreadEventFeeds.js"
import { connect, type Frame } from "../support/Sse.js"
import { TestServer } from "../support/TestServer.js"
import { createKey } from "../support/Seed.js"
import { chunks, ownerWithCli, startStreaming, threadOn, upload } from "../support/ThreadFixtures.js"

/**
 * Many open streams of one thread cost the server what one does: a stored event is read from the
 * database once and sent to every stream, a key's revocation is watched once for all of its
 * streams (not on a timer per stream), and a closed stream leaves nothing behind. A thousand
 * streams reading per stream once put a thousand reads per upload on the pool, ahead of the
 * upload itself, and two hundred key lookups a second. Counts, not times: the statements the
 * server runs are counted by a tracer (every SQL statement is a span carrying its text).
 */

const STREAMS = 200
/** Of the STREAMS, those opened with a second key, revoked at the end. */
const REVOKED = 50
/** The key cache's period: what a revoked key's streams may still run, at most. */
const REVOCATION_BOUND = "5 seconds"

const statements: Array<string> = []
/** The tracer in place, noting the text of every SQL statement as its span receives it. */
const countingTracer = (native: Tracer.Tracer): Tracer.Tracer =>
  Tracer.make({
    context: native.context,
    span: (name, parent, context, links, startTime, kind, options) => {
      const span = native.span(name, parent, context, links, startTime, kind, options)
      if (name !== "sql.execute") return span
      const counted: Tracer.Span = {
        _tag: "Span",
        name: span.name,
        spanId: span.spanId,
        traceId: span.traceId,
        parent: span.parent,
        context: span.context,
        get status() {
          return span.status
        },
        get attributes() {
          return span.attributes
        },
        get links() {
          return span.links
        },
        sampled: span.sampled,
        kind: span.kind,
        end: (endTime, exit) => span.end(endTime, exit),
        attribute: (key, value) => {
          if (key === "db.query.text" && typeof value === "string") statements.push(value)
          span.attribute(key, value)
        },
        event: (eventName, eventTime, attributes) => span.event(eventName, eventTime, attributes),
        addLinks: (added) => span.addLinks(added)
      }
      return counted
    }
  })
const Counted = Layer.unwrapEffect(Effect.map(Effect.tracer, (native) => Layer.setTracer(countingTracer(native))))

/** The statements that read a thread's events or look up a key, from `from` on. */
const readsSince = (from: number) => {
  const since = statements.slice(from)
  return {
    events: since.filter((text) => /FROM thread_chunks c WHERE c\.thread_id/.test(text)).length,
    keys: since.filter((text) => /FROM api_keys/.test(text)).length
  }
}

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

const textOf = (frame: Frame | undefined): unknown => Reflect.get(Object(Reflect.get(Object(frame?.data), "event")), "text")

const nextText = (stream: Stream.Stream<Frame, unknown>) =>
  Effect.map(Stream.runHead(stream), (frame) => textOf(frame._tag === "Some" ? frame.value : undefined))

describe("many live streams of one thread", () => {
  // The server's clock is a live one: a revocation's bound is real time, as for a client. No rate
  // budget: 150 streams opened at once by one key pass its burst of 100 unless 2.5 s go by, which
  // depends on how fast the database answers (RateLimit.test.ts covers the budget).
  layer(TestServer({ rateLimit: Option.none() }).pipe(Layer.provide(Counted)), { excludeTestServices: true })((it) => {
    it.effect(
      `${STREAMS} streams of a thread: one read per upload reaches them all, a revoked key's streams end within 5 s, and closed streams leave nothing behind`,
      () =>
        Effect.gen(function*() {
          const owner = yield* ownerWithCli("many-streams")
          const thread = yield* threadOn(owner.key, owner.cli)
          const run = yield* startStreaming(owner.cli, thread.threadId, [chunks.text("before")])
          const reader = yield* createKey(owner.user.id, null)
          const path = `/api/threads/${thread.threadId}/events`
          const feeds = yield* ThreadEventFeeds
          const revokedKeys = yield* RevokedKeys

          const scope = yield* Scope.make()
          const openFrom = statements.length
          const open = (key: string, count: number) =>
            Effect.all(Array.from({ length: count }, () => connect(key, path)), { concurrency: "unbounded" }).pipe(Scope.extend(scope))
          const kept = yield* open(owner.key, STREAMS - REVOKED)
          const revocable = yield* open(reader.secret, REVOKED)
          const all = [...kept, ...revocable]
          // Every stream's bootstrap: the event stored before it opened.
          expect(yield* Effect.forEach(all, nextText, { concurrency: "unbounded" })).toEqual(all.map(() => "before"))
          // Each stream's access check is a statement of its own: the count sees what the server runs.
          expect(statements.length - openFrom).toBeGreaterThanOrEqual(STREAMS)

          // Open and idle for a key-cache period: the keys are looked up once per period, not once per stream.
          const idleFrom = statements.length
          yield* sleep(5_500)
          expect(readsSince(idleFrom).keys).toBeLessThanOrEqual(4)

          // One upload: one read of the new event (not one per stream), and every stream gets it.
          const uploadFrom = statements.length
          yield* upload(owner.cli, thread.threadId, run.epoch, run.assistantMessageId, [chunks.text("after")], 1)
          expect(yield* Effect.forEach(all, nextText, { concurrency: "unbounded" })).toEqual(all.map(() => "after"))
          expect(readsSince(uploadFrom).events).toBeLessThanOrEqual(2)
          expect(yield* feeds.stats).toEqual({ feeds: 1, subscribers: STREAMS })

          // The reader's key is revoked: its streams end within the key cache's period; the owner's go on.
          const ending = yield* Effect.forkAll(revocable.map((stream) => Stream.runDrain(stream)))
          yield* (yield* ApiKeys).revoke(reader.record.id)
          const ended = yield* Fiber.join(ending).pipe(Effect.timeoutOption(REVOCATION_BOUND))
          expect(ended._tag).toBe("Some")
          yield* upload(owner.cli, thread.threadId, run.epoch, run.assistantMessageId, [chunks.text("later")], 2)
          expect(yield* Effect.forEach(kept, nextText, { concurrency: "unbounded" })).toEqual(kept.map(() => "later"))

          // Every client goes away: no subscription, feed or key watch is left, and an upload reads nothing for them.
          yield* Scope.close(scope, Exit.void)
          expect(yield* eventually(feeds.stats, (stats) => stats.subscribers === 0 && stats.feeds === 0)).toEqual({
            feeds: 0,
            subscribers: 0
          })
          expect(yield* eventually(revokedKeys.watchedKeys, (count) => count === 0)).toBe(0)
          const afterFrom = statements.length
          yield* upload(owner.cli, thread.threadId, run.epoch, run.assistantMessageId, [chunks.text("unread")], 3)
          yield* sleep(500)
          expect(readsSince(afterFrom).events).toBe(0)
        }),
      120_000
    )
  })
})
