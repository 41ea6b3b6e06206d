import { HttpClient, HttpClientRequest, HttpLayerRouter, HttpServer } from "@effect/platform"
import { NodeHttpClient, NodeHttpServer } from "@effect/platform-node"
import type { SqlClient } from "@effect/sql"
import { Context, Effect, Layer } from "effect"
import type { ProjectId } from "../../catalog/domain/Ids.js"
import * as Trellis from "../../src/server/Trellis.js"
import type { TrellisConfigShape } from "../../src/platform/TrellisConfig.js"
import { serveNode } from "../../src/server/NodeServer.js"
import { TestDatabase } from "./TestDatabase.js"
import { mcpClient } from "./ToolCalls.js"

/**
 * How the routes are served: `platform` is the @effect/platform router (what embedders get);
 * `node` is `trellis serve`'s listener, with `/api/mcp` on its own fast path.
 */
export type Transport = "platform" | "node"

/** The test server's port on 127.0.0.1, for tests that speak raw HTTP over a socket. */
export class ServerPort extends Context.Tag("test/ServerPort")<ServerPort, number>() {}

const NodeTransport = Layer.unwrapScoped(Effect.gen(function*() {
  const address = yield* serveNode(Trellis.routes, { host: "127.0.0.1", port: 0 })
  return Layer.merge(
    Layer.effect(
      HttpClient.HttpClient,
      Effect.map(HttpClient.HttpClient, HttpClient.mapRequest(HttpClientRequest.prependUrl(`http://127.0.0.1:${address.port}`)))
    ).pipe(Layer.provide(NodeHttpClient.layerUndici)),
    Layer.succeed(ServerPort, address.port)
  )
}))

const platformPort = Layer.effect(
  ServerPort,
  Effect.map(HttpServer.HttpServer, (server) => server.address._tag === "TcpAddress" ? server.address.port : 0)
)

/** The backend served on a random local port, with an HttpClient pointed at it, on a fresh database. */
export const TestServer = (config: Partial<TrellisConfigShape> = {}, transport: Transport = "platform") => {
  const server: Layer.Layer<
    HttpClient.HttpClient | ServerPort,
    unknown,
    Layer.Layer.Success<ReturnType<typeof Trellis.services>> | SqlClient.SqlClient
  > = transport === "platform"
    ? HttpLayerRouter.serve(Trellis.routes, { disableLogger: true }).pipe(
      Layer.provideMerge(platformPort),
      Layer.provideMerge(NodeHttpServer.layerTest)
    )
    : NodeTransport
  return Layer.provideMerge(server, Trellis.services(config)).pipe(Layer.provideMerge(TestDatabase))
}

/** A project agent made the way a member makes one: through `create_project_agent`. */
export const createProjectAgent = (key: string, projectId: ProjectId | string, name: string, prompt?: string) =>
  mcpClient(key).call("create_project_agent", {
    projectId,
    name,
    appearance: { color: "blue" },
    ...(prompt === undefined ? {} : { prompt })
  }).pipe(
    Effect.map((created) => created.projectAgentId),
    Effect.orDie
  )

export interface RpcResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly text: string
  readonly json: unknown
}

/** POSTs a raw body to `/api/mcp` (or another path/method) and returns status, headers and body. */
export const rawRequest = (options: {
  readonly method?: "POST" | "GET" | "DELETE"
  readonly path?: string
  readonly body?: string
  readonly headers?: Record<string, string>
}) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const request = HttpClientRequest.make(options.method ?? "POST")(options.path ?? "/api/mcp").pipe(
      HttpClientRequest.setHeaders({ "content-type": "application/json", ...options.headers }),
      options.body === undefined ? (r) => r : HttpClientRequest.bodyText(options.body, "application/json")
    )
    const response = yield* client.execute(request)
    const text = yield* response.text
    const json: unknown = text === "" ? undefined : JSON.parse(text)
    return { status: response.status, headers: response.headers, text, json } satisfies RpcResponse
  })

/** Sends one JSON-RPC message with a Bearer key. */
export const rpc = (key: string, message: unknown, options: { readonly path?: string; readonly headers?: Record<string, string> } = {}) =>
  rawRequest({
    body: JSON.stringify(message),
    headers: { authorization: `Bearer ${key}`, ...options.headers },
    ...(options.path === undefined ? {} : { path: options.path })
  })

/**
 * Sends one `tools/call` and returns the HTTP exchange itself (status, headers, body), for tests of
 * the transport: status codes, rate limits, malformed input. Tests of what a tool answers use
 * ToolCalls.ts (the MCP client), or the helpers named after it in TaskTools.ts and ThreadFixtures.ts.
 */
export const callTool = (key: string, name: string, args?: unknown, options: { readonly path?: string } = {}) =>
  rpc(key, { jsonrpc: "2.0", id: 1, method: "tools/call", params: args === undefined ? { name } : { name, arguments: args } }, options)
