import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Effect, Redacted } from "effect"
import type { ArgumentsOf, ToolName } from "../../catalog/McpClient.js"

/**
 * Calls one of Trellis's tools over MCP with the typed client. The client's module is loaded on
 * first use: it brings every tool's Schemas (about 16 MB), which `trellis agent start`, running
 * for days, holds only once it needs them (a fresh session's history, a worktree's thread).
 */
export const callTool = <N extends ToolName>(mcp: { readonly url: string; readonly apiKey: string }, name: N, args: ArgumentsOf<N>) =>
  Effect.promise(() => import("../../catalog/McpClient.js")).pipe(
    Effect.flatMap((McpClient) => McpClient.make({ url: mcp.url, apiKey: Redacted.make(mcp.apiKey) }).call(name, args)),
    Effect.provide(FetchHttpClient.layer)
  )
