import * as Sse from "@effect/experimental/Sse"
import { Stream } from "effect"

/**
 * Line ends as `\n` only. The SSE parser of @effect/experimental forgets a `\r` that ends a read,
 * so a `\r\n` split across two reads became two line ends (a blank line: the event cut in half).
 * A `\r` is a line end whatever follows; a `\n` right after one, even in the next read, is dropped.
 */
const newlines = <E, R>(text: Stream.Stream<string, E, R>): Stream.Stream<string, E, R> =>
  text.pipe(Stream.mapAccum(false, (afterCr: boolean, piece: string): readonly [boolean, string] => {
    const rest = afterCr && piece.startsWith("\n") ? piece.slice(1) : piece
    return [rest === "" ? afterCr : rest.endsWith("\r"), rest.replace(/\r\n?/g, "\n")]
  }))

/**
 * The cues in a session's pending-thread stream: one per `pending` event, whatever the framing
 * (`\n` or `\r\n` line ends, comments, multi-line data, a frame split across reads). A cue only
 * says "claim now": the claim itself reads the queue, so a cue's data is not needed. The parser is
 * fed in step with the reads (no fiber of its own): ending the stream at shutdown is immediate.
 */
export const pendingCues = <E, R>(body: Stream.Stream<Uint8Array, E, R>): Stream.Stream<void, E, R> =>
  Stream.suspend(() => {
    let cues = 0
    const parser = Sse.makeParser((event) => {
      if (event._tag === "Event" && event.event === "pending") cues++
    })
    return body.pipe(
      Stream.decodeText(),
      newlines,
      Stream.mapConcat((text) => {
        parser.feed(text)
        const ready = cues
        cues = 0
        return Array.from({ length: ready }, () => undefined)
      })
    )
  })
