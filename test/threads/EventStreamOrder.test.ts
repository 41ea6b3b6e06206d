import { describe, expect, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Array as Arr, Clock, Effect, Stream } from "effect"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { type Frame, sseFrames } from "../support/Sse.js"
import { TestServer } from "../support/TestServer.js"
import { chunks, ownerWithCli, startStreaming, threadOn, upload } from "../support/ThreadFixtures.js"

/**
 * What a client reading a thread relies on: every stored event exactly once, in id order, however
 * the stream is read. Each thread's 1,200 events span the stream's 500-event pages and an id digit
 * boundary (999 → 1000, 9999 → 10000, 99999 → 100000), where text order and number order part.
 */

const EVENTS = 1_200
/** Past one batched read (5,000 events). */
const BATCHED_EVENTS = 5_200
const UPLOAD_MAX = 1_000
/** Where a reader's connection is cut: around digit boundaries and page edges. */
const CUTS = [1, 9, 10, 11, 99, 100, 101, 499, 500, 501, 999, 1_000, 1_001, 1_199]

const threadWithEvents = (slug: string, firstId: number, events = EVENTS) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql.unsafe(`ALTER TABLE thread_chunks ALTER COLUMN id RESTART WITH ${firstId}`)
    const owner = yield* ownerWithCli(slug)
    const thread = yield* threadOn(owner.key, owner.cli)
    const run = yield* startStreaming(owner.cli, thread.threadId)
    const texts = Arr.makeBy(events, (i) => chunks.text(`event ${i}`))
    for (let from = 0; from < events; from += UPLOAD_MAX) {
      yield* upload(owner.cli, thread.threadId, run.epoch, run.assistantMessageId, texts.slice(from, from + UPLOAD_MAX), from)
    }
    const [stored] = yield* sql<{ count: number }>`SELECT count(*)::int AS count FROM thread_chunks WHERE thread_id = ${thread.threadId}`
    expect(stored?.count).toBe(events)
    return { key: owner.key, path: `/api/threads/${thread.threadId}/events` }
  })

/**
 * The next `count` frames of one connection, or what came before it stalled for 10 s: a stream that
 * loses events then fails on what it delivered, not on a timeout.
 */
const frames = (key: string, path: string, count: number, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(
      HttpClientRequest.get(path).pipe(HttpClientRequest.bearerToken(key), HttpClientRequest.setHeaders(headers))
    )
    expect(response.status).toBe(200)
    const got = yield* sseFrames(response).pipe(
      Stream.take(count),
      Stream.timeout("10 seconds"),
      Stream.runCollect,
      Effect.withClock(Clock.make())
    )
    return [...got]
  }).pipe(Effect.scoped)

const seqOf = (frame: Frame): unknown => Reflect.get(Object(frame.data), "seq")

/** Every event once, in id order: seq 0…1199 as uploaded, ids strictly increasing as numbers. */
const expectEveryEventOnceInOrder = (got: ReadonlyArray<Frame>, events = EVENTS) => {
  expect(got.map(seqOf)).toEqual(Arr.range(0, events - 1))
  const ids = got.map((frame) => BigInt(frame.id ?? "-1"))
  ids.forEach((id, i) => {
    if (i > 0) expect(id > ids[i - 1]!, `id ${id} after ${ids[i - 1]} at position ${i}`).toBe(true)
  })
}

/** Reads the stream in pieces, cut after each position in CUTS and resumed from the last id seen. */
const readWithCuts = (key: string, path: string, resume: (lastId: string) => { path: string; headers: Record<string, string> }) =>
  Effect.gen(function*() {
    const got: Array<Frame> = []
    for (const cut of [...CUTS, EVENTS]) {
      const last = got.at(-1)?.id
      const from = last === undefined ? { path, headers: {} } : resume(last)
      got.push(...(yield* frames(key, from.path, cut - got.length, from.headers)))
    }
    return got
  })

describe("thread event stream order", () => {
  layer(TestServer())((it) => {
    it.effect(
      "a thread of 1,200 events read from the start on one connection delivers every stored event once, in id order",
      () =>
        Effect.gen(function*() {
          const { key, path } = yield* threadWithEvents("order-one", 400)
          expectEveryEventOnceInOrder(yield* frames(key, path, EVENTS))
        }),
      120_000
    )

    it.effect(
      "a reader cut at many positions and resumed with Last-Event-ID gets every event exactly once, in id order",
      () =>
        Effect.gen(function*() {
          const { key, path } = yield* threadWithEvents("order-last-event-id", 9_500)
          expectEveryEventOnceInOrder(yield* readWithCuts(key, path, (lastId) => ({ path, headers: { "last-event-id": lastId } })))
        }),
      120_000
    )

    it.effect(
      "a reader cut at many positions and resumed with ?after= gets every event exactly once, in id order",
      () =>
        Effect.gen(function*() {
          const { key, path } = yield* threadWithEvents("order-after", 99_500)
          expectEveryEventOnceInOrder(yield* readWithCuts(key, path, (lastId) => ({ path: `${path}?after=${lastId}`, headers: {} })))
        }),
      120_000
    )

    it.effect(
      "with batch=1 the events come as `events` frames of at most 5,000, each with the last event's id; resumed after a frame, none is lost or repeated",
      () =>
        Effect.gen(function*() {
          const { key, path } = yield* threadWithEvents("order-batched", 999_700, BATCHED_EVENTS)
          const batches = yield* frames(key, `${path}?batch=1`, 2)
          expect(batches.map((frame) => frame.event)).toEqual(["events", "events"])
          const sizes = batches.map((frame) => (Array.isArray(frame.data) ? frame.data.length : -1))
          expect(sizes).toEqual([5_000, 200])
          const events = batches.flatMap((frame): ReadonlyArray<Frame> =>
            Array.isArray(frame.data)
              ? frame.data.map((data: unknown) => ({ id: String(Reflect.get(Object(data), "id")), event: "event", data }))
              : []
          )
          expectEveryEventOnceInOrder(events, BATCHED_EVENTS)
          expect(batches.map((frame) => frame.id)).toEqual([events[4_999]?.id, events[5_199]?.id])
          // A client that saw the first frame resumes after its id and gets the rest once.
          const resumed = yield* frames(key, `${path}?batch=1`, 1, { "last-event-id": batches[0]?.id ?? "" })
          expect(resumed.map((frame) => [frame.id, Array.isArray(frame.data) ? frame.data.length : -1])).toEqual([[batches[1]?.id, 200]])
        }),
      120_000
    )
  })
})
