import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Stream, TestClock } from "effect"
import { ApiKeys } from "../../src/platform/auth/ApiKeys.js"
import { connect } from "../support/Sse.js"
import { TestServer } from "../support/TestServer.js"
import { createKey } from "../support/Seed.js"
import { chunks, ownerWithCli, startStreaming, threadOn, upload } from "../support/ThreadFixtures.js"

/**
 * A stream outlives the request that authenticated it: a revoked key's open streams end within the
 * key cache's period (5 seconds), the time its new requests may still be let in. The server runs
 * on the test clock, so the period is passed by moving the clock, not by waiting. The key is
 * revoked only once its stream has delivered a frame: a stream that ends before its first frame
 * proves nothing about ending an open one.
 */

/** Collects a stream to its end in a fiber, returning once its first frame has arrived. */
const collectAfterFirst = <A, E, R>(stream: Stream.Stream<A, E, R>) =>
  Effect.gen(function*() {
    const first = yield* Deferred.make<void>()
    const fiber = yield* Effect.fork(Stream.runCollect(Stream.tap(stream, () => Deferred.succeed(first, undefined))))
    yield* Deferred.await(first)
    return fiber
  })

const CACHE_PERIOD = "5 seconds"

describe("revoking a key ends its open streams", () => {
  it.layer(TestServer())("streams", (it) => {
    it.effect("a thread's event stream opened with a revoked key ends within the key cache's period; another key's stream goes on", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("revoke-thread")
        const thread = yield* threadOn(owner.key, owner.cli)
        const run = yield* startStreaming(owner.cli, thread.threadId, [chunks.text("before")])
        const reader = yield* createKey(owner.user.id, null)
        const path = `/api/threads/${thread.threadId}/events`
        const revokedStream = yield* connect(reader.secret, path)
        const otherStream = yield* connect(owner.key, path)
        const ended = yield* collectAfterFirst(revokedStream)

        yield* (yield* ApiKeys).revoke(reader.record.id)
        yield* TestClock.adjust(CACHE_PERIOD)
        const delivered = yield* Fiber.join(ended)
        expect([...delivered].map((frame) => frame.event)).toEqual(["event"])

        yield* upload(owner.cli, thread.threadId, run.epoch, run.assistantMessageId, [chunks.text("after")], 1)
        const frames = yield* Stream.runCollect(Stream.take(otherStream, 2))
        expect([...frames].map((frame) => Reflect.get(Object(Reflect.get(Object(frame.data), "event")), "text"))).toEqual([
          "before",
          "after"
        ])
      }).pipe(Effect.scoped))

    it.effect("a CLI session's pending-thread stream opened with a revoked key ends within the key cache's period", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("revoke-pending")
        const stream = yield* connect(owner.key, `/api/agent/sessions/${owner.cli.sessionId}/pending`)
        const ended = yield* collectAfterFirst(stream)

        yield* (yield* ApiKeys).revoke(owner.principal.apiKeyId)
        yield* TestClock.adjust(CACHE_PERIOD)
        const delivered = yield* Fiber.join(ended)
        expect([...delivered].map((frame) => frame.data)).toEqual([{ threadIds: [] }])
      }).pipe(Effect.scoped))
  })
})
