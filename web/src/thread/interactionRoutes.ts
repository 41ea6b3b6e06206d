import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import { Effect, Either } from "effect"
import { TrellisApi } from "../../../catalog/bridge/TrellisApi.js"
import type { Interaction } from "../../../catalog/domain/Interaction.js"
import { callThreadRoute } from "../lib/api"
import { pageRuntime } from "../lib/backoff"

/** What a failed thread route says to the person: its own message, else what kind of failure it was. */
export type RouteError = { readonly _tag: string; readonly message?: string }

export const describeRouteError = (error: RouteError): string =>
  error.message !== undefined && error.message !== ""
    ? error.message
    : error._tag === "Unauthorized"
    ? "You are signed out: reload the page to sign in"
    : error._tag

/** The thread's pending interactions, oldest first. */
export const listPending = (threadId: string, signal?: AbortSignal): Promise<Either.Either<ReadonlyArray<Interaction>, string>> =>
  callThreadRoute((routes) => routes.pendingInteractions({ path: { threadId } }), signal).then((result) =>
    Either.match(result, {
      onLeft: (error) => Either.left(describeRouteError(error)),
      onRight: (found) => Either.right(found.interactions)
    })
  )

/** Answers (or refuses) one; the server keeps the first answer and returns it to every later one. */
export const answerInteraction = (interactionId: string, payload: { readonly deny: boolean; readonly answer?: unknown }) =>
  callThreadRoute((routes) => routes.answerInteraction({ path: { interactionId }, payload })).then((result) =>
    Either.mapLeft(result, describeRouteError)
  )

/**
 * An interaction as it stands now, pending or not. The threads routes list only pending ones, so
 * when one leaves the list (answered in another tab, expired, its batch ended) this is how the page
 * learns which: the bridge's `awaitInteraction` with no wait, which answers the owner of the thread
 * (the session cookie's user) and changes nothing.
 */
const agentRoutes = Effect.flatMap(
  HttpClient.HttpClient,
  (httpClient) => HttpApiClient.group(TrellisApi, { group: "agent", httpClient, baseUrl: window.location.origin })
)

export const lookUpInteraction = (interactionId: string): Promise<Either.Either<Interaction, string>> =>
  pageRuntime.runPromise(
    Effect.flatMap(agentRoutes, (routes) => routes.awaitInteraction({ path: { interactionId }, urlParams: { waitMs: 0 } })).pipe(
      Effect.mapError(describeRouteError),
      Effect.either
    )
  )
