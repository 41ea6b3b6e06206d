import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, Either, Option } from "effect"
import { BodyTooLarge, BodyUnreadable } from "../platform/http/Body.js"
import { McpHttp } from "./McpHttp.js"
import { toResponse } from "../platform/http/GuardMiddleware.js"
import { RequestGuard } from "../platform/http/RequestGuard.js"

export const MCP_PATH = "/api/mcp"

const isMaxBytesExceeded = (error: unknown): boolean =>
  typeof error === "object" && error !== null && "cause" in error && error.cause instanceof Error &&
  error.cause.message === "maxBytes exceeded"

/**
 * `/api/mcp` as an `HttpLayerRouter` route, for servers built with @effect/platform (embedding, tests).
 * The router's GuardMiddleware has admitted the request; the key is looked up again (a cached
 * lookup) for the principal the handler acts as.
 */
export const McpRoute = HttpLayerRouter.use((router) =>
  Effect.gen(function*() {
    const mcp = yield* McpHttp
    const guard = yield* RequestGuard
    const handler = (request: HttpServerRequest.HttpServerRequest) => {
      const header = (name: string) => request.headers[name]
      return guard.authenticate({ method: request.method, url: request.url, header }, "mcp").pipe(
        Effect.flatMap(Either.match({
          onLeft: Effect.succeed,
          onRight: (principal) =>
            mcp.handle({
              method: request.method,
              url: request.url,
              header,
              body: (maxBytes) =>
                request.text.pipe(
                  HttpServerRequest.withMaxBodySize(Option.some(maxBytes)),
                  Effect.mapError((error) => isMaxBytesExceeded(error) ? new BodyTooLarge() : new BodyUnreadable({ cause: error }))
                )
            }, principal)
        })),
        Effect.map(toResponse)
      )
    }
    yield* router.add("*", MCP_PATH, handler)
  })
)
