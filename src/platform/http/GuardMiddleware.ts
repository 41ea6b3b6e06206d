import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Either, Option } from "effect"
import { type Reply, RequestGuard } from "./RequestGuard.js"

export const toResponse = (reply: Reply) =>
  reply.body === ""
    ? HttpServerResponse.empty({ status: reply.status, headers: reply.headers })
    : HttpServerResponse.text(reply.body, { status: reply.status, headers: reply.headers, contentType: "application/json" })

/**
 * The RequestGuard as a global `HttpLayerRouter` middleware, so a server built on the router (an
 * embedder's) refuses what `trellis serve` refuses, before the handler reads the body; an admitted
 * request's body is read up to the size limit.
 */
export const GuardMiddleware = HttpLayerRouter.middleware(
  Effect.gen(function*() {
    const guard = yield* RequestGuard
    return (app) =>
      Effect.flatMap(
        HttpServerRequest.HttpServerRequest,
        (request) =>
          guard.check({ method: request.method, url: request.url, header: (name) => request.headers[name] }).pipe(
            Effect.flatMap(Either.match({
              onLeft: (refusal) => Effect.succeed(toResponse(refusal)),
              onRight: () => app.pipe(HttpServerRequest.withMaxBodySize(Option.some(guard.bodyLimit(request))))
            }))
          )
      )
  }),
  { global: true }
)
