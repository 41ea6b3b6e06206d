import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import { Duration, Effect, Layer, ManagedRuntime } from "effect"

/**
 * The page's answer to 429: the server's `Retry-After` pauses every request of the page, not only
 * the refused one, since they all draw on the same budget. Retrying at once is what turned one
 * refusal into a storm of them.
 */
let pausedUntil = 0

/** How long the page still waits before its next request (also when the event stream reopens). */
export const pauseLeft = (): number => Math.max(0, pausedUntil - Date.now())

/** Records a 429's `Retry-After` (seconds; 1 s when absent or unreadable). */
export const pauseFor = (retryAfter: string | null | undefined): void => {
  const seconds = retryAfter === null || retryAfter === undefined ? Number.NaN : Number(retryAfter)
  const ms = (Number.isFinite(seconds) && seconds > 0 ? seconds : 1) * 1000
  // A little spread, so that the tabs of one budget do not all come back in the same millisecond.
  pausedUntil = Math.max(pausedUntil, Date.now() + ms + Math.random() * 250)
}

/** After this many refusals in a row the 429 is the caller's answer (shown as the request's error). */
const MAX_TRIES = 5

const waitTurn = Effect.suspend(() => {
  const wait = pauseLeft()
  return wait === 0 ? Effect.void : Effect.sleep(Duration.millis(wait))
})

/** A client that waits out the page's pause before each request, and retries a 429 after its `Retry-After`. */
const backingOff = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
  HttpClient.transform(client, (send) => {
    const attempt = (tries: number): typeof send =>
      Effect.zipRight(waitTurn, send).pipe(Effect.flatMap((response) => {
        if (response.status !== 429 || tries >= MAX_TRIES) return Effect.succeed(response)
        pauseFor(response.headers["retry-after"])
        return attempt(tries + 1)
      }))
    return attempt(1)
  })

/** `fetch` (the session cookie goes with it: same origin) behind the page's 429 pause. */
export const PageHttpClient = Layer.effect(HttpClient.HttpClient, Effect.map(HttpClient.HttpClient, backingOff)).pipe(
  Layer.provide(FetchHttpClient.layer)
)

/**
 * The page's one runtime for the contract's clients: its HttpClient (above) is built once, and
 * every tool call and route call of the page runs on it.
 */
export const pageRuntime = ManagedRuntime.make(PageHttpClient)
