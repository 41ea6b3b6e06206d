import { HttpLayerRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Cause, Effect, Either, Option } from "effect"
import { randomUUID } from "node:crypto"
import { ApiKeys } from "../auth/ApiKeys.js"
import { CurrentPrincipal } from "../auth/Principal.js"
import * as JsonRpc from "../mcp/JsonRpc.js"
import { isSupportedProtocolVersion, McpServer, SUPPORTED_PROTOCOL_VERSIONS } from "../mcp/McpServer.js"
import { RateLimiter } from "../mcp/RateLimiter.js"
import { DefaultProject } from "../tools/ToolImplementation.js"
import { TrellisConfig } from "../TrellisConfig.js"
import * as OriginGuard from "./OriginGuard.js"

export const MCP_PATH = "/api/mcp"

const reply = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson(body, { status, headers })

const bearerToken = (authorization: string | undefined): string | undefined => {
  const match = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization)
  return match?.[1]
}

const isBodyTooLarge = (cause: unknown): boolean =>
  typeof cause === "object" && cause !== null && "cause" in cause && cause.cause instanceof Error &&
  cause.cause.message === "maxBytes exceeded"

/** `POST /api/mcp`: stateless Streamable HTTP, one JSON-RPC message per request, JSON answers. */
export const McpRoute = HttpLayerRouter.use((router) =>
  Effect.gen(function* () {
    const config = yield* TrellisConfig
    const mcp = yield* McpServer
    const apiKeys = yield* ApiKeys
    const limiter = yield* RateLimiter

    const tooLarge = reply(413, JsonRpc.failure(null, JsonRpc.ErrorCode.InvalidRequest,
      `Invalid Request: the body exceeds ${config.maxBodyBytes} bytes`))

    const post = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function* () {
        const refused = OriginGuard.refusal(request.headers, config)
        if (refused !== undefined) return reply(403, JsonRpc.failure(null, JsonRpc.ErrorCode.InvalidRequest, refused))

        const token = bearerToken(request.headers["authorization"])
        const principal = token === undefined
          ? Either.left("Missing Authorization: Bearer <API key> header")
          : yield* apiKeys.authenticate(token).pipe(Effect.mapError((error) => error.message), Effect.either)
        if (Either.isLeft(principal)) {
          return reply(401, JsonRpc.failure(null, JsonRpc.ErrorCode.Unauthorized, `Unauthorized: ${principal.left}`), {
            "www-authenticate": token === undefined ? `Bearer realm="trellis"` : `Bearer realm="trellis", error="invalid_token"`
          })
        }

        const version = request.headers["mcp-protocol-version"]
        if (version !== undefined && !isSupportedProtocolVersion(version)) {
          return reply(400, JsonRpc.failure(null, JsonRpc.ErrorCode.InvalidRequest,
            `Unsupported MCP-Protocol-Version: ${version} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`))
        }

        const length = Number(request.headers["content-length"] ?? "0")
        if (length > config.maxBodyBytes) return tooLarge
        const body = yield* request.text.pipe(
          HttpServerRequest.withMaxBodySize(Option.some(config.maxBodyBytes)),
          Effect.either
        )
        if (Either.isLeft(body)) {
          return isBodyTooLarge(body.left)
            ? tooLarge
            : reply(400, JsonRpc.failure(null, JsonRpc.ErrorCode.ParseError, "Parse error: the body could not be read"))
        }

        const message = JsonRpc.parse(body.right)
        if (Either.isLeft(message)) {
          const { code, httpStatus, id, message: text } = message.left
          return reply(httpStatus, JsonRpc.failure(id, code, text))
        }
        const incoming = message.right
        if (incoming._tag !== "Request") return HttpServerResponse.empty({ status: 202 })

        if (incoming.method === "tools/call") {
          const wait = yield* limiter.take(principal.right.apiKeyId)
          if (Option.isSome(wait)) {
            return reply(429, JsonRpc.failure(incoming.id, JsonRpc.ErrorCode.RateLimited,
              `Rate limit exceeded: too many tool calls for this API key; retry in ${wait.value} s`,
              { retryAfterSeconds: wait.value }), { "retry-after": String(wait.value) })
          }
        }

        return yield* mcp.handle(incoming.method, incoming.params).pipe(
          Effect.match({
            onSuccess: (result) => reply(200, JsonRpc.success(incoming.id, result)),
            onFailure: (error) => reply(200, JsonRpc.failure(incoming.id, error.code, error.message, error.data))
          }),
          Effect.provideService(CurrentPrincipal, principal.right),
          Effect.provideService(DefaultProject, new URL(request.url, "http://trellis").searchParams.get("project")),
          Effect.catchAllCause((cause) => internalError(incoming.id, cause))
        )
      }).pipe(Effect.catchAllCause((cause) => internalError(null, cause)))

    const methodNotAllowed = Effect.succeed(
      reply(405, JsonRpc.failure(null, JsonRpc.ErrorCode.InvalidRequest,
        "Method Not Allowed: this endpoint takes POST only (no SSE stream, no sessions)"), { allow: "POST" })
    )

    yield* router.add("POST", MCP_PATH, post)
    yield* router.add("GET", MCP_PATH, methodNotAllowed)
    yield* router.add("DELETE", MCP_PATH, methodNotAllowed)
  })
)

/** A defect: logged in full with a trace id; the caller gets only the trace id. */
const internalError = (id: JsonRpc.JsonRpcId | null, cause: Cause.Cause<unknown>) => {
  const traceId = randomUUID()
  return Effect.logError("MCP request failed", cause).pipe(
    Effect.annotateLogs({ traceId }),
    Effect.as(reply(500, JsonRpc.failure(id, JsonRpc.ErrorCode.InternalError,
      `Internal error (trace ${traceId})`, { traceId })))
  )
}
