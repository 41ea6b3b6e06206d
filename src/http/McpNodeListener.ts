import { Cause, Effect, Exit, Option, Runtime } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { McpHttp, type McpHttpResponse } from "../mcp/McpHttp.js"
import { headerOf, readBody } from "./NodeBody.js"

const write = (response: ServerResponse, reply: McpHttpResponse) =>
  Effect.sync(() => {
    const body = Buffer.from(reply.body, "utf8")
    // With a length, node sends the body in the same write as the headers instead of chunking it.
    response.writeHead(reply.status, { ...reply.headers, "content-length": String(body.length) }).end(body)
  })

/**
 * `/api/mcp` as a plain `node:http` listener: the same handler as the HttpLayerRouter route,
 * without the general-purpose HTTP stack in between, because this endpoint is the hot path.
 * A request whose work never waits (a cached key, a tool that needs no database) completes
 * synchronously; one that does wait goes on in its fiber, which writes the response itself.
 */
export const makeMcpNodeListener = (maxBodyBytes: number) =>
  Effect.gen(function* () {
    const mcp = yield* McpHttp
    const runSync = Runtime.runSyncExit(yield* Effect.runtime<never>())
    return (request: IncomingMessage, response: ServerResponse) =>
      readBody(request, maxBodyBytes, (body) => {
        const exit = runSync(
          mcp.handle({ method: request.method ?? "GET", url: request.url ?? "/", header: headerOf(request), body: () => body })
            .pipe(Effect.flatMap((reply) => write(response, reply)))
        )
        const wentAsync = Exit.isFailure(exit) && Option.exists(Cause.dieOption(exit.cause), Runtime.isAsyncFiberException)
        if (Exit.isFailure(exit) && !wentAsync) response.writeHead(500).end()
      })
  })
