import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Duration, Effect, Schedule } from "effect"
import { TrellisApi } from "../../catalog/bridge/AgentApi.js"

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
export const isTransient = (error: { readonly _tag: string }): boolean =>
  error._tag === "RequestError" || error._tag === "ResponseError"

/**
 * A call made while shutting down (release, disconnect) waits at most this long: a backend that
 * is down or unreachable must not hold the exit.
 */
export const SHUTDOWN_CALL = Duration.seconds(2)
