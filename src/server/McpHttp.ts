import { Cause, Context, Effect, Either } from "effect"
import { randomUUID } from "node:crypto"
import { CurrentPrincipal, type Principal } from "../platform/auth/Principal.js"
import { DefaultProject } from "../platform/auth/Principal.js"
import { originOf, RequestOrigin } from "../platform/http/RequestOrigin.js"
import type { BodyTooLarge, BodyUnreadable } from "../platform/http/Body.js"
import { TrellisConfig } from "../platform/TrellisConfig.js"
import * as JsonRpc from "../platform/mcp/JsonRpc.js"
import { McpServer } from "./McpServer.js"
import { classify, type Era } from "./McpEra.js"
import { CurrentToolAccess, requestedAccess } from "./ToolAccess.js"

/** An HTTP request to the MCP endpoint, independent of the server that received it. */
export interface McpHttpRequest {
  readonly method: string
  /** Path and query, e.g. `/api/mcp?project=proj_…`. */
  readonly url: string
  readonly header: (name: string) => string | undefined
  /** Reads the body, refusing more than `maxBytes`. */
  readonly body: (maxBytes: number) => Effect.Effect<string, BodyTooLarge | BodyUnreadable>
}

export interface McpHttpResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  /** JSON text, or empty for 202. */
  readonly body: string
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): McpHttpResponse => ({
  status,
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body)
})

const accepted: McpHttpResponse = { status: 202, headers: {}, body: "" }

const queryOf = (url: string): URLSearchParams => {
  const query = url.indexOf("?")
  return new URLSearchParams(query === -1 ? "" : url.slice(query + 1))
}

/**
 * The HTTP status of a method's error: the 2025 revisions answer every JSON-RPC error with 200;
 * 2026-07-28 makes an unknown method 404, and a missing client capability or a tool argument
 * missing from its `Mcp-Param-*` header 400.
 */
const errorStatus = (era: Era, code: number): number =>
  era._tag === "Legacy" ?
    200
    : code === JsonRpc.ErrorCode.MethodNotFound ?
    404
    : code === JsonRpc.ErrorCode.MissingRequiredClientCapability || code === JsonRpc.ErrorCode.HeaderMismatch ?
    400
    : 200

/** A defect: logged in full with a trace id; the caller gets only the trace id. */
const internalError = (id: JsonRpc.JsonRpcId | null, cause: Cause.Cause<unknown>) => {
  const traceId = randomUUID()
  return Effect.logError("MCP request failed", cause).pipe(
    Effect.annotateLogs({ traceId }),
    Effect.as(json(500, JsonRpc.failure(id, JsonRpc.ErrorCode.InternalError, `Internal error (trace ${traceId})`, { traceId })))
  )
}

/**
 * The MCP endpoint over HTTP (stateless Streamable HTTP, one JSON-RPC message per POST, JSON
 * answers), as a function from request to response so any server can mount it.
 */
export class McpHttp extends Effect.Service<McpHttp>()("trellis/McpHttp", {
  effect: Effect.gen(function*() {
    const config = yield* TrellisConfig
    const mcp = yield* McpServer

    const tooLarge = json(
      413,
      JsonRpc.failure(null, JsonRpc.ErrorCode.InvalidRequest, `Invalid Request: the body exceeds ${config.maxBodyBytes} bytes`)
    )

    const methodNotAllowed = json(
      405,
      JsonRpc.failure(
        null,
        JsonRpc.ErrorCode.InvalidRequest,
        "Method Not Allowed: this endpoint takes POST only (no SSE stream, no sessions)"
      ),
      { allow: "POST" }
    )

    const post = (request: McpHttpRequest, principal: Principal) =>
      Effect.gen(function*() {
        const body = yield* Effect.either(request.body(config.maxBodyBytes))
        if (Either.isLeft(body)) {
          return body.left._tag === "BodyTooLarge"
            ? tooLarge
            : json(400, JsonRpc.failure(null, JsonRpc.ErrorCode.ParseError, "Parse error: the body could not be read"))
        }

        const message = JsonRpc.parse(body.right)
        if (Either.isLeft(message)) {
          const { code, httpStatus, id, message: text } = message.left
          return json(httpStatus, JsonRpc.failure(id, code, text))
        }
        const incoming = message.right
        if (incoming._tag !== "Request") return accepted

        const era = classify({ method: incoming.method, params: incoming.params, header: request.header })
        if (Either.isLeft(era)) {
          const { httpStatus, code, message: text, data } = era.left
          return json(httpStatus, JsonRpc.failure(incoming.id, code, text, data))
        }

        const query = queryOf(request.url)
        const access = requestedAccess(query, request.header("x-mcp-toolsets"), principal)
        if (Either.isLeft(access)) {
          return json(200, JsonRpc.failure(incoming.id, JsonRpc.ErrorCode.InvalidParams, `Invalid params: ${access.left}`))
        }

        return yield* mcp.handle(incoming.method, incoming.params, era.right).pipe(
          Effect.match({
            onSuccess: (result) => json(200, JsonRpc.success(incoming.id, result)),
            onFailure: (error) =>
              json(errorStatus(era.right, error.code), JsonRpc.failure(incoming.id, error.code, error.message, error.data))
          }),
          // One context for the per-request values: each provide is a context copy.
          Effect.provide(
            Context.make(CurrentPrincipal, principal).pipe(
              Context.add(DefaultProject, query.get("project")),
              Context.add(CurrentToolAccess, access.right),
              Context.add(RequestOrigin, originOf(config, request.header("host")))
            )
          ),
          Effect.catchAllCause((cause) => internalError(incoming.id, cause))
        )
      })

    /** Answers a request the RequestGuard admitted (Host/Origin, key, declared length, rate budget). */
    const handle = (request: McpHttpRequest, principal: Principal): Effect.Effect<McpHttpResponse> =>
      (request.method === "POST" ? post(request, principal) : Effect.succeed(methodNotAllowed)).pipe(
        Effect.catchAllCause((cause) => internalError(null, cause))
      )

    return { handle } as const
  }),
  dependencies: [McpServer.Default]
}) {}
