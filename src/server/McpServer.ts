import { Data, Effect, Option } from "effect"
import { LoadSkill } from "../../catalog/Skills.js"
import * as Tool from "../../catalog/Tool.js"
import type { CurrentPrincipal } from "../platform/auth/Principal.js"
import type { ToolError } from "../../catalog/domain/Errors.js"
import type { DefaultProject } from "../platform/auth/Principal.js"
import { TrellisConfig } from "../platform/TrellisConfig.js"
import { VERSION } from "../../catalog/Version.js"
import { ToolRunner } from "./ToolRunner.js"
import { ErrorCode } from "../platform/mcp/JsonRpc.js"
import { McpProjectContent } from "./McpProjectContent.js"
import { CurrentToolAccess, refusal } from "./ToolAccess.js"

export const SUPPORTED_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const
export const LATEST_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[0]
/** What a client that sends no `MCP-Protocol-Version` header is assumed to speak (MCP transports spec). */
export const DEFAULT_PROTOCOL_VERSION = "2025-03-26"

export const isSupportedProtocolVersion = (version: string): boolean =>
  SUPPORTED_PROTOCOL_VERSIONS.some((supported) => supported === version)


/** A JSON-RPC error answer to a well-formed request. */
export class McpError extends Data.TaggedError("McpError")<{
  readonly code: number
  readonly message: string
  readonly data?: unknown
}> {}

const invalidParams = (message: string) => new McpError({ code: ErrorCode.InvalidParams, message: `Invalid params: ${message}` })

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

// MCP's structuredContent is an object: a null result (update_project_agent, load_skill…) is text only.
const toolResult = (structured: unknown) => ({
  content: [{ type: "text", text: JSON.stringify(structured) }],
  ...(isObject(structured) ? { structuredContent: structured } : {})
})

const toolErrorResult = (error: ToolError) => ({
  content: [{ type: "text", text: error.message }],
  structuredContent: { error: { code: error.code, message: error.message } },
  isError: true
})

const encodeCursor = (offset: number) => Buffer.from(`tools:${offset}`).toString("base64url")
const decodeCursor = (cursor: string): Option.Option<number> => {
  const match = /^tools:(\d{1,6})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"))
  return match === null ? Option.none() : Option.some(Number(match[1]))
}

/**
 * The MCP methods: initialize, ping, tools/list, tools/call, prompts/list, prompts/get. Transport
 * concerns live in the HTTP route.
 */
export class McpServer extends Effect.Service<McpServer>()("trellis/McpServer", {
  effect: Effect.gen(function* () {
    const config = yield* TrellisConfig
    const runner = yield* ToolRunner
    const projectContent = yield* McpProjectContent

    const described = runner.tools.map((tool) => {
      const outputSchema = Tool.outputJsonSchema(tool)
      return { tool, descriptor: {
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: Tool.inputJsonSchema(tool),
        ...(outputSchema === undefined ? {} : { outputSchema }),
        annotations: {
          title: tool.title,
          readOnlyHint: tool.annotations.readOnly,
          destructiveHint: tool.annotations.destructive,
          idempotentHint: tool.annotations.idempotent,
          openWorldHint: false
        }
      } }
    })
    const descriptors = described.map(({ descriptor }) => descriptor)

    const initialize = (params: Record<string, unknown>) => {
      const requested = params["protocolVersion"]
      if (typeof requested !== "string") return Effect.fail(invalidParams("protocolVersion must be a string"))
      return Effect.succeed({
        protocolVersion: isSupportedProtocolVersion(requested) ? requested : LATEST_PROTOCOL_VERSION,
        capabilities: { tools: { listChanged: false }, prompts: { listChanged: false } },
        serverInfo: { name: "trellis", title: "Trellis", version: VERSION },
        instructions:
          "Trellis tracks projects, Lists, tasks and agent threads. Call list_projects first; project-scoped tools take projectId unless the URL has ?project=<id>."
      })
    }

    const listTools = (params: Record<string, unknown>) => Effect.flatMap(CurrentToolAccess, (access) => {
      const served = described.filter(({ tool }) => refusal(access, tool) === undefined).map(({ descriptor }) => descriptor)
      const cursor = params["cursor"]
      const offset = cursor === undefined || cursor === null
        ? Option.some(0)
        : typeof cursor === "string"
        ? Option.filter(decodeCursor(cursor), (n) => n > 0 && n < served.length)
        : Option.none()
      if (Option.isNone(offset)) return Effect.fail(invalidParams("cursor is not one this server issued"))
      const end = offset.value + config.toolsPageSize
      const page = served.slice(offset.value, end)
      const result = (tools: typeof page) => ({ tools, ...(end < served.length ? { nextCursor: encodeCursor(end) } : {}) })
      if (!page.some((tool) => tool.name === LoadSkill.name)) return Effect.succeed(result(page))
      // load_skill names the connection's project Skills, so a model knows what it can load.
      return Effect.map(projectContent.skillIndex, Option.match({
        onNone: () => result(page),
        onSome: (index) =>
          result(page.map((tool) => tool.name === LoadSkill.name ? { ...tool, description: `${tool.description}\n\n${index}` } : tool))
      }))
    })

    const getPrompt = (params: Record<string, unknown>) => {
      const name = params["name"]
      if (typeof name !== "string") return Effect.fail(invalidParams("name must be a string"))
      return Effect.flatMap(projectContent.getPrompt(name), Option.match({
        onNone: () =>
          Effect.fail(invalidParams(
            `no prompt named ${name} in the connection's project (prompts come from the project of the URL's ?project=<project_id>)`
          )),
        onSome: Effect.succeed
      }))
    }

    const callTool = (params: Record<string, unknown>) => {
      const name = params["name"]
      const args = params["arguments"]
      if (typeof name !== "string") return Effect.fail(invalidParams("name must be a string"))
      if (args !== undefined && !isObject(args)) return Effect.fail(invalidParams("arguments must be an object"))
      const tool = runner.tools.find((candidate) => candidate.name === name)
      return Effect.flatMap(CurrentToolAccess, (access) => {
        // A tool this connection is not served is as unknown to it as a misspelt one, but says why.
        const refused = tool === undefined ? undefined : refusal(access, tool)
        if (refused !== undefined) return Effect.fail(invalidParams(refused))
        return runner.call(name, args).pipe(
          Effect.map(toolResult),
          Effect.catchAll((error) =>
            error._tag === "UnknownTool"
              ? Effect.fail(invalidParams(error.message))
              : Effect.succeed(toolErrorResult(error))
          )
        )
      })
    }

    /** Answers one JSON-RPC request; fails with the JSON-RPC error to send instead. */
    const handle = (
      method: string,
      rawParams: unknown
    ): Effect.Effect<unknown, McpError, CurrentPrincipal | DefaultProject | CurrentToolAccess> => {
      const params = isObject(rawParams) ? rawParams : {}
      switch (method) {
        case "initialize":
          return initialize(params)
        case "ping":
          return Effect.succeed({})
        case "tools/list":
          return listTools(params)
        case "tools/call":
          return callTool(params)
        case "prompts/list":
          return Effect.map(projectContent.listPrompts, (prompts) => ({ prompts }))
        case "prompts/get":
          return getPrompt(params)
        default:
          return Effect.fail(new McpError({ code: ErrorCode.MethodNotFound, message: `Method not found: ${method}` }))
      }
    }

    return { handle, descriptors } as const
  }),
  dependencies: [ToolRunner.Default, McpProjectContent.Default]
}) {}
