import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect, Option, Schema } from "effect"
import { ChangeSeq } from "../../catalog/bridge/ProjectsApi.js"
import { InvalidArgument } from "../../catalog/domain/Errors.js"
import { TrellisApi } from "../../catalog/bridge/TrellisApi.js"
import { CurrentPrincipal } from "../platform/auth/Principal.js"
import { sseResponse } from "../platform/http/Sse.js"
import { ProjectChanges } from "./ProjectChanges.js"

/**
 * Where a reconnecting client resumes: the `Last-Event-ID` its EventSource sends (the freshest: the
 * URL of an EventSource that reconnects by itself keeps the `?after=` it was made with), else `?after=`.
 */
const resumePoint = (after: string | undefined, lastEventId: string | undefined) =>
  lastEventId === undefined
    ? Effect.succeed(Option.map(Option.fromNullable(after), Number))
    : Schema.decodeUnknown(ChangeSeq)(lastEventId).pipe(
      Effect.map((seq) => Option.some(Number(seq))),
      Effect.mapError(() => new InvalidArgument({ message: "Last-Event-ID: must be the id of a changes frame (digits)" }))
    )

/** The `projects` group of the client routes: a project's changes stream. */
export const ProjectHandlers = HttpApiBuilder.group(TrellisApi, "projects", (handlers) =>
  Effect.gen(function*() {
    const changes = yield* ProjectChanges
    return handlers.handleRaw("changes", ({ path, request, urlParams }) =>
      Effect.gen(function*() {
        const after = yield* resumePoint(urlParams.after, request.headers["last-event-id"])
        return sseResponse(yield* changes.stream(yield* CurrentPrincipal, path.projectId, after))
      }))
  }))
