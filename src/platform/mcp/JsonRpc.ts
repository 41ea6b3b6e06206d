import { Either, Schema } from "effect"

/** JSON-RPC 2.0 over one HTTP POST: parsing the envelope and shaping replies. */

export type JsonRpcId = string | number

export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  RateLimited: -32000,
  Unauthorized: -32001,
  /** 2026-07-28: a standard header disagrees with the body, or is missing. */
  HeaderMismatch: -32020,
  /** 2026-07-28: the request needs a client capability the client did not declare. */
  MissingRequiredClientCapability: -32021,
  /** 2026-07-28: the request names a protocol revision this server does not speak. */
  UnsupportedProtocolVersion: -32022
} as const

export type Incoming =
  | { readonly _tag: "Request"; readonly id: JsonRpcId; readonly method: string; readonly params: unknown }
  | { readonly _tag: "Notification"; readonly method: string }
  | { readonly _tag: "Response" }

/** A message that cannot be processed; `httpStatus` is what the transport answers with. */
export interface Rejection {
  readonly httpStatus: number
  readonly id: JsonRpcId | null
  readonly code: number
  readonly message: string
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

const isId = (value: unknown): value is JsonRpcId => typeof value === "string" || (typeof value === "number" && Number.isFinite(value))

const invalid = (id: JsonRpcId | null, message: string): Rejection => ({
  httpStatus: 400,
  id,
  code: ErrorCode.InvalidRequest,
  message: `Invalid Request: ${message}`
})

const parseJson = Schema.decodeEither(Schema.parseJson())

/**
 * How deep a message may nest (objects and arrays, the envelope included). Tool arguments need
 * a handful of levels; the bound keeps every later walk over a message (decoding, checks,
 * logging) far from the stack limit.
 */
export const MAX_DEPTH = 64

/** Whether `value` nests deeper than `max`, measured without recursion so any depth is safe. */
const nestsDeeperThan = (value: unknown, max: number): boolean => {
  const pending: Array<readonly [unknown, number]> = [[value, 1]]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next
    if (typeof item !== "object" || item === null) continue
    if (depth > max) return true
    for (const child of Object.values(item)) pending.push([child, depth + 1])
  }
  return false
}

export const parse = (body: string): Either.Either<Incoming, Rejection> => {
  const parsed = parseJson(body)
  if (Either.isLeft(parsed)) {
    return Either.left({ httpStatus: 400, id: null, code: ErrorCode.ParseError, message: "Parse error: the body is not valid JSON" })
  }
  const message = parsed.right
  if (nestsDeeperThan(message, MAX_DEPTH)) {
    const id = isObject(message) && isId(message["id"]) ? message["id"] : null
    return Either.left(invalid(id, `the message nests deeper than ${MAX_DEPTH} levels`))
  }
  if (Array.isArray(message)) {
    return Either.left(invalid(null, "batches are not supported; send one JSON-RPC message per request"))
  }
  if (!isObject(message)) return Either.left(invalid(null, "the body must be a JSON-RPC 2.0 object"))
  const id = isId(message["id"]) ? message["id"] : null
  if (message["jsonrpc"] !== "2.0") return Either.left(invalid(id, "jsonrpc must be \"2.0\""))
  if ("method" in message) {
    const method = message["method"]
    if (typeof method !== "string") return Either.left(invalid(id, "method must be a string"))
    const params = message["params"]
    if (params !== undefined && !isObject(params) && !Array.isArray(params)) {
      return Either.left(invalid(id, "params must be an object or an array"))
    }
    if (!("id" in message)) return Either.right({ _tag: "Notification", method })
    if (id === null) return Either.left(invalid(null, "id must be a string or a number"))
    return Either.right({ _tag: "Request", id, method, params })
  }
  if (("result" in message || "error" in message) && "id" in message) return Either.right({ _tag: "Response" })
  return Either.left(invalid(id, "not a request, notification or response"))
}

export const success = (id: JsonRpcId, result: unknown) => ({ jsonrpc: "2.0" as const, id, result })

export const failure = (id: JsonRpcId | null, code: number, message: string, data?: unknown) => ({
  jsonrpc: "2.0" as const,
  id,
  error: data === undefined ? { code, message } : { code, message, data }
})
