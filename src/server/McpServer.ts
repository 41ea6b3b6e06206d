import { Effect, Option } from "effect"
import { LoadSkill } from "../../catalog/Skills.js"
import * as Tool from "../../catalog/Tool.js"
import type { CurrentPrincipal } from "../platform/auth/Principal.js"
import type { ToolError } from "../../catalog/domain/Errors.js"
import { DefaultProject } from "../platform/auth/Principal.js"
import { TrellisConfig } from "../platform/TrellisConfig.js"
import { ToolRunner } from "./ToolRunner.js"
import { ErrorCode } from "../platform/mcp/JsonRpc.js"
import { invalidParams, McpError } from "../platform/mcp/McpError.js"
import { McpProjectContent } from "./McpProjectContent.js"
import { SKILLS_EXTENSION, SkillsExtension } from "../skills/SkillsExtension.js"
import { CurrentToolAccess, refusal, type ToolAccess } from "./ToolAccess.js"
import {
  type Era,
  isLegacyProtocolVersion,
  parameterHeaderProblem,
  LATEST_LEGACY_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS
} from "./McpEra.js"
import { CALLER_LIST, type CacheHint, modernResult, SERVER_INFO, STATIC_LIST } from "./ModernResult.js"

const INSTRUCTIONS =
  "Trellis tracks projects, Lists, tasks and agent threads. Call list_projects first; project-scoped tools take projectId unless the URL has ?project=<id>."

/** Methods of the 2025 revisions that 2026-07-28 removed: there they are unknown. */
const LEGACY_ONLY = new Set(["initialize", "ping"])
/** Methods 2026-07-28 added. */
const MODERN_ONLY = new Set(["server/discover"])
/** What a 2026-07-28 client may cache: lists, and reads of Skill files. */
const CACHEABLE = new Set([
  "server/discover",
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "resources/directory/read",
  "skills/list",
  "skills/get"
])

