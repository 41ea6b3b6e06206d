import { Either } from "effect"
import { ErrorCode } from "../platform/mcp/JsonRpc.js"

/**
 * Which revision of MCP a request speaks, decided per request from the body (MCP 2026-07-28,
 * "dual-era servers"): a request whose `_meta` names a protocol version is served in that
 * revision; `initialize` and requests without the claim are the 2025 era, exactly as before.
 * Nothing is kept between requests.
 */

export const MODERN_PROTOCOL_VERSION = "2026-07-28"
export const LEGACY_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const
export const SUPPORTED_PROTOCOL_VERSIONS = [MODERN_PROTOCOL_VERSION, ...LEGACY_PROTOCOL_VERSIONS] as const
/** What `initialize` answers when it is asked for a revision it does not know. */
export const LATEST_LEGACY_PROTOCOL_VERSION = LEGACY_PROTOCOL_VERSIONS[0]

const PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
const CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
const CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo"
const LOG_LEVEL_KEY = "io.modelcontextprotocol/logLevel"
const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]

export const isLegacyProtocolVersion = (version: string): boolean => LEGACY_PROTOCOL_VERSIONS.some((legacy) => legacy === version)

export type Era =
  | { readonly _tag: "Legacy" }
  | {
    readonly _tag: "Modern"
    readonly clientCapabilities: Readonly<Record<string, unknown>>
    /** The request's headers, for the `Mcp-Param-*` headers a tool's arguments declare. */
    readonly header: (name: string) => string | undefined
  }

export const Legacy: Era = { _tag: "Legacy" }

/** A request refused before it reaches a method: the JSON-RPC error and the HTTP status it goes with. */
export interface Refusal {
  readonly httpStatus: number
  readonly code: number
  readonly message: string
  readonly data?: unknown
}

/** What the era decision reads of an HTTP request. */
export interface EraRequest {
  readonly method: string
  readonly params: unknown
  readonly header: (name: string) => string | undefined
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

/** RFC 9110 field values are compared without the optional whitespace around them. */
const headerOf = (request: EraRequest, name: string): string | undefined => request.header(name)?.trim()

export const mismatch = (header: string, body: string, why: string): Refusal => ({
  httpStatus: 400,
  code: ErrorCode.HeaderMismatch,
  message: `Header mismatch: ${why}`,
  data: { mismatch: { header, body } }
})

const invalidEnvelope = (problem: string, data: unknown): Refusal => ({
  httpStatus: 400,
  code: ErrorCode.InvalidParams,
  message: `Invalid params: _meta ${problem}`,
  data
})

/** The first thing wrong with a 2026-07-28 request envelope (`params._meta`), if any. */
const envelopeProblem = (meta: Record<string, unknown>): Refusal | undefined => {
  const missing = [PROTOCOL_VERSION_KEY, CLIENT_CAPABILITIES_KEY].filter((key) => !(key in meta))
  if (missing.length > 0) return invalidEnvelope(`lacks ${missing.join(" and ")}`, { envelope: { missing } })
  if (typeof meta[PROTOCOL_VERSION_KEY] !== "string") {
    return invalidEnvelope(`${PROTOCOL_VERSION_KEY} must be a string`, { envelope: { key: PROTOCOL_VERSION_KEY } })
  }
  if (!isObject(meta[CLIENT_CAPABILITIES_KEY])) {
    return invalidEnvelope(`${CLIENT_CAPABILITIES_KEY} must be an object`, { envelope: { key: CLIENT_CAPABILITIES_KEY } })
  }
  const info = meta[CLIENT_INFO_KEY]
  if (info !== undefined && !(isObject(info) && typeof info["name"] === "string" && typeof info["version"] === "string")) {
    return invalidEnvelope(`${CLIENT_INFO_KEY} must be an object with a name and a version`, { envelope: { key: CLIENT_INFO_KEY } })
  }
  const level = meta[LOG_LEVEL_KEY]
  if (level !== undefined && !LOG_LEVELS.some((known) => known === level)) {
    return invalidEnvelope(`${LOG_LEVEL_KEY} must be one of ${LOG_LEVELS.join(", ")}`, { envelope: { key: LOG_LEVEL_KEY } })
  }
  return undefined
}

/** The body field each method's `Mcp-Name` header mirrors (SEP-2243). */
const NAME_SOURCES: Readonly<Record<string, string>> = { "tools/call": "name", "prompts/get": "name", "resources/read": "uri" }

const BASE64_SENTINEL = /^=\?base64\?(.*)\?=$/
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/**
 * An `Mcp-Name` / `Mcp-Param-*` header value as the client meant it: `=?base64?…?=` carries
 * UTF-8 in canonical Base64, anything else is literal. None when the Base64 is not canonical.
 */
export const decodeHeaderValue = (value: string): Either.Either<string, undefined> => {
  const sentinel = BASE64_SENTINEL.exec(value)
  if (sentinel === null) return Either.right(value)
  const payload = sentinel[1] ?? ""
  if (!CANONICAL_BASE64.test(payload)) return Either.left(undefined)
  try {
    return Either.right(new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(payload, "base64")))
  } catch {
    return Either.left(undefined)
  }
}

