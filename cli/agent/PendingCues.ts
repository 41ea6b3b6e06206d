import * as Sse from "@effect/experimental/Sse"
import { Option, Schema, Stream } from "effect"
import { type ChangeRequest, ChangeRequestsEvent } from "../../catalog/bridge/AgentApi.js"

/** What the stream asks of the CLI: to claim (the claim reads the queue itself), or to report these threads' changes. */
export type PendingCue =
  | { readonly _tag: "Claim" }
  | { readonly _tag: "Report"; readonly requests: ReadonlyArray<ChangeRequest> }

const decodeRequests = Schema.decodeUnknownOption(Schema.parseJson(ChangeRequestsEvent))

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
 * The cues in a session's pending-thread stream: a Claim per `pending` event and a Report per
 * `changes` event (one that does not decode is none), whatever the framing (`\n` or `\r\n` line
 * ends, comments, multi-line data, a frame split across reads). The parser is fed in step with the
 * reads (no fiber of its own): ending the stream at shutdown is immediate.
 */
export const pendingCues = <E, R>(body: Stream.Stream<Uint8Array, E, R>): Stream.Stream<PendingCue, E, R> =>
  Stream.suspend(() => {
    let cues: Array<PendingCue> = []
    const parser = Sse.makeParser((event) => {
      if (event._tag !== "Event") return
      if (event.event === "pending") cues.push({ _tag: "Claim" })
      if (event.event === "changes") {
        const decoded = decodeRequests(event.data)
        if (Option.isSome(decoded)) cues.push({ _tag: "Report", requests: decoded.value.requests })
      }
    })
    return body.pipe(
      Stream.decodeText(),
      newlines,
      Stream.mapConcat((text) => {
        parser.feed(text)
        const ready = cues
        cues = []
        return ready
      })
    )
  })
