import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Chunk, Duration, Effect, Option, RcMap, Schedule, Scope, Stream } from "effect"
import type { ApiKeyId } from "../../../catalog/domain/Ids.js"
import { RevokedKeys } from "../auth/RevokedKeys.js"

/** Server-sent events: the frame format and the response every live stream of the server answers with. */

const KEEP_ALIVE = Duration.seconds(15)
const KEEP_ALIVE_COMMENT = ": keep-alive\n\n"
/** A comment first, so the response (and its headers) start at once even when nothing is to be sent yet. */
const CONNECTED_COMMENT = ": connected\n\n"

const encoder = new TextEncoder()
const KEEP_ALIVE_BYTES = encoder.encode(KEEP_ALIVE_COMMENT)
/** What an SSE response starts with. */
export const CONNECTED_BYTES = encoder.encode(CONNECTED_COMMENT)
/** An SSE response's headers: not cached, and not buffered by a proxy in front. */
export const SSE_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-cache", "x-accel-buffering": "no" } as const

/** One SSE frame. Data is one line of JSON, so no field needs escaping. */
export const sseFrame = (frame: { readonly id?: string; readonly event: string; readonly data: unknown }): string =>
  `${frame.id === undefined ? "" : `id: ${frame.id}\n`}event: ${frame.event}\ndata: ${JSON.stringify(frame.data)}\n\n`

const keepAlive = Stream.fromSchedule(Schedule.spaced(KEEP_ALIVE)).pipe(Stream.as(KEEP_ALIVE_COMMENT))

/**
 * The SSE response body of a stream with frames of its own making: the opening comment, then the
 * frames kept alive, until the frames end or `end` completes. Each body runs a keep-alive schedule
 * and merges it in (fibers of its own): fine for a stream per client, not for a thousand readers
 * of one thread, which use SseStreams instead.
 */
export const sseBody = <E>(frames: Stream.Stream<string, E>, end: Effect.Effect<void>) =>
  Stream.concat(Stream.make(CONNECTED_COMMENT), Stream.merge(frames, keepAlive, { haltStrategy: "left" })).pipe(
    Stream.interruptWhen(end)
  )

const toBytes = (piece: string | Uint8Array): Uint8Array => (typeof piece === "string" ? encoder.encode(piece) : piece)

/** The response for an SSE body (text, or frames already encoded): not cached, and not buffered by a proxy in front. */
export const sseResponse = <E>(stream: Stream.Stream<string | Uint8Array, E>) =>
  HttpServerResponse.stream(Stream.mapChunks(stream, Chunk.map(toBytes)), {
    contentType: SSE_HEADERS["content-type"],
    headers: { "cache-control": SSE_HEADERS["cache-control"], "x-accel-buffering": SSE_HEADERS["x-accel-buffering"] }
  })

/**
 * Runs `add` now and `remove` when the scope closes: what a live stream registers with (a feed, the
 * keep-alive ticker). Not Effect.acquireRelease, whose release runs with the refs of the fiber that
 * acquired: it diffs that fiber's refs and context against the closing fiber's, twice, and a
 * request's context holds every service of the server. With two such releases per stream, a
 * thousand streams closing at once made 130 MB more garbage, much of it promoted to the old
 * generation, where it kept the process's memory (RSS) up after they were gone.
 */
export const whileOpen = (add: () => void, remove: () => void): Effect.Effect<void, never, Scope.Scope> =>
  Effect.uninterruptible(Effect.flatMap(Effect.scope, (scope) => {
    add()
    return Scope.addFinalizer(scope, Effect.sync(remove))
  }))

/**
 * One open stream's state. Whatever has something for it (its thread's feed, the keep-alive
 * ticker, its key's revocation) sets a flag and resumes its pull if it is waiting, synchronously:
 * no fiber, queue or timer of the stream's own stands in between.
 */
class Outlet {
  /** Something may be there to read: true at first, for the bootstrap. */
  pending = true
  keepAliveDue = false
  ended = false
  private waiting: (() => void) | undefined = undefined

  readonly wake = (): void => {
    this.pending = true
    this.resume()
  }
  tick(): void {
    this.keepAliveDue = true
    this.resume()
  }
  end(): void {
    this.ended = true
    this.resume()
  }
  wait(resume: () => void): void {
    this.waiting = resume
  }
  cancel(): void {
    this.waiting = undefined
  }
  private resume(): void {
    const waiting = this.waiting
    this.waiting = undefined
    waiting?.()
  }
}

