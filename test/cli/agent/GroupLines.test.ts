import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Option, Queue, Schema, type Scope, Stream, TestClock } from "effect"
import { groupLines } from "../../../cli/agent/GroupLines.js"
import type { RawLine } from "../../../cli/agent/runtimes/Runtime.js"
import { GROUP_LIMITS, MAX_CHUNK_BYTES, splitLine } from "../../../cli/agent/ThreadRunner.js"
import { ChunkUpload } from "../../../catalog/bridge/AgentApi.js"
import { defaults } from "../../../src/platform/TrellisConfig.js"

type Pull = Effect.Effect<Chunk.Chunk<ReadonlyArray<RawLine>>, Option.Option<never>>

const line = (i: number, data = `{"type":"assistant","n":${i}}`): RawLine => ({ type: "assistant", data })
const kib = (i: number, size: number): RawLine => line(i, `${i}:`.padEnd(size * 1024, "x"))

/** Lines the way a runtime's stdout gives them: one per pull, counted. */
const counted = (make: (i: number) => RawLine, total: number) => {
  const pulled = { count: 0 }
  const source = Stream.repeatEffect(Effect.sync(() => make(pulled.count++))).pipe(Stream.take(total))
  return { pulled, source }
}

const grouped = (source: Stream.Stream<RawLine>): Effect.Effect<Pull, never, Scope.Scope> => Stream.toPull(groupLines(source, GROUP_LIMITS))

/** Everything runnable runs; what is still blocked stays blocked. */
const settle = Effect.gen(function*() {
  for (let i = 0; i < 200; i++) yield* Effect.yieldNow()
})

const waitUntil = (condition: Effect.Effect<boolean>) =>
  Effect.gen(function*() {
    while (!(yield* condition)) yield* Effect.yieldNow()
  })

const sleeping = TestClock.sleeps().pipe(Effect.map(Chunk.isNonEmpty))

/** The next group (none once the source ended), moving the TestClock on whenever the grouping waits out its window. */
const nextGroup = (pull: Pull) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fork(pull.pipe(
      Effect.map((groups) => Option.some(Chunk.toReadonlyArray(groups).flat())),
      Effect.catchAll(() => Effect.succeed(Option.none<ReadonlyArray<RawLine>>()))
    ))
    while (true) {
      const done = yield* Fiber.poll(fiber)
      if (Option.isSome(done)) return yield* done.value
      if (yield* sleeping) yield* TestClock.adjust(GROUP_LIMITS.window)
      else yield* Effect.yieldNow()
    }
  })

const allGroups = (pull: Pull) =>
  Effect.gen(function*() {
    const groups: Array<ReadonlyArray<RawLine>> = []
    while (true) {
      const group = yield* nextGroup(pull)
      if (Option.isNone(group)) return groups
      groups.push(group.value)
    }
  })

/** The upload body the CLI sends for a group, as bytes on the wire. */
const bodyBytes = (group: ReadonlyArray<RawLine>) =>
  Buffer.byteLength(JSON.stringify(
    Schema.encodeSync(ChunkUpload)({
      sessionId: Schema.decodeSync(ChunkUpload.fields.sessionId)(`session_${"f".repeat(32)}`),
      epoch: 999_999,
      messageId: `msg_${"f".repeat(32)}`,
      chunks: group.map((l, i) => ({ seq: 1_000_000_000 + i, type: l.type, data: l.data })),
      runtimeSessionId: "f".repeat(200)
    })
  ))

