import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import { Effect, Either } from "effect"
import { TrellisApi } from "../../../catalog/bridge/TrellisApi.js"
import { pageRuntime } from "../lib/backoff"

const routes = Effect.flatMap(
  HttpClient.HttpClient,
  (httpClient) => HttpApiClient.group(TrellisApi, { group: "taskOrder", httpClient, baseUrl: window.location.origin })
)

/**
 * `POST /api/tasks/:taskId/place`: SPEC's tools take no rank, so a card dropped between two others
 * goes there through this route (catalog/bridge/TaskOrderApi.ts). Resolves to the refusal's
 * message, or undefined once placed.
 */
export const placeTask = async (taskId: string, neighbours: { readonly after: string | null; readonly before: string | null }) => {
  const result = await pageRuntime.runPromise(
    Effect.flatMap(routes, (client) => client.place({ path: { taskId }, payload: neighbours })).pipe(Effect.either)
  )
  return Either.match(result, {
    onLeft: (error) => error._tag === "Unauthorized" ? "Your session has ended: reload the page to sign in again." : error.message,
    onRight: () => undefined
  })
}
