import * as Sse from "@effect/experimental/Sse"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Effect, identity, Option, type Redacted, Schema } from "effect"
import { ToolErrorBody } from "./domain/Errors.js"
import { Catalog } from "./index.js"
import type * as Tool from "./Tool.js"

/**
 * A typed client of Trellis's MCP endpoint for the CLI, the tests and the browser:
 * `call("create_task", args)` takes the tool's arguments as its catalog Schema encodes them and
 * answers its result decoded with its output Schema, so a tool's shape is never written again.
 */

export type ToolName = (typeof Catalog)[number]["name"]
type Named<N extends ToolName> = Extract<(typeof Catalog)[number], { readonly name: N }>
/** A tool's arguments as sent (JSON). */
export type ArgumentsOf<N extends ToolName> = Schema.Schema.Encoded<Named<N>["input"]>
/** A tool's result, decoded. */
export type ResultOf<N extends ToolName> = Schema.Schema.Type<Named<N>["output"]>

/** The tool ran and refused: its typed error (`not_found`, `forbidden`, `invalid_argument`, …). */
export class McpToolError extends Schema.TaggedError<McpToolError>()("McpToolError", {
  tool: Schema.String,
  code: ToolErrorBody.fields.code,
  message: Schema.String
}) {}

/** The call did not reach the tool: no answer, an HTTP error (`status`: 401 a refused key), or an answer that is not the tool's. */
export class McpRequestError extends Schema.TaggedError<McpRequestError>()("McpRequestError", {
  tool: Schema.String,
  status: Schema.NullOr(Schema.Number),
  message: Schema.String
}) {}

/**
 * A tool's answer as MCP sends it (`tools/call`'s result), not decoded with the tool's Schema: its
 * text `content`, its result object in `structuredContent` (absent for a result that is not an
 * object, such as null), and `isError: true` with `structuredContent.error` when the tool refused.
 */
export const RawToolResult = Schema.Struct({
  content: Schema.optional(Schema.Array(Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String) }))),
  structuredContent: Schema.optional(Schema.Unknown),
  isError: Schema.optional(Schema.Boolean)
})
export type RawToolResult = typeof RawToolResult.Type

const RpcReply = Schema.Union(
  Schema.Struct({ result: RawToolResult }),
  Schema.Struct({ error: Schema.Struct({ code: Schema.Number, message: Schema.String }) })
)
// Whatever else the answer holds is kept: `callRaw` gives it back as it came.
const decodeReply = Schema.decodeUnknown(Schema.parseJson(RpcReply), { onExcessProperty: "preserve" })
const decodeToolError = Schema.decodeUnknown(Schema.Struct({ error: ToolErrorBody }))
const rpcMessage = Schema.decodeUnknownOption(Schema.parseJson(Schema.Struct({ error: Schema.Struct({ message: Schema.String }) })))

/** The JSON of an answer sent as JSON, or as server-sent events (the last event's data). */
const replyJson = (body: string, contentType: string): string => {
  if (!contentType.includes("text/event-stream")) return body
  let last = ""
  const parser = Sse.makeParser((event) => {
    if (event._tag === "Event") last = event.data
  })
  parser.feed(`${body}\n\n`)
  return last
}

/** The innermost message of an error chain: undici wraps `ECONNREFUSED` in "fetch failed". */
const rootCause = (error: unknown): string | undefined => {
  let message: string | undefined
  for (let current = error, depth = 0; current instanceof Error && depth < 6; current = current.cause, depth++) {
    message = current.message
  }
  return message
}

const parseJsonText = Schema.decodeUnknownOption(Schema.parseJson())

/**
 * What a tool answered: its `structuredContent`, or, for a result that is not an object (null:
 * update_project_agent, load_skill…), which MCP sends as text only, the JSON of that text.
 */
const resultOf = (result: RawToolResult): unknown => {
  if (result.structuredContent !== undefined) return result.structuredContent
  const text = result.content?.find((part) => part.type === "text")?.text
  return text === undefined ? undefined : Option.getOrUndefined(parseJsonText(text))
}

/** A type guard for the catalog tool of a name: its Schemas typed as that tool's. */
export const isNamed = <N extends ToolName>(name: N) => (tool: (typeof Catalog)[number]): tool is Named<N> => tool.name === name

export interface McpClientOptions {
  /** The endpoint, e.g. `http://127.0.0.1:3000/api/mcp` (with `?project=<id>` to scope `P?` tools). */
  readonly url: string
  /**
   * Sent as `Authorization: Bearer`. None in the browser: there the page's session cookie
   * (HttpOnly, so the page never holds a secret) signs the request, as fetch sends it same-origin.
   */
  readonly apiKey?: Redacted.Redacted<string>
  /** Sent as `MCP-Protocol-Version`. */
  readonly protocolVersion?: string
}