describe("a runtime's lines are grouped into uploads", () => {
  it.effect("a group closes at 1,000 lines, the backend's maximum per upload", () =>
    Effect.gen(function*() {
      const { source } = counted((i) => line(i), 2_500)
      const groups = yield* allGroups(yield* grouped(source))
      expect(groups.map((g) => g.length)).toEqual([1_000, 1_000, 500])
      expect(groups.flat().map((l) => l.data)).toEqual(Array.from({ length: 2_500 }, (_, i) => line(i).data))
    }).pipe(Effect.scoped))

  it.effect("a group closes at about 1 MB: 100 KiB lines go ten to a group", () =>
    Effect.gen(function*() {
      const { source } = counted((i) => kib(i, 100), 25)
      const groups = yield* allGroups(yield* grouped(source))
      expect(groups.map((g) => g.length)).toEqual([10, 10, 5])
      expect(groups.flat().map((l) => l.data)).toEqual(Array.from({ length: 25 }, (_, i) => kib(i, 100).data))
    }).pipe(Effect.scoped))

  it.effect("a group holds what arrives within 50 ms of its first line; a later line opens the next group", () =>
    Effect.gen(function*() {
      const input = yield* Queue.unbounded<RawLine>()
      const pull = yield* grouped(Stream.fromQueue(input))
      yield* Queue.offerAll(input, [line(0), line(1), line(2)])
      const first = yield* Effect.fork(pull)
      yield* waitUntil(sleeping)
      yield* Queue.offerAll(input, [line(3), line(4)])
      yield* waitUntil(Queue.isEmpty(input))
      yield* settle
      yield* TestClock.adjust(GROUP_LIMITS.window)
      expect(Chunk.toReadonlyArray(yield* Fiber.join(first)).flat().map((l) => l.data)).toEqual([0, 1, 2, 3, 4].map((i) => line(i).data))

      const second = yield* Effect.fork(pull)
      yield* settle
      expect(Option.isNone(yield* Fiber.poll(second))).toBe(true)
      yield* Queue.offer(input, line(5))
      yield* waitUntil(sleeping)
      yield* TestClock.adjust(GROUP_LIMITS.window)
      expect(Chunk.toReadonlyArray(yield* Fiber.join(second)).flat().map((l) => l.data)).toEqual([line(5).data])
    }).pipe(Effect.scoped))

  it.effect("while an upload is held, the runtime's lines are not read past two groups of 1,000 lines", () =>
    Effect.gen(function*() {
      const { pulled, source } = counted((i) => line(i), 10_000)
      const pull = yield* grouped(source)
      const held = yield* nextGroup(pull)
      expect(Option.map(held, (g) => g.length)).toEqual(Option.some(1_000))
      yield* waitUntil(Effect.sync(() => pulled.count >= 3_000))
      yield* settle
      // Two groups wait; the line being offered when the queue filled is the only one more.
      expect(pulled.count).toBeLessThanOrEqual(3_002)
      const rest = yield* allGroups(pull)
      expect(1_000 + rest.flat().length).toBe(10_000)
      expect(pulled.count).toBe(10_000)
    }).pipe(Effect.scoped))

  it.effect("while an upload is held, the runtime's lines are not read past about 2 MB", () =>
    Effect.gen(function*() {
      const { pulled, source } = counted((i) => kib(i, 100), 200)
      const pull = yield* grouped(source)
      const held = yield* nextGroup(pull)
      expect(Option.isSome(held)).toBe(true)
      const heldLines = Option.getOrElse(Option.map(held, (g) => g.length), () => 0)
      yield* waitUntil(Effect.sync(() => pulled.count >= heldLines + 19))
      yield* settle
      expect(pulled.count).toBeLessThanOrEqual(heldLines + 21)
      const rest = yield* allGroups(pull)
      expect(heldLines + rest.flat().length).toBe(200)
    }).pipe(Effect.scoped))

  it.effect("a full group of quote-, backslash- and control-character-heavy lines stays under the 4 MiB body cap once JSON-escaped", () =>
    Effect.gen(function*() {
      const quoted = (i: number) => line(i, JSON.stringify({ text: `${i}${"\"\\".repeat(1_000)}` }))
      const control = (i: number) => line(i, `${i}${"\u0001".repeat(2_000)}`)
      const longest = { type: "assistant", data: "\u0001".repeat(MAX_CHUNK_BYTES) }
      const lines = [
        ...Array.from({ length: 3_000 }, (_, i) => quoted(i)),
        ...Array.from({ length: 3_000 }, (_, i) => control(i)),
        longest,
        ...Array.from({ length: 100 }, (_, i) => quoted(i))
      ]
      const groups = yield* allGroups(yield* grouped(Stream.fromIterable(lines).pipe(Stream.rechunk(1))))
      expect(groups.flat().length).toBe(lines.length)
      const largest = Math.max(...groups.map(bodyBytes))
      expect(largest).toBeLessThanOrEqual(defaults.maxBodyBytes)
    }).pipe(Effect.scoped))

  it("a line past 512 KB is split into `<type>#part<i>/<n>` chunks that rejoin to the line", () => {
    const data = "y".repeat(2 * MAX_CHUNK_BYTES + 1)
    const parts = splitLine({ type: "assistant", data })
    expect(parts.map((p) => p.type)).toEqual(["assistant#part1/3", "assistant#part2/3", "assistant#part3/3"])
    expect(parts.map((p) => p.data.length)).toEqual([MAX_CHUNK_BYTES, MAX_CHUNK_BYTES, 1])
    expect(parts.map((p) => p.data).join("")).toBe(data)
    expect(splitLine({ type: "assistant", data: data.slice(0, MAX_CHUNK_BYTES) })).toHaveLength(1)
  })
})
