import { HttpLayerRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { BodyTooLarge, BodyUnreadable, McpHttp, type McpHttpResponse } from "../mcp/McpHttp.js"

export const MCP_PATH = "/api/mcp"

const isMaxBytesExceeded = (error: unknown): boolean =>
  typeof error === "object" && error !== null && "cause" in error && error.cause instanceof Error &&
  error.cause.message === "maxBytes exceeded"

const toResponse = (response: McpHttpResponse) =>
  response.body === ""
    ? HttpServerResponse.empty({ status: response.status, headers: response.headers })
    : HttpServerResponse.text(response.body, { status: response.status, headers: response.headers, contentType: "application/json" })

/** `/api/mcp` as an `HttpLayerRouter` route, for servers built with @effect/platform (embedding, tests). */
export const McpRoute = HttpLayerRouter.use((router) =>
  Effect.gen(function* () {
    const mcp = yield* McpHttp
    const handler = (request: HttpServerRequest.HttpServerRequest) =>
      mcp.handle({
        method: request.method,
        url: request.url,
        header: (name) => request.headers[name],
        body: (maxBytes) =>
          request.text.pipe(
            HttpServerRequest.withMaxBodySize(Option.some(maxBytes)),
            Effect.mapError((error) => isMaxBytesExceeded(error) ? new BodyTooLarge() : new BodyUnreadable({ cause: error }))
          )
      }).pipe(Effect.map(toResponse))
    yield* router.add("*", MCP_PATH, handler)
  })
)
