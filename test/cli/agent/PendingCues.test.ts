import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import { pendingCues } from "../../../cli/agent/PendingCues.js"

const encoder = new TextEncoder()

const read = (...pieces: ReadonlyArray<string>) =>
  Effect.map(Stream.runCollect(pendingCues(Stream.fromIterable(pieces.map((piece) => encoder.encode(piece))))), Chunk.toReadonlyArray)

/** How many claim cues the CLI takes from a response body read in these pieces. */
const cuesIn = (...pieces: ReadonlyArray<string>) =>
  Effect.map(read(...pieces), (cues) => cues.filter((cue) => cue._tag === "Claim").length)

const frame = (ids: ReadonlyArray<string>, end = "\n") => `event: pending${end}data: ${JSON.stringify({ threadIds: ids })}${end}${end}`

describe("the pending-thread stream as the CLI reads it", () => {
  it.effect("each pending event is one cue; comments and other events are none", () =>
    Effect.gen(function*() {
      expect(yield* cuesIn(": connected\n\n", frame([]), ": keep-alive\n\n", "event: other\ndata: {}\n\n", frame(["thread_1"]))).toBe(2)
    }))

  it.effect("frames with \\r\\n line ends are read like \\n ones", () =>
    Effect.gen(function*() {
      expect(yield* cuesIn(": connected\r\n\r\n", frame(["thread_1"], "\r\n"), frame(["thread_2"], "\r\n"))).toBe(2)
    }))

  it.effect("a frame whose data spans several lines is one cue", () =>
    Effect.gen(function*() {
      expect(yield* cuesIn("event: pending\ndata: {\"threadIds\":\ndata: [\"thread_1\"]}\n\n")).toBe(1)
    }))

  it.effect("a frame split across reads, even inside a line ending, is one cue once whole", () =>
    Effect.gen(function*() {
      const whole = frame(["thread_1"], "\r\n")
      for (let cut = 1; cut < whole.length; cut++) {
        expect(yield* cuesIn(whole.slice(0, cut), whole.slice(cut)), `cut at ${cut}`).toBe(1)
      }
      // Without its blank line the frame is not over.
      expect(yield* cuesIn(whole.slice(0, whole.length - 2))).toBe(0)
    }))

  it.effect("a changes event is a cue to report those threads; one that does not decode is none", () =>
    Effect.gen(function*() {
      const request = {
        threadId: "thread_1",
        directory: "/work/app",
        baseCommit: "a".repeat(40),
        requestedAt: "2026-11-28T10:00:00.000000Z"
      }
      const changes = `event: changes\r\ndata: ${JSON.stringify({ requests: [request] })}\r\n\r\n`
      expect(yield* read(frame([]), changes, "event: changes\ndata: {\"requests\": 3}\n\n")).toEqual([
        { _tag: "Claim" },
        { _tag: "Report", requests: [request] }
      ])
    }))
})