const methodNotFound = (method: string) => new McpError({ code: ErrorCode.MethodNotFound, message: `Method not found: ${method}` })

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

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
  effect: Effect.gen(function*() {
    const config = yield* TrellisConfig
    const runner = yield* ToolRunner
    const projectContent = yield* McpProjectContent

    const described = runner.tools.map((tool) => {
      const outputSchema = Tool.outputJsonSchema(tool)
      return {
        tool,
        descriptor: {
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
        }
      }
    })
    const descriptors = described.map(({ descriptor }) => descriptor)

    const skillsExtension = yield* SkillsExtension

    /** The Skills extension (and the resources it reads files with) is declared when ?project= names a reachable project. */
    const capabilities = Effect.map(skillsExtension.served, (served) => ({
      tools: { listChanged: false },
      prompts: { listChanged: false },
      ...(served
        ? { resources: { subscribe: false, listChanged: false }, extensions: { [SKILLS_EXTENSION]: { directoryRead: true } } }
        : {})
    }))

    const initialize = (params: Record<string, unknown>) => {
      const requested = params["protocolVersion"]
      if (typeof requested !== "string") return Effect.fail(invalidParams("protocolVersion must be a string"))
      return Effect.map(capabilities, (declared) => ({
        protocolVersion: isLegacyProtocolVersion(requested) ? requested : LATEST_LEGACY_PROTOCOL_VERSION,
        capabilities: declared,
        serverInfo: SERVER_INFO,
        instructions: INSTRUCTIONS
      }))
    }

    const discover = Effect.map(capabilities, (declared) => ({
      supportedVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
      capabilities: declared,
      instructions: INSTRUCTIONS
    }))

    /** A method of the Skills extension: unknown to a connection it is not declared for. */
    const whenSkillsServed = <A>(method: string, serve: Effect.Effect<A, McpError, CurrentPrincipal | DefaultProject>) =>
      Effect.flatMap(skillsExtension.served, (served) => served ? serve : Effect.fail(methodNotFound(method)))

    /** Whether a list is the same for every caller of the URL, or depends on the key or the project. */
    const listHint = (access: ToolAccess, project: string | null): CacheHint =>
      project === null && access.toolsets === null && access.readOnly === null ? STATIC_LIST : CALLER_LIST

    const listTools = (params: Record<string, unknown>) =>
      Effect.flatMap(CurrentToolAccess, (access) => {
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
        return Effect.map(
          projectContent.skillIndex,
          Option.match({
            onNone: () => result(page),
            onSome: (index) =>
              result(page.map((tool) => tool.name === LoadSkill.name ? { ...tool, description: `${tool.description}\n\n${index}` } : tool))
          })
        )
      })

    const getPrompt = (params: Record<string, unknown>) => {
      const name = params["name"]
      if (typeof name !== "string") return Effect.fail(invalidParams("name must be a string"))
      return Effect.flatMap(
        projectContent.getPrompt(name),
        Option.match({
          onNone: () =>
            Effect.fail(invalidParams(
              `no prompt named ${name} in the connection's project (prompts come from the project of the URL's ?project=<project_id>)`
            )),
          onSome: Effect.succeed
        })
      )
    }

    const callTool = (params: Record<string, unknown>, era: Era) => {
      const name = params["name"]
      const args = params["arguments"]
      if (typeof name !== "string") return Effect.fail(invalidParams("name must be a string"))
      if (args !== undefined && !isObject(args)) return Effect.fail(invalidParams("arguments must be an object"))
      const tool = runner.tools.find((candidate) => candidate.name === name)
      const headers = era._tag === "Modern" && tool !== undefined
        ? parameterHeaderProblem(Tool.headerArguments(tool), args ?? {}, era.header)
        : undefined
      if (headers !== undefined) return Effect.fail(new McpError({ code: headers.code, message: headers.message, data: headers.data }))
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

    const dispatch = (
      method: string,
      params: Record<string, unknown>,
      era: Era
    ): Effect.Effect<unknown, McpError, CurrentPrincipal | DefaultProject | CurrentToolAccess> => {
      switch (method) {
        case "initialize":
          return initialize(params)
        case "server/discover":
          return discover
        case "ping":
          return Effect.succeed({})
        case "tools/list":
          return listTools(params)
        case "tools/call":
          return callTool(params, era)
        case "prompts/list":
          return Effect.map(projectContent.listPrompts, (prompts) => ({ prompts }))
        case "prompts/get":
          return getPrompt(params)
        case "skills/list":
          return whenSkillsServed(method, skillsExtension.list(params))
        case "skills/get":
          return whenSkillsServed(method, skillsExtension.get(params))
        case "resources/list":
          return whenSkillsServed(method, skillsExtension.listResources(params))
        case "resources/templates/list":
          return whenSkillsServed(method, skillsExtension.listResourceTemplates)
        case "resources/read":
          return whenSkillsServed(method, skillsExtension.read(params))
        case "resources/directory/read":
          return whenSkillsServed(method, skillsExtension.readDirectory(params))
        default:
          return Effect.fail(methodNotFound(method))
      }
    }

    /** Which results a 2026-07-28 client may cache, and for whom. */
    const cacheHint = (method: string) =>
      Effect.gen(function*() {
        if (!CACHEABLE.has(method)) return undefined
        if (method !== "tools/list" && method !== "server/discover") return CALLER_LIST
        return listHint(yield* CurrentToolAccess, yield* DefaultProject)
      })

    /** Answers one JSON-RPC request in the revision `era` names; fails with the JSON-RPC error to send instead. */
    const handle = (
      method: string,
      rawParams: unknown,
      era: Era
    ): Effect.Effect<unknown, McpError, CurrentPrincipal | DefaultProject | CurrentToolAccess> => {
      const params = isObject(rawParams) ? rawParams : {}
      if (era._tag === "Legacy") return MODERN_ONLY.has(method) ? Effect.fail(methodNotFound(method)) : dispatch(method, params, era)
      if (LEGACY_ONLY.has(method)) return Effect.fail(methodNotFound(method))
      return Effect.zipWith(dispatch(method, params, era), cacheHint(method), modernResult)
    }

    return { handle, descriptors } as const
  }),
  dependencies: [ToolRunner.Default, McpProjectContent.Default, SkillsExtension.Default]
}) {}
