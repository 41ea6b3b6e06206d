import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import { Effect, Either, Schema } from "effect"
import { TrellisApi } from "../../../catalog/bridge/TrellisApi.js"
import { PromptId } from "../../../catalog/domain/Ids.js"
import { pageRuntime } from "../lib/backoff"

const routes = Effect.flatMap(
  HttpClient.HttpClient,
  (httpClient) => HttpApiClient.group(TrellisApi, { group: "prompts", httpClient, baseUrl: window.location.origin })
)

/**
 * `DELETE /api/prompts/:promptId`: SPEC keeps deleting a prompt out of the tools, for the web app
 * (catalog/bridge/PromptsApi.ts). Resolves to the refusal's message, or undefined once deleted.
 */
export const deletePrompt = async (promptId: string): Promise<string | undefined> => {
  const id = Schema.decodeUnknownOption(PromptId)(promptId)
  if (id._tag === "None") return `promptId: ${promptId} is not a prompt's ID`
  const result = await pageRuntime.runPromise(
    Effect.flatMap(routes, (client) => client.remove({ path: { promptId: id.value } })).pipe(Effect.either)
  )
  return Either.match(result, {
    onLeft: (error) => error._tag === "Unauthorized" ? "Your session has ended: reload the page to sign in again." : error.message,
    onRight: () => undefined
  })
}
