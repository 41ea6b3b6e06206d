import { Effect, Either, Option } from "effect"
import { ApiKeys } from "../auth/ApiKeys.js"
import { sessionToken, WebSessions } from "../auth/WebSessions.js"
import type { Principal } from "../auth/Principal.js"
import * as JsonRpc from "../mcp/JsonRpc.js"
import { RateLimiter } from "./RateLimiter.js"
import { TrellisConfig } from "../TrellisConfig.js"
import * as OriginGuard from "./OriginGuard.js"
import { FILE_UPLOAD_PATH } from "../../../catalog/bridge/TaskFilesApi.js"
import { fileSizeRule } from "../../../catalog/domain/TaskFile.js"

/**
 * Which rules a route answers to: `mcp` (`/api/mcp`), `bridge` (the CLI's `/api/agent/*`) and
 * `client` (every other `/api/*` route) need an API key and have a rate budget per key; `open`
 * (`/health`, the OpenAPI document, anything outside `/api`) needs neither.
 */
export type RouteFamily = "mcp" | "bridge" | "client" | "open"

/** Where a browser exchanges an API key (in the body) for a session: it cannot need one already. */
export const SIGN_IN_PATH = "/api/web/session"

export const familyOf = (path: string): RouteFamily => {
  if (path === "/api/mcp") return "mcp"
  if (path === "/api/openapi.json" || path === SIGN_IN_PATH) return "open"
  if (path.startsWith("/api/agent/")) return "bridge"
  if (path.startsWith("/api/")) return "client"
  return "open"
}

/** What the guard reads of a request: the request line and the headers, never the body. */
export interface GuardRequest {
  readonly method: string
  /** Path and query. */
  readonly url: string
  readonly header: (name: string) => string | undefined
}

/** A whole HTTP answer, written by whichever server received the request. */
export interface Reply {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

export interface Admission {
  readonly family: RouteFamily
  /** The key's principal; none on `open` routes. */
  readonly principal: Option.Option<Principal>
}

/** The one parser of `Authorization: Bearer <key>`: the scheme in any case, any spaces between it and the key. */
export const bearerToken = (authorization: string | undefined): string | undefined =>
  authorization === undefined ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1]

export const pathOf = (url: string): string => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

