import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { TrellisApi } from "../../catalog/bridge/TrellisApi.js"
import { CurrentPrincipal } from "../platform/auth/Principal.js"
import { sseResponse } from "../platform/http/Sse.js"
import { ProjectChanges } from "./ProjectChanges.js"

/** The `projects` group of the client routes: a project's changes stream. */
export const ProjectHandlers = HttpApiBuilder.group(TrellisApi, "projects", (handlers) =>
  Effect.gen(function*() {
    const changes = yield* ProjectChanges
    return handlers.handleRaw("changes", ({ path }) =>
      Effect.gen(function*() {
        return sseResponse(yield* changes.stream(yield* CurrentPrincipal, path.projectId))
      }))
  }))