/** The exchange under every client: one `tools/call`, and a tool's answer decoded with its Schema. */
const connection = (options: McpClientOptions) => {
  let nextId = 0
  /** One `tools/call` exchange: the tool's answer as sent, or why there is none. */
  const send = (name: string, args: unknown): Effect.Effect<RawToolResult, McpRequestError, HttpClient.HttpClient> =>
    Effect.gen(function*() {
      const requestError = (status: number | null, message: string) => new McpRequestError({ tool: name, status, message })
      const http = yield* HttpClient.HttpClient
      const request = HttpClientRequest.post(options.url).pipe(
        options.apiKey === undefined ? identity : HttpClientRequest.bearerToken(options.apiKey),
        HttpClientRequest.setHeaders({
          accept: "application/json, text/event-stream",
          ...(options.protocolVersion === undefined ? {} : { "mcp-protocol-version": options.protocolVersion })
        }),
        HttpClientRequest.bodyUnsafeJson({ jsonrpc: "2.0", id: ++nextId, method: "tools/call", params: { name, arguments: args } })
      )
      const { status, contentType, body } = yield* http.execute(request).pipe(
        Effect.flatMap((response) =>
          Effect.map(
            response.text,
            (text) => ({ status: response.status, contentType: response.headers["content-type"] ?? "", body: text })
          )
        ),
        Effect.scoped,
        Effect.mapError((error) => requestError(null, `cannot reach ${options.url}: ${rootCause(error.cause) ?? error.message}`))
      )
      if (status !== 200) {
        const said = Option.match(rpcMessage(body), { onNone: () => "", onSome: (reply) => `: ${reply.error.message}` })
        return yield* requestError(status, `${options.url} answered HTTP ${status}${said}`)
      }
      const reply = yield* decodeReply(replyJson(body, contentType)).pipe(
        Effect.mapError(() => requestError(status, `${options.url} did not answer as an MCP server`))
      )
      if ("error" in reply) return yield* requestError(status, reply.error.message)
      return reply.result
    })

  const run = <T extends Tool.Any>(
    tool: T,
    args: unknown
  ): Effect.Effect<Schema.Schema.Type<T["output"]>, McpToolError | McpRequestError, HttpClient.HttpClient> =>
    Effect.gen(function*() {
      const name = tool.name
      // A tool's answer only ever comes with HTTP 200.
      const requestError = (message: string) => new McpRequestError({ tool: name, status: 200, message })
      const result = yield* send(name, args)
      if (result.isError === true) {
        const refused = yield* decodeToolError(result.structuredContent).pipe(
          Effect.mapError(() => requestError(`${name} failed without a Trellis error`))
        )
        return yield* new McpToolError({ tool: name, ...refused.error })
      }
      return yield* Schema.decodeUnknown(tool.output)(resultOf(result)).pipe(
        Effect.mapError((error) => requestError(`${name}'s result does not match its Schema: ${error.message}`))
      )
    })

  return { send, run } as const
}

const notATool = (name: string) => Effect.fail(new McpRequestError({ tool: name, status: null, message: `${name} is not a Trellis tool` }))

/**
 * A client of the tools in `tools` only, keyed by their names (`{ list_projects: ListProjects }`):
 * a browser bundle that names the few tools it calls leaves the rest of the catalog (and what
 * their Schemas import) out.
 */
export const makeWith = <Tools extends { readonly [K in keyof Tools]: Tool.Any }>(tools: Tools) => (options: McpClientOptions) => {
  const { run } = connection(options)
  /** Calls a tool: its arguments as its input Schema encodes them, its result decoded. */
  const call = <N extends keyof Tools & string>(name: N, args: Schema.Schema.Encoded<Tools[N]["input"]>) =>
    // A name outside `tools` can still come from an untyped caller: it fails as `make`'s unknown tool does.
    Object.hasOwn(tools, name) ? run(tools[name], args) : notATool(name)
  return { call } as const
}

export const make = (options: McpClientOptions) => {
  const { send, run } = connection(options)

  /** Calls a tool by name: its arguments as its input Schema encodes them, its result decoded. */
  const call = <N extends ToolName>(name: N, args: ArgumentsOf<N>) => {
    const tool = Catalog.find(isNamed(name))
    return tool === undefined ? notATool(name) : run(tool, args)
  }

  /**
   * Calls a tool by any name with any arguments, neither checked here, and answers the tool's
   * result as it came, a refusal included (`isError: true`): for callers that send what the
   * Schemas forbid on purpose, such as tests of the server's validation. Fails only when the call
   * did not reach a tool (McpRequestError: no answer, an HTTP error, a JSON-RPC error such as an unknown tool).
   */
  const callRaw = (name: string, args: unknown) => send(name, args)

  return { call, callRaw } as const
}

export type McpClient = ReturnType<typeof make>
