import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { TrellisApi } from "../../catalog/bridge/TrellisApi.js"
import { Forbidden } from "../../catalog/domain/Errors.js"
import { CurrentPrincipal } from "../platform/auth/Principal.js"
import { Prompts } from "./Prompts.js"

/** What an API key is told: SPEC keeps deleting a prompt out of the tool interface, for the web UI. */
export const WEB_ONLY_DELETE = "deleting a prompt is only available in the web app: sign in there, not with an API key"

/** The `prompts` group of the client routes: deleting a prompt, for a browser session only. */
export const PromptHandlers = HttpApiBuilder.group(TrellisApi, "prompts", (handlers) =>
  Effect.gen(function*() {
    const prompts = yield* Prompts
    return handlers.handle("remove", ({ path }) =>
      Effect.gen(function*() {
        const principal = yield* CurrentPrincipal
        if (principal.webSessionId === undefined) return yield* new Forbidden({ message: WEB_ONLY_DELETE })
        yield* prompts.remove(principal, path.promptId)
      }))
  }))
