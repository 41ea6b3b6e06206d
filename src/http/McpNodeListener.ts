import { Effect } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { McpHttp } from "../mcp/McpHttp.js"
import { headerOf, makeResponder, readBody, writeReply } from "./NodeIo.js"

/**
 * `/api/mcp` as a plain `node:http` listener: the same handler as the HttpLayerRouter route,
 * without the general-purpose HTTP stack in between, because this endpoint is the hot path.
 * A request whose work never waits (a cached key, a tool that needs no database) completes
 * synchronously; one that does wait goes on in its fiber, which writes the response itself.
 */
export const makeMcpNodeListener = (maxBodyBytes: number) =>
  Effect.gen(function* () {
    const mcp = yield* McpHttp
    const respond = makeResponder(yield* Effect.runtime<never>())
    return (request: IncomingMessage, response: ServerResponse) =>
      readBody(request, maxBodyBytes, (body) =>
        respond(
          response,
          mcp.handle({ method: request.method ?? "GET", url: request.url ?? "/", header: headerOf(request), body: () => body })
            .pipe(Effect.flatMap((reply) => writeReply(response, reply.status, reply.headers, reply.body)))
        ))
  })