/** A request that declares a body (which may still be on its way when the answer is sent). */
export const hasBody = (header: GuardRequest["header"]): boolean => {
  const length = header("content-length")
  return header("transfer-encoding") !== undefined || (length !== undefined && length.trim() !== "0")
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"])

const UPLOAD_PATTERN = new RegExp(`^${FILE_UPLOAD_PATH.replace(/:\w+/g, "[^/]+")}$`)

/** A file upload, whose body may be as large as a file (`maxFileBytes`) rather than `maxBodyBytes`. */
export const isFileUpload = (request: Pick<GuardRequest, "method" | "url">): boolean =>
  request.method.toUpperCase() === "POST" && UPLOAD_PATTERN.test(pathOf(request.url))

/**
 * Whose rate budget a request spends: a browser session's own, else its API key's. A page that
 * misbehaves then spends its session's budget, never that of the agents using the same key.
 */
const budgetOwner = (principal: Principal): string =>
  principal.webSessionId === undefined ? `key:${principal.apiKeyId}` : `session:${principal.webSessionId}`

type Refusal = "forbidden" | "unauthorized" | "tooLarge" | "rateLimited"

const statusOf: Record<Refusal, number> = { forbidden: 403, unauthorized: 401, tooLarge: 413, rateLimited: 429 }
const tagOf: Record<Refusal, string> = {
  forbidden: "Forbidden",
  unauthorized: "Unauthorized",
  tooLarge: "PayloadTooLarge",
  rateLimited: "TooManyRequests"
}
const rpcCodeOf: Record<Refusal, number> = {
  forbidden: JsonRpc.ErrorCode.InvalidRequest,
  unauthorized: JsonRpc.ErrorCode.Unauthorized,
  tooLarge: JsonRpc.ErrorCode.InvalidRequest,
  rateLimited: JsonRpc.ErrorCode.RateLimited
}
const rpcPrefixOf: Record<Refusal, string> = {
  forbidden: "Forbidden",
  unauthorized: "Unauthorized",
  tooLarge: "Invalid Request",
  rateLimited: "Rate limit exceeded"
}

/**
 * One guard in front of every route, deciding from the request line and headers alone, in this
 * order: Host/Origin (403), API key (401), declared body length (413), rate budget (429).
 * Servers apply it before reading any byte of the body (src/server/NodeServer.ts, and the router
 * middleware in src/platform/http/GuardMiddleware.ts for embedders).
 */
export class RequestGuard extends Effect.Service<RequestGuard>()("trellis/RequestGuard", {
  effect: Effect.gen(function*() {
    const config = yield* TrellisConfig
    const apiKeys = yield* ApiKeys
    const webSessions = yield* WebSessions
    const limiter = yield* RateLimiter

    /** The refusal in the family's own format: JSON-RPC on `/api/mcp`, a tagged error elsewhere. */
    const refuse = (
      family: RouteFamily,
      refusal: Refusal,
      message: string,
      extra: { readonly headers?: Record<string, string>; readonly retryAfterSeconds?: number } = {}
    ): Reply => {
      const data = extra.retryAfterSeconds === undefined ? undefined : { retryAfterSeconds: extra.retryAfterSeconds }
      const body = family === "mcp"
        ? JsonRpc.failure(null, rpcCodeOf[refusal], `${rpcPrefixOf[refusal]}: ${message}`, data)
        : { _tag: tagOf[refusal], message, ...data }
      return {
        status: statusOf[refusal],
        headers: { "content-type": "application/json", ...extra.headers },
        body: JSON.stringify(body)
      }
    }

    /** The most bytes the request's body may hold. */
    const bodyLimit = (request: Pick<GuardRequest, "method" | "url">): number =>
      isFileUpload(request) ? config.maxFileBytes : config.maxBodyBytes

    /** A body larger than the route's limit, declared or (chunked) as it turned out: 413. */
    const tooLarge = (request: GuardRequest, declared?: number): Reply =>
      isFileUpload(request)
        ? refuse(
          familyOf(pathOf(request.url)),
          "tooLarge",
          `file: ${fileSizeRule(config.maxFileBytes)}${declared === undefined ? "" : `; this one declares ${declared} bytes`}`
        )
        : refuse(familyOf(pathOf(request.url)), "tooLarge", `the body exceeds ${config.maxBodyBytes} bytes`)

    /**
     * A request signed in with a browser session (no key, a session cookie) that changes anything
     * must come from a page of an allowed origin: SameSite=Strict already keeps other sites'
     * requests from carrying the cookie, and the Origin check is the second lock (CSRF).
     */
    const sessionCsrfRefusal = (request: GuardRequest, family: RouteFamily): Reply | undefined =>
      SAFE_METHODS.has(request.method.toUpperCase()) || request.header("origin") !== undefined
        ? undefined
        : refuse(family, "forbidden", "a request signed in with a browser session must carry an Origin header")

    /** The principal of the request's key (or browser session), or the 401 to answer. */
    const authenticate = (request: GuardRequest, family: RouteFamily): Effect.Effect<Either.Either<Principal, Reply>> => {
      const token = bearerToken(request.header("authorization"))
      const session = token === undefined ? sessionToken(request.header("cookie")) : undefined
      if (session !== undefined) {
        const csrf = sessionCsrfRefusal(request, family)
        if (csrf !== undefined) return Effect.succeed(Either.left(csrf))
        return webSessions.authenticate(session).pipe(
          Effect.mapError((error) => refuse(family, "unauthorized", error.message)),
          Effect.either
        )
      }
      if (token === undefined) {
        return Effect.succeed(Either.left(refuse(family, "unauthorized", "Missing Authorization: Bearer <API key> header", {
          headers: { "www-authenticate": `Bearer realm="trellis"` }
        })))
      }
      return apiKeys.authenticate(token).pipe(
        Effect.mapError((error) =>
          refuse(family, "unauthorized", error.message, {
            headers: { "www-authenticate": `Bearer realm="trellis", error="invalid_token"` }
          })
        ),
        Effect.either
      )
    }

    const check = (request: GuardRequest): Effect.Effect<Either.Either<Admission, Reply>> =>
      Effect.gen(function*() {
        const family = familyOf(pathOf(request.url))
        const refused = OriginGuard.refusal(request.header, config)
        if (refused !== undefined) return Either.left(refuse(family, "forbidden", refused))

        const principal = family === "open" ? Either.right(undefined) : yield* authenticate(request, family)
        if (Either.isLeft(principal)) return Either.left(principal.left)
        // On MCP a read-only key is narrowed per tool (reads stay POSTs there); every other route
        // that is not a safe method changes something.
        if (principal.right?.readOnly === true && family !== "mcp" && !SAFE_METHODS.has(request.method.toUpperCase())) {
          return Either.left(refuse(family, "forbidden", "this API key is read-only: it cannot change anything"))
        }

        const declared = Number(request.header("content-length") ?? "0")
        if (declared > bodyLimit(request)) return Either.left(tooLarge(request, declared))

        const budget = family === "bridge" ? config.bridgeRateLimit : config.rateLimit
        if (principal.right !== undefined && Option.isSome(budget)) {
          const wait = yield* limiter.take(`${family}:${budgetOwner(principal.right)}`, budget.value)
          if (Option.isSome(wait)) {
            return Either.left(
              refuse(family, "rateLimited", `too many requests for this API key; retry in ${wait.value} s`, {
                headers: { "retry-after": String(wait.value) },
                retryAfterSeconds: wait.value
              })
            )
          }
        }
        return Either.right({ family, principal: Option.fromNullable(principal.right) })
      })

    return { check, authenticate, tooLarge, bodyLimit, maxBodyBytes: config.maxBodyBytes } as const
  }),
  dependencies: [ApiKeys.Default, WebSessions.Default, RateLimiter.Default]
}) {}
