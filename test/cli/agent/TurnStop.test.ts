import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Stream, TestClock } from "effect"
import { CLI_STOPPED_TYPE } from "../../../catalog/bridge/AgentApi.js"
import { STOP_GRACE, stopStream } from "../../../cli/agent/TurnStop.js"
import { RuntimeFailed, type RuntimeOutput } from "../../../cli/agent/runtimes/Runtime.js"

const line = (type: string): RuntimeOutput => ({ _tag: "Line", line: { type, data: "{}" } })
const types = (outputs: ReadonlyArray<RuntimeOutput>) => outputs.flatMap((o) => (o._tag === "Line" ? [o.line.type] : []))

describe("stopping a turn in the CLI", () => {
  it.effect("a runtime that ends its turn when told to stop ends the batch cleanly, with the stopped line after its own", () =>
    Effect.gen(function*() {
      const stopped = yield* Deferred.make<void>()
      // As Claude Code does: interrupted, its result says is_error, which the runtime reports as a failure.
      const runtime = Stream.concat(
        Stream.make(line("assistant")),
        Stream.fromEffect(Deferred.await(stopped)).pipe(
          Stream.flatMap(() =>
            Stream.concat(Stream.make(line("result")), Stream.fail(new RuntimeFailed({ message: "interrupted", stderr: "" })))
          )
        )
      )
      const fiber = yield* Effect.fork(Stream.runCollect(stopStream(runtime, stopped)))
      yield* Deferred.succeed(stopped, undefined)
      expect(types([...(yield* Fiber.join(fiber))])).toEqual(["assistant", "result", CLI_STOPPED_TYPE])
    }))

  it.effect("a runtime that does not end its turn within the grace after a stop is ended, and the turn still reads stopped", () =>
    Effect.gen(function*() {
      const stopped = yield* Deferred.make<void>()
      const fiber = yield* Effect.fork(Stream.runCollect(stopStream(Stream.concat(Stream.make(line("assistant")), Stream.never), stopped)))
      yield* Deferred.succeed(stopped, undefined)
      yield* TestClock.adjust(STOP_GRACE)
      expect(types([...(yield* Fiber.join(fiber))])).toEqual(["assistant", CLI_STOPPED_TYPE])
    }))

  it.effect("without a stop, a runtime's failure is the batch's failure and no stopped line is added", () =>
    Effect.gen(function*() {
      const stopped = yield* Deferred.make<void>()
      const failure = yield* Effect.flip(
        Stream.runCollect(
          stopStream(
            Stream.concat(Stream.make(line("assistant")), Stream.fail(new RuntimeFailed({ message: "boom", stderr: "" }))),
            stopped
          )
        )
      )
      expect(failure.message).toBe("boom")
      const clean = yield* Stream.runCollect(stopStream(Stream.make(line("assistant")), stopped))
      expect(types([...clean])).toEqual(["assistant"])
    }))
})
