import { expect } from "@effect/vitest"
import { Effect, Redacted, Schema } from "effect"
import { ToolErrorBody } from "../../catalog/domain/Errors.js"
import * as McpClient from "../../catalog/McpClient.js"
import { Catalog } from "../../catalog/index.js"
import type * as Tool from "../../catalog/Tool.js"

/**
 * The tests' tool calls, all over the contract's MCP client (`catalog/McpClient.ts`) against the
 * test server. `mcpClient(key).call` when the arguments are valid and the result is to be decoded
 * with the tool's own Schema; the helpers below, over its `callRaw`, when a test sends anything it
 * likes (invalid arguments on purpose) and reads the answer as it came. TaskTools.ts,
 * ThreadFixtures.ts and FakeCli.ts give these their familiar names.
 */

/** Where the client connects: `/api/mcp`, or another path such as `/api/mcp?project=<id>`. */
export type Scope = { readonly path?: string }

/** The connection URL with `?project=`, as an MCP client would be configured. */
export const scopedTo = (projectId: string): Scope => ({ path: `/api/mcp?project=${projectId}` })

/** The typed MCP client of the test server (its HttpClient resolves the path) with an API key. */
export const mcpClient = (key: string, scope: Scope = {}) => McpClient.make({ url: scope.path ?? "/api/mcp", apiKey: Redacted.make(key) })

/** A tool's answer as Trellis sends it: text content always, and the result object or `{ error }` beside it. */
const ToolAnswer = Schema.Struct({
  content: Schema.Array(Schema.Struct({ type: Schema.String, text: Schema.String })),
  structuredContent: Schema.optional(Schema.Unknown),
  isError: Schema.optional(Schema.Boolean)
})
export type ToolAnswer = typeof ToolAnswer.Type

export type ToolError = typeof ToolErrorBody.Type
const ErrorEnvelope = Schema.Struct({ error: ToolErrorBody })

/** Decodes `value` with `schema`, refusing properties the Schema does not declare; a mismatch fails the test. */
export const decodeStrict = <A, I>(schema: Schema.Schema<A, I>, value: unknown, label: string) =>
  Schema.decodeUnknown(schema, { onExcessProperty: "error", errors: "all" })(value).pipe(
    Effect.catchAll((error) => Effect.dieMessage(`${label}: unexpected shape ${JSON.stringify(value)}\n${error.message}`))
  )

/**
 * Calls a tool with any arguments and answers its result as it came, a refusal included. The call
 * itself must reach the tool (HTTP 200 and a JSON-RPC result, not an error), else the test fails.
 */
export const answer = (key: string, name: string, args: unknown, scope: Scope = {}) =>
  Effect.gen(function*() {
    const label = `${name} ${JSON.stringify(args)}`
    const raw = yield* mcpClient(key, scope).callRaw(name, args).pipe(
      Effect.catchAll((error) => Effect.dieMessage(`${label}: ${error.message}`))
    )
    // Kept whole: some tests search the entire answer for data it must not leak.
    return yield* Schema.decodeUnknown(ToolAnswer, { onExcessProperty: "preserve" })(raw).pipe(
      Effect.catchAll((error) => Effect.dieMessage(`${label}: not a Trellis tool result ${JSON.stringify(raw)}\n${error.message}`))
    )
  })

/** A tool call that must succeed: its result object as it came (undefined for a result that is not an object, such as null). */
export const succeeds = (key: string, name: string, args: unknown, scope: Scope = {}) =>
  Effect.map(answer(key, name, args, scope), (result) => {
    expect(result.isError, `${name} ${JSON.stringify(args)} → ${JSON.stringify(result.structuredContent)}`).toBeUndefined()
    return result.structuredContent
  })

/** A result decoded with its tool's output Schema; a result off the Schema fails the test. */
const decodeOutput = <T extends Tool.Any>(tool: T, content: unknown): Effect.Effect<Tool.OutputOf<T>> =>
  Schema.decodeUnknown(tool.output)(content).pipe(
    Effect.catchAll((error) =>
      Effect.dieMessage(`${tool.name}: a result off its output Schema ${JSON.stringify(content)}\n${error.message}`)
    )
  )

/**
 * A tool call that must succeed, with any arguments (a test may send what it likes), and its result
 * decoded with the tool's output Schema: the result's type is the tool's.
 */
export const succeedsAs = <N extends McpClient.ToolName>(key: string, name: N, args: unknown, scope: Scope = {}) =>
  Effect.gen(function*() {
    const tool = Catalog.find(McpClient.isNamed(name))
    if (tool === undefined) return yield* Effect.dieMessage(`${name} is not a tool of the catalog`)
    return yield* decodeOutput(tool, yield* succeeds(key, name, args, scope))
  })

/** A tool call that must succeed with the result null, which is text only (structuredContent is an object). */
export const succeedsWithNull = (key: string, name: string, args: unknown, scope: Scope = {}) =>
  Effect.map(answer(key, name, args, scope), (result) => {
    expect(result.isError, `${name} ${JSON.stringify(args)} → ${result.content[0]?.text}`).toBeUndefined()
    expect(result.structuredContent).toBeUndefined()
    expect(result.content).toEqual([{ type: "text", text: "null" }])
  })

/** A tool call that must be refused with a tool error: its `{ code, message }`. */
export const refuses = (key: string, name: string, args: unknown, scope: Scope = {}) =>
  Effect.gen(function*() {
    const result = yield* answer(key, name, args, scope)
    expect(result.isError, `${name} ${JSON.stringify(args)} should fail → ${JSON.stringify(result.structuredContent)}`).toBe(true)
    const { error } = yield* decodeStrict(ErrorEnvelope, result.structuredContent, `${name} error`)
    return error
  })
