/**
 * The official MCP TypeScript SDK serving an equivalent `list_task_types`, stateless, with a new
 * McpServer and transport per request as the SDK requires in stateless mode (CVE-2026-25536).
 * Run as a child process by run.ts; env BENCH_API_KEY and BENCH_TASK_TYPES (JSON, from Trellis).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import * as z from "zod/v4"
import { listenAndAnnounce, requiredEnv } from "./ChildProcess.js"
import { MCP_PATH } from "./Request.js"

const TaskType = z.object({ key: z.string(), name: z.string().describe("Display name"), builtIn: z.boolean() })
const Output = z.object({ taskTypes: z.array(TaskType) })

const expectedAuthorization = `Bearer ${requiredEnv("BENCH_API_KEY")}`
const structured = Output.parse(JSON.parse(requiredEnv("BENCH_TASK_TYPES")))

const buildServer = (): McpServer => {
  const server = new McpServer({ name: "sdk-bench", version: "0.1.0" })
  server.registerTool("list_task_types", {
    title: "List task types",
    description: "Lists the task types available to the key.",
    inputSchema: {},
    outputSchema: Output.shape,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }
  }, () => ({
    content: [{ type: "text", text: JSON.stringify(structured) }],
    structuredContent: structured
  }))
  return server
}

const replyError = (response: ServerResponse, status: number, code: number, message: string): void => {
  response.writeHead(status, { "content-type": "application/json" })
    .end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }))
}

const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
  if (request.url !== MCP_PATH) return replyError(response, 404, -32601, "Not found")
  if (request.method !== "POST") return replyError(response, 405, -32000, "Method not allowed")
  if (request.headers.authorization !== expectedAuthorization) return replyError(response, 401, -32001, "Unauthorized")

  const server = buildServer()
  // Stateless: no sessionIdGenerator. (exactOptionalPropertyTypes rejects an explicit
  // `sessionIdGenerator: undefined`; the SDK treats absence the same way.)
  const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true })
  response.on("close", () => {
    void transport.close()
    void server.close()
  })
  await server.connect(transport)
  await transport.handleRequest(request, response)
}

const httpServer = createServer((request, response) => {
  handle(request, response).catch((error: unknown) => {
    process.stderr.write(`sdk server: ${String(error)}\n`)
    if (!response.headersSent) replyError(response, 500, -32603, "Internal error")
  })
})

listenAndAnnounce(httpServer)