/**
 * SEP-2243: each argument a tool declares with `x-mcp-header` that the call gives a value must
 * arrive in its `Mcp-Param-<header>` header too, with the same value.
 */
export const parameterHeaderProblem = (
  declared: ReadonlyArray<{ readonly argument: string; readonly header: string }>,
  args: Readonly<Record<string, unknown>>,
  header: (name: string) => string | undefined
): Refusal | undefined => {
  for (const { argument, header: suffix } of declared) {
    const value = args[argument]
    if (value === undefined || value === null) continue
    const body = typeof value === "string" ? value : JSON.stringify(value)
    const name = `Mcp-Param-${suffix}`
    const sent = header(name.toLowerCase())?.trim()
    if (sent === undefined) return mismatch("(missing)", body, `${name} is required when ${argument} is given`)
    const decoded = decodeHeaderValue(sent)
    if (Either.isLeft(decoded)) return mismatch(sent, body, `${name} carries invalid Base64`)
    if (decoded.right !== body) return mismatch(sent, body, `${name} is ${decoded.right} but ${argument} is ${body}`)
  }
  return undefined
}

/** SEP-2243's standard headers, required on every 2026-07-28 request and checked against the body. */
const standardHeaderProblem = (request: EraRequest): Refusal | undefined => {
  const method = headerOf(request, "mcp-method")
  if (method === undefined) {
    return mismatch("(missing)", request.method, `the Mcp-Method header is required (the body names ${request.method})`)
  }
  if (method !== request.method) {
    return mismatch(method, request.method, `the Mcp-Method header names ${method} but the body names ${request.method}`)
  }
  const field = NAME_SOURCES[request.method]
  const bodyValue = field !== undefined && isObject(request.params) ? request.params[field] : undefined
  if (field === undefined || typeof bodyValue !== "string") return undefined
  const name = headerOf(request, "mcp-name")
  if (name === undefined) return mismatch("(missing)", bodyValue, `the Mcp-Name header is required when params.${field} is given`)
  const decoded = decodeHeaderValue(name)
  if (Either.isLeft(decoded)) return mismatch(name, bodyValue, "the Mcp-Name header carries invalid Base64")
  if (decoded.right !== bodyValue) {
    return mismatch(name, bodyValue, `the Mcp-Name header names ${decoded.right} but params.${field} is ${bodyValue}`)
  }
  return undefined
}

const unsupported = (requested: string): Refusal => ({
  httpStatus: 400,
  code: ErrorCode.UnsupportedProtocolVersion,
  message: `Unsupported protocol version: ${requested} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`,
  data: { supported: [...SUPPORTED_PROTOCOL_VERSIONS], requested }
})

/** The era a request is served in, or why it is refused before any method runs. */
export const classify = (request: EraRequest): Either.Either<Era, Refusal> => {
  const headerVersion = headerOf(request, "mcp-protocol-version")
  const meta = isObject(request.params) && isObject(request.params["_meta"]) ? request.params["_meta"] : undefined
  const claimsRevision = meta !== undefined && PROTOCOL_VERSION_KEY in meta

  if (!claimsRevision) {
    if (headerVersion !== undefined && !isLegacyProtocolVersion(headerVersion)) {
      if (headerVersion !== MODERN_PROTOCOL_VERSION) return Either.left(unsupported(headerVersion))
      if (request.method === "initialize") {
        return Either.left(
          mismatch(headerVersion, "initialize", "initialize is the 2025 handshake, but MCP-Protocol-Version names 2026-07-28")
        )
      }
      return Either.left(invalidEnvelope(
        `lacks ${PROTOCOL_VERSION_KEY} and ${CLIENT_CAPABILITIES_KEY}, which MCP-Protocol-Version ${headerVersion} requires`,
        { envelope: { missing: [PROTOCOL_VERSION_KEY, CLIENT_CAPABILITIES_KEY] } }
      ))
    }
    return Either.right(Legacy)
  }

  const problem = envelopeProblem(meta)
  if (problem !== undefined) return Either.left(problem)
  const claimed = String(meta[PROTOCOL_VERSION_KEY])
  if (headerVersion !== undefined && headerVersion !== claimed) {
    return Either.left(mismatch(headerVersion, claimed, `MCP-Protocol-Version is ${headerVersion} but _meta names ${claimed}`))
  }
  if (isLegacyProtocolVersion(claimed)) return Either.right(Legacy)
  if (claimed !== MODERN_PROTOCOL_VERSION) return Either.left(unsupported(claimed))
  if (headerVersion === undefined) return Either.left(mismatch("(missing)", claimed, "the MCP-Protocol-Version header is required"))
  const headers = standardHeaderProblem(request)
  if (headers !== undefined) return Either.left(headers)
  const capabilities = meta[CLIENT_CAPABILITIES_KEY]
  return Either.right({ _tag: "Modern", clientCapabilities: isObject(capabilities) ? capabilities : {}, header: request.header })
}
