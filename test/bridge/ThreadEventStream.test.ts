import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer, Stream } from "effect"
import { MAX_CHUNKS_PER_UPLOAD } from "../../src/bridge/AgentApi.js"
import { connect } from "../support/Sse.js"
import { TestServer } from "../support/TestServer.js"
import { chunks, ownerWithCli, startStreaming, threadOn, upload } from "../support/ThreadFixtures.js"

/**
 * What a client of a thread's event stream relies on, on a thread longer than several pages of
 * the stream whose event ids cross digit boundaries (9 → 10, 99 → 100, 999 → 1000): every stored
 * event exactly once, in id order, read at once or across reconnections.
 */

const EVENTS = 1200

/** A thread of `EVENTS` events, uploaded by a CLI the way a long run uploads them, and the ids stored. */
class LongThread extends Context.Tag("test/LongThread")<LongThread, {
  readonly key: string
  readonly path: string
  readonly ids: ReadonlyArray<string>
}>() {}

const LongThreadLive = Layer.effect(LongThread, Effect.gen(function* () {
  const owner = yield* ownerWithCli("long-thread")
  const thread = yield* threadOn(owner.key, owner.cli)
  const run = yield* startStreaming(owner.cli, thread.threadId)
  const raw = Array.from({ length: EVENTS }, (_, i) => chunks.text(`event ${i}`))
  for (let first = 0; first < EVENTS; first += MAX_CHUNKS_PER_UPLOAD) {
    const part = raw.slice(first, first + MAX_CHUNKS_PER_UPLOAD)
    const result = yield* upload(owner.cli, thread.threadId, run.epoch, run.assistantMessageId, part, first)
    expect(result.accepted).toBe(part.length)
  }
  // The ids production gave, in the order they were stored (the alias is not `id`, so the bigint is what sorts).
  const sql = yield* SqlClient.SqlClient
  const stored = yield* sql<{ storedId: string }>`
    SELECT id::text AS "storedId" FROM thread_chunks WHERE thread_id = ${thread.threadId} ORDER BY id`
  return { key: owner.key, path: `/api/threads/${thread.threadId}/events`, ids: stored.map((row) => row.storedId) }
}))

/**
 * The event ids a connection delivers until the one with id `lastId` (inclusive). The time limit
 * only turns a stream that stops delivering into a failure instead of a hung test.
 */
const readUntil = (stream: Stream.Stream<{ readonly id: string | undefined }, unknown>, lastId: string) =>
  stream.pipe(
    Stream.map((frame) => frame.id ?? ""),
    Stream.takeUntil((id) => id === lastId),
    Stream.runCollect,
    Effect.map((ids) => [...ids]),
    Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error(`the stream stopped before event ${lastId}`) })
  )

/** Cut points, as counts of events read: at page boundaries and the ids' digit boundaries, and between. */
const CUTS = [1, 9, 10, 99, 100, 101, 499, 500, 501, 777, 999, 1000, 1001, 1002, 1150]

describe("a thread's event stream", () => {
  layer(Layer.provideMerge(LongThreadLive, TestServer()), { timeout: 120_000, excludeTestServices: true })("past several pages", (it) => {
    it.effect("the thread holds more than two pages of events, their ids crossing 9 → 10, 99 → 100 and 999 → 1000", () =>
      Effect.gen(function* () {
        const { ids } = yield* LongThread
        expect(ids).toHaveLength(EVENTS)
        for (const boundary of ["9", "10", "99", "100", "999", "1000"]) expect(ids).toContain(boundary)
      }))

    it.effect("read from the start on one connection, every stored event arrives once, in id order", () =>
      Effect.gen(function* () {
        const { key, path, ids } = yield* LongThread
        const lastId = ids.at(-1) ?? ""
        const got = yield* Effect.flatMap(connect(key, path), (stream) => readUntil(stream, lastId)).pipe(Effect.scoped)
        expect(got.length).toBe(ids.length)
        expect(got).toEqual(ids)
      }))

    it.effect("cut at page and digit boundaries and resumed with Last-Event-ID or ?after=, every stored event arrives once, in id order", () =>
      Effect.gen(function* () {
        const { key, path, ids } = yield* LongThread
        const lastId = ids.at(-1) ?? ""
        const got: Array<string> = []
        for (const [n, cut] of [...CUTS, ids.length].entries()) {
          const seen = got.at(-1)
          // Alternate the two ways a client resumes; the first connection reads from the start.
          const resumed = seen === undefined
            ? connect(key, path)
            : n % 2 === 0 ? connect(key, `${path}?after=${seen}`) : connect(key, path, { "last-event-id": seen })
          const part = yield* Effect.flatMap(resumed, (stream) =>
            readUntil(stream.pipe(Stream.take(cut - got.length)), lastId)).pipe(Effect.scoped)
          got.push(...part)
        }
        expect(got.length).toBe(ids.length)
        expect(got).toEqual(ids)
      }))
  })
})
