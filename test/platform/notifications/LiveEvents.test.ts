import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Ref, Stream, TestClock } from "effect"
import { relay } from "../../../src/platform/notifications/LiveEvents.js"

/** A LISTEN that the database refuses `refusals` times, then delivers `payloads` and ends. */
const flakyListen = (attempts: Ref.Ref<number>, refusals: number, payloads: ReadonlyArray<string>) =>
  Stream.unwrap(
    Effect.map(
      Ref.updateAndGet(attempts, (n) => n + 1),
      (attempt) => attempt <= refusals ? Stream.fail("connection refused") : Stream.fromIterable(payloads)
    )
  )

/** Moves the test clock one second at a time, so that every retry due meanwhile runs. */
const passSeconds = (seconds: number) =>
  Effect.forEach(Array.from({ length: seconds }), () => TestClock.adjust(Duration.seconds(1)), { discard: true })

describe("live events: the LISTEN relay", () => {
  it.effect("a database that refuses LISTEN for a minute is asked again ever less often (at most every 30 s), not in a busy loop", () =>
    Effect.gen(function*() {
      const attempts = yield* Ref.make(0)
      const fiber = yield* Effect.fork(relay("test", flakyListen(attempts, Number.MAX_SAFE_INTEGER, []), () => Effect.void))
      yield* passSeconds(60)
      const inAMinute = yield* Ref.get(attempts)
      // 0.2 s doubling to 25.6 s is 8 retries in 51 s, then one every 30 s (±20% jitter).
      expect(inAMinute).toBeGreaterThanOrEqual(6)
      expect(inAMinute).toBeLessThanOrEqual(12)
      yield* passSeconds(120)
      expect((yield* Ref.get(attempts)) - inAMinute).toBeLessThanOrEqual(6)
      yield* Fiber.interrupt(fiber)
    }))

  it.effect("delivery resumes by itself when the database answers LISTEN again", () =>
    Effect.gen(function*() {
      const attempts = yield* Ref.make(0)
      const published = yield* Ref.make<ReadonlyArray<string>>([])
      const fiber = yield* Effect.fork(
        relay("test", flakyListen(attempts, 3, ["thread_1", "thread_2"]), (payload) => Ref.update(published, (all) => [...all, payload]))
      )
      yield* passSeconds(5)
      expect((yield* Ref.get(published)).slice(0, 2)).toEqual(["thread_1", "thread_2"])
      yield* Fiber.interrupt(fiber)
    }))

  it.effect("a LISTEN stream that ends (the connection closed) is listened to again", () =>
    Effect.gen(function*() {
      const attempts = yield* Ref.make(0)
      const published = yield* Ref.make<ReadonlyArray<string>>([])
      const fiber = yield* Effect.fork(
        relay("test", flakyListen(attempts, 0, ["signal"]), (payload) => Ref.update(published, (all) => [...all, payload]))
      )
      yield* passSeconds(2)
      expect((yield* Ref.get(published)).length).toBeGreaterThanOrEqual(2)
      yield* Fiber.interrupt(fiber)
    }))
})
