import { HttpClient, HttpClientRequest } from "@effect/platform"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Fiber, Option } from "effect"
import { frames } from "../support/Sse.js"
import { TestServer } from "../support/TestServer.js"
import { chunks, ownerWithCli, share, startStreaming, teammate, threadOn, upload } from "../support/ThreadFixtures.js"

/** SPEC: a teammate reads a thread its owner shared, its live event stream included. */

const eventsPath = (threadId: string) => `/api/threads/${threadId}/events`

const statusFor = (key: string, path: string) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    return (yield* client.execute(HttpClientRequest.get(path).pipe(HttpClientRequest.bearerToken(key)))).status
  }).pipe(Effect.scoped)

const textOf = (data: unknown): unknown => Reflect.get(Object(Reflect.get(Object(data), "event")), "text")

describe("a teammate's shared thread: its event stream", () => {
  layer(TestServer({ rateLimit: Option.none() }))((it) => {
    it.effect("a teammate streams a shared thread's events: the stored ones first, then each new one as the CLI uploads it", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("shared-events")
        const mate = yield* teammate(owner, "mate")
        const thread = yield* threadOn(owner.key, owner.cli, { content: "Investigate the outage" })
        const run = yield* startStreaming(owner.cli, thread.threadId, [chunks.text("Looking at the logs")])

        // Not shared yet: the teammate cannot tell the thread exists.
        expect(yield* statusFor(mate.key, eventsPath(thread.threadId))).toBe(404)

        yield* share(owner.cli, thread.threadId)
        const reading = yield* Effect.fork(frames(mate.key, eventsPath(thread.threadId), 2))
        yield* upload(owner.cli, thread.threadId, run.epoch, run.assistantMessageId, [chunks.text("Found the cause")], 1)
        const read = yield* Fiber.join(reading)
        expect(read.map((frame) => [frame.event, textOf(frame.data)])).toEqual([
          ["event", "Looking at the logs"],
          ["event", "Found the cause"]
        ])
      }))
  })
})
