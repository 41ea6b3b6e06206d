import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Agent } from "@effect/platform-node/Undici"
import { Duration, Effect, Schedule } from "effect"
import { TrellisApi } from "../../catalog/bridge/TrellisApi.js"

/** The typed client of the backend's bridge API, authenticated with the profile's key. */
export const makeBridgeClient = (server: string, apiKey: string) =>
  HttpApiClient.make(TrellisApi, {
    baseUrl: server,
    transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(apiKey))
  })

export type BridgeClient = Effect.Effect.Success<ReturnType<typeof makeBridgeClient>>

/** Capped exponential backoff with jitter: 0.5 s doubling up to 30 s, forever. */
export const backoff = Schedule.exponential(Duration.millis(500)).pipe(
  Schedule.jittered,
  Schedule.union(Schedule.spaced(Duration.seconds(30)))
)

/** Network trouble or a server that is down: worth retrying; any answer from the backend is not. */
export const isTransient = (error: { readonly _tag: string }): boolean => error._tag === "RequestError" || error._tag === "ResponseError"

/**
 * A call made while shutting down (release, disconnect) waits at most this long: a backend that
 * is down, unreachable or slow to answer must not hold the exit (offline within 2 s of a signal).
 */
export const SHUTDOWN_CALL = Duration.seconds(1)

/**
 * A shutdown call, given up after `SHUTDOWN_CALL` (or `budget`) whatever happened to it: its
 * answer, or none if it failed or was given up. Made
 * interruptible because it runs in a finalizer or an interruption handler, where everything is
 * uninterruptible: there `Effect.timeout` cannot interrupt the call it gave up on and waits for
 * it to end on its own, however long the backend takes to answer.
 */
export const shutdownCall = <A, E, R>(call: Effect.Effect<A, E, R>, budget: Duration.DurationInput = SHUTDOWN_CALL) =>
  Effect.interruptible(call).pipe(Effect.timeout(budget), Effect.option)

/**
 * The bridge client for the calls made while shutting down, on connections of their own, one per
 * call (undici's `pipelining: 0` keeps none alive). The loop's pooled keep-alive connections may
 * be busy or half-closed by the backend; a call sent on one of those waits for an answer that
 * never comes, and the disconnect would be lost with its budget.
 */
export const makeShutdownBridgeClient = (server: string, apiKey: string) =>
  Effect.gen(function*() {
    const dispatcher = yield* Effect.acquireRelease(
      Effect.sync(() => new Agent({ pipelining: 0 })),
      (agent) => Effect.promise(() => agent.destroy())
    )
    return yield* makeBridgeClient(server, apiKey).pipe(Effect.provideService(HttpClient.HttpClient, NodeHttpClient.makeUndici(dispatcher)))
  })
