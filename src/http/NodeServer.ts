import { Etag, HttpLayerRouter } from "@effect/platform"
import { NodeContext, NodeHttpPlatform, NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer, Schema } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { makeAgentFastEndpoints } from "../bridge/AgentHttp.js"
import { makeMcpNodeListener } from "./McpNodeListener.js"
import { MCP_PATH } from "./McpRoute.js"

export class ListenError extends Schema.TaggedError<ListenError>()("ListenError", { message: Schema.String }) {}

const listen = (server: Server, host: string, port: number) =>
  Effect.async<AddressInfo, ListenError>((resume) => {
    const onError = (error: Error) =>
      resume(Effect.fail(new ListenError({ message: `Cannot listen on ${host}:${port}: ${error.message}` })))
    server.once("error", onError)
    server.listen(port, host, () => {
      server.off("error", onError)
      const address = server.address()
      if (address === null || typeof address === "string") {
        return resume(Effect.fail(new ListenError({ message: `Listening on ${host}:${port} gave no TCP address` })))
      }
      resume(Effect.succeed(address))
    })
  })

const close = (server: Server) =>
  Effect.async<void>((resume) => {
    server.close(() => resume(Effect.void))
    server.closeIdleConnections()
    // Clients holding keep-alive connections get a few seconds to finish, then are cut.
    setTimeout(() => server.closeAllConnections(), 5_000).unref()
  })

const pathOf = (url: string | undefined) => {
  const query = url?.indexOf("?") ?? -1
  return query === -1 ? url : url?.slice(0, query)
}

/**
 * Serves the backend on `node:http`: `/api/mcp` straight to the MCP handler and the CLI's per-thread
 * bridge calls straight to theirs (the hot paths), every other route through @effect/platform's
 * router. Closes gracefully with the scope.
 */
export const serveNode = <A, E, R>(
  routes: Layer.Layer<A, E, R>,
  options: { readonly host: string; readonly port: number; readonly maxBodyBytes: number }
) =>
  Effect.gen(function* () {
    // The HttpApi routes serve files (OpenAPI) through the platform's services.
    const platform = Layer.mergeAll(NodeHttpPlatform.layer, Etag.layerWeak, NodeContext.layer)
    const app = yield* HttpLayerRouter.toHttpEffect(routes.pipe(Layer.provide(platform)))
    const platformListener = yield* NodeHttpServer.makeHandler(app)
    const mcpListener = yield* makeMcpNodeListener(options.maxBodyBytes)
    const agentFastPath = yield* makeAgentFastEndpoints(options.maxBodyBytes)
    const server = createServer((request, response) => {
      if (pathOf(request.url) === MCP_PATH) return mcpListener(request, response)
      if (!agentFastPath(request, response)) platformListener(request, response)
    })
    return yield* Effect.acquireRelease(listen(server, options.host, options.port), () => close(server))
  })
