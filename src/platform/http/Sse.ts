import { HttpServerResponse } from "@effect/platform"
import { Duration, type Effect, Schedule, Stream } from "effect"

/** Server-sent events: the frame format and the response every live stream of the server answers with. */

const KEEP_ALIVE = Duration.seconds(15)

/** One SSE frame. Data is one line of JSON, so no field needs escaping. */
export const sseFrame = (frame: { readonly id?: string; readonly event: string; readonly data: unknown }): string =>
  `${frame.id === undefined ? "" : `id: ${frame.id}\n`}event: ${frame.event}\ndata: ${JSON.stringify(frame.data)}\n\n`

const keepAlive = Stream.fromSchedule(Schedule.spaced(KEEP_ALIVE)).pipe(Stream.as(": keep-alive\n\n"))

/** A comment first, so the response (and its headers) start at once even when nothing is to be sent yet. */
const opening = Stream.make(": connected\n\n")

/** The SSE response body: the opening comment, then the frames kept alive, until the frames end or `end` completes. */
export const sseBody = <E>(frames: Stream.Stream<string, E>, end: Effect.Effect<void>) =>
  Stream.concat(opening, Stream.merge(frames, keepAlive, { haltStrategy: "left" })).pipe(Stream.interruptWhen(end))

/** The response for an SSE body: not cached, and not buffered by a proxy in front. */
export const sseResponse = <E>(stream: Stream.Stream<string, E>) =>
  HttpServerResponse.stream(stream.pipe(Stream.encodeText), {
    contentType: "text/event-stream",
    headers: { "cache-control": "no-cache", "x-accel-buffering": "no" }
  })