/**
 * A live stream's frames, pulled one write at a time: `next` waits until there is something to
 * send and fails with none once the stream has ended (its key revoked). It is opened in a scope,
 * and closing the scope (the client went away) is what releases it.
 */
export interface SseBody<E = never> {
  readonly next: Effect.Effect<Uint8Array, Option.Option<E>>
}

/** An SSE body as a response stream, for the HttpApi router: the opening comment, then its frames. */
export const sseStream = <E>(body: SseBody<E>): Stream.Stream<Uint8Array, E> =>
  Stream.concat(Stream.succeed(CONNECTED_BYTES), Stream.repeatEffectOption(body.next))

/** What a stream's producer calls when it has something new for it, and the body that sends it. */
export interface SseOutlet {
  readonly wake: () => void
  /** The body that sends what `read` gives whenever woken (empty: nothing after all). */
  readonly body: <E>(read: Effect.Effect<Uint8Array, E>) => SseBody<E>
}

/** A key's open streams, and whether the key has been revoked (a stream opened after that ends at once). */
interface KeyStreams {
  readonly outlets: Set<Outlet>
  revoked: boolean
}

/**
 * Live SSE streams that cost the server little each, for many readers at once (a thousand browser
 * tabs on one thread): a stream is one pull loop in one fiber, woken by its producer. One ticker
 * sends every open stream its keep-alive comment every 15 s, and one watch per API key ends all of
 * that key's streams when it is revoked. A keep-alive schedule merged into each stream's frames and
 * an `interruptWhen` on its revocation were ten fibers a stream and seven stream stages that every
 * frame went through: one event sent to 1,000 streams took 2 s of CPU, half of it collecting the
 * garbage they made.
 */
export class SseStreams extends Effect.Service<SseStreams>()("trellis/SseStreams", {
  scoped: Effect.gen(function*() {
    const revokedKeys = yield* RevokedKeys
    const open = new Set<Outlet>()

    yield* Effect.forkScoped(
      Effect.repeat(Effect.sync(() => open.forEach((outlet) => outlet.tick())), Schedule.spaced(KEEP_ALIVE))
    )

    const keys = yield* RcMap.make({
      lookup: (id: ApiKeyId) =>
        Effect.gen(function*() {
          const revoked = yield* revokedKeys.revoked(id)
          const streams: KeyStreams = { outlets: new Set(), revoked: false }
          yield* Effect.forkScoped(Effect.andThen(
            revoked,
            Effect.sync(() => {
              streams.revoked = true
              streams.outlets.forEach((outlet) => outlet.end())
            })
          ))
          return streams
        })
    })

    /**
     * Opens a stream for a request authenticated with `apiKeyId`, until the scope closes (the
     * client went away, or the body ended): `wake` is what its producer calls, `body` its body,
     * which ends when the key is revoked. Its first pull reads: the stream's bootstrap.
     */
    const make = (apiKeyId: ApiKeyId): Effect.Effect<SseOutlet, never, Scope.Scope> =>
      Effect.gen(function*() {
        const key = yield* RcMap.get(keys, apiKeyId)
        const outlet = new Outlet()
        yield* whileOpen(() => {
          open.add(outlet)
          key.outlets.add(outlet)
          if (key.revoked) outlet.end()
        }, () => {
          open.delete(outlet)
          key.outlets.delete(outlet)
        })
        const body = <E>(read: Effect.Effect<Uint8Array, E>): SseBody<E> => {
          const next: Effect.Effect<Uint8Array, Option.Option<E>> = Effect.suspend(() => {
            if (outlet.ended) return Effect.fail(Option.none())
            if (outlet.pending) {
              outlet.pending = false
              return Effect.flatMap(Effect.mapError(read, Option.some), (bytes) => bytes.length === 0 ? next : Effect.succeed(bytes))
            }
            if (outlet.keepAliveDue) {
              outlet.keepAliveDue = false
              return Effect.succeed(KEEP_ALIVE_BYTES)
            }
            return Effect.async<Uint8Array, Option.Option<E>>((resume) => {
              outlet.wait(() => resume(next))
              return Effect.sync(() => outlet.cancel())
            })
          })
          return { next }
        }
        return { wake: outlet.wake, body }
      })

    return { make } as const
  }),
  dependencies: [RevokedKeys.Default]
}) {}
