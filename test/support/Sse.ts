import { HttpClient, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { expect } from "@effect/vitest"
import { Effect, Option, Stream } from "effect"

/** Reading the server-sent event streams of the bridge and client endpoints in tests. */

export interface Frame {
  readonly id: string | undefined
  readonly event: string
  readonly data: unknown
}
/** As EventSource does, a block without data (only an id, or a comment) is no frame. */
const parseFrame = (raw: string): Frame | undefined => {
  const lines = raw.split("\n").filter((l) => l !== "" && !l.startsWith(":"))
  if (!lines.some((l) => l.startsWith("data: "))) return undefined
  const field = (name: string) => lines.find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2)
  return { id: field("id"), event: field("event") ?? "message", data: JSON.parse(field("data") ?? "null") }
}

/** The raw SSE blocks of a response, comments included, as they arrive. */
const blocks = (response: HttpClientResponse.HttpClientResponse) =>
  response.stream.pipe(
    Stream.decodeText(),
    Stream.mapAccum("", (buffer, piece): readonly [string, ReadonlyArray<string>] => {
      const parts = (buffer + piece).split("\n\n")
      return [parts.pop() ?? "", parts]
    }),
    Stream.flattenIterables
  )

/** A response's SSE frames (keep-alive comments skipped), as they arrive. */
export const sseFrames = (response: HttpClientResponse.HttpClientResponse) =>
  blocks(response).pipe(Stream.filterMap((raw) => Option.fromNullable(parseFrame(raw))))

/**
 * Opens a stream and returns once the server has subscribed (its `: connected` comment arrived):
 * anything written from then on reaches the returned frames. The connection closes with the scope.
 */
export const connect = (key: string, path: string, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(
      HttpClientRequest.get(path).pipe(HttpClientRequest.bearerToken(key), HttpClientRequest.setHeaders(headers))
    )
    expect(response.status).toBe(200)
    const pull = yield* Stream.toPull(blocks(response))
    let leftover: ReadonlyArray<string> = []
    while (true) {
      const chunk = [...(yield* pull.pipe(Effect.catchAll(() => Effect.dieMessage(`${path}: the stream ended before it connected`))))]
      const at = chunk.indexOf(": connected")
      if (at >= 0) {
        leftover = chunk.slice(at + 1)
        break
      }
    }
    // Each run of the stream goes on where the last one stopped: the frames after `: connected` are read once.
    const unread = Stream.suspend(() => {
      const now = leftover
      leftover = []
      return Stream.fromIterable(now)
    })
    return Stream.concat(unread, Stream.repeatEffectChunkOption(pull)).pipe(
      Stream.filterMap((raw) => Option.fromNullable(parseFrame(raw)))
    )
  })

/** The first `count` SSE frames of a GET (keep-alive comments skipped), as they arrive. */
export const frames = (key: string, path: string, count: number, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(
      HttpClientRequest.get(path).pipe(HttpClientRequest.bearerToken(key), HttpClientRequest.setHeaders(headers))
    )
    expect(response.status).toBe(200)
    expect(response.headers["content-type"]).toContain("text/event-stream")
    const collected = yield* sseFrames(response).pipe(
      Stream.take(count),
      Stream.runCollect
    )
    return [...collected]
  }).pipe(Effect.scoped)
