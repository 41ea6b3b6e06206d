import * as Etag from "@effect/platform/Etag"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { NodeContext, NodeHttpPlatform, NodeHttpServer, NodeHttpServerRequest } from "@effect/platform-node"
import { Context, Effect, Either, FiberId, Layer, Option, Runtime, Schema } from "effect"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { ThreadsGroup } from "../../catalog/bridge/ThreadsApi.js"
import type { Principal } from "../platform/auth/Principal.js"
import { makeAgentFastEndpoints } from "../bridge/AgentHttp.js"
import { EventStreams, parseCursor } from "../threads/EventStreams.js"
import { BodyUnreadable } from "../platform/http/Body.js"
import { type FastSseHandlerOf, fastSseRoute, makeFastSseEndpoints } from "../platform/http/FastStreams.js"
import { McpHttp } from "./McpHttp.js"
import { TrellisConfig } from "../platform/TrellisConfig.js"
import { MCP_PATH } from "./McpRoute.js"
import {
  admissions,
  type Body,
  closesConnection,
  headerOf,
  makeResponder,
  readBody,
  writeReply,
  writeSse
} from "../platform/http/NodeIo.js"
import { hasBody, pathOf, type Reply, RequestGuard } from "../platform/http/RequestGuard.js"

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

/**
 * SSE streams being opened at once (guard, access check, subscription); the others wait their turn
 * as a request and a response, before any work is done for them. A thousand opened together all in
 * progress at once held each its fiber, contexts and spans through the whole burst: 60 MB promoted
 * to the old generation per thousand, kept by the process (RSS) long after.
 */
const SSE_OPENINGS = 16

/** How long a connection answered before its body ended keeps discarding what still comes. */
const LINGER_MS = 2_000

/**
 * An answer that said `connection: close` because the body will not be read (NodeIo.closesConnection):
 * the server half-closes after it and discards what is already in flight for at most LINGER_MS.
 * Node itself would destroy the socket as soon as the answer is flushed; with body bytes still
 * arriving that resets the connection, and a reset makes the client's kernel drop the answer it
 * has not read yet.
 */
const lingerWhenAnsweredEarly = (request: IncomingMessage, response: ServerResponse) => {
  if (!hasBody(headerOf(request))) return
  response.once("finish", () => {
    if (!closesConnection(request)) return
    const socket = request.socket
    socket.removeListener("finish", socket.destroy)
    request.resume()
    socket.end()
    setTimeout(() => socket.destroy(), LINGER_MS).unref()
  })
}

/**
 * How long past its advertised `Keep-Alive: timeout=5` an idle connection stays open (node's own
 * margin is 1 s). A client counts the advertised time (undici less 2 s) from when it read the last
 * answer; one whose event loop is busy reads it seconds after it went out, and sends its next
 * request on a connection the server closed the moment before: that request is reset unanswered
 * (ECONNRESET), and a POST is not retried.
 */
const KEEP_ALIVE_GRACE_MS = 60_000

/** Re-arms the idle timer node has just set on a connection kept alive after an answer. */
const keepIdleConnectionsPastTheirAdvertisedTime = (server: Server, response: ServerResponse) =>
  response.once("finish", () => {
    const socket = response.req.socket
    if ((socket.timeout ?? 0) > 0) socket.setTimeout(server.keepAliveTimeout + KEEP_ALIVE_GRACE_MS)
  })

/** The router's answers get the same `connection: close` as the fast paths' when they go out early. */
const closeWhenAnsweredEarly: HttpApp.PreResponseHandler = (request, response) =>
  Effect.sync(() =>
    closesConnection(NodeHttpServerRequest.toIncomingMessage(request))
      ? HttpServerResponse.setHeader(response, "connection", "close")
      : response
  )

/**
 * A thread's event stream, as the HttpApi group's handler serves it (AgentHttp.ts, "events"): a
 * thousand browser tabs open it at once on one thread (issue 27 §2).
 */
const makeSseFastEndpoints = Effect.map(EventStreams, (streams) =>
  makeFastSseEndpoints([
    fastSseRoute(ThreadsGroup, "events", ({ header, path, principal, urlParams }) =>
      streams.threadEventsBody(
        principal,
        path.threadId,
        parseCursor(urlParams.after ?? header("last-event-id")),
        urlParams.batch === "1"
      ))
  ]))

/**
 * Serves the backend on `node:http`: `/api/mcp` straight to the MCP handler, the CLI's per-thread
 * bridge calls and a thread's event stream straight to theirs (the hot paths), every other route
 * through @effect/platform's router. The RequestGuard decides every request from its headers
 * before a byte of its body is read: on the hot paths here, on the router through its
 * GuardMiddleware. A body must arrive (and headers before it) within `requestTimeoutMs`; a
 * response is not bounded, so SSE streams live on. Closes gracefully with the scope.
 */
export const serveNode = <A, E, R>(
  routes: Layer.Layer<A, E, R>,
  options: { readonly host: string; readonly port: number }
) =>
  Effect.gen(function*() {
    const config = yield* TrellisConfig
    const guard = yield* RequestGuard
    const mcp = yield* McpHttp
    // The HttpApi routes serve files (OpenAPI) through the platform's services.
    const platform = Layer.mergeAll(NodeHttpPlatform.layer, Etag.layerWeak, NodeContext.layer)
    const app = Effect.zipRight(
      HttpApp.appendPreResponseHandler(closeWhenAnsweredEarly),
      yield* HttpLayerRouter.toHttpEffect(routes.pipe(Layer.provide(platform)))
    )
    const platformListener = yield* NodeHttpServer.makeHandler(app)
    const agentFastPath = yield* makeAgentFastEndpoints
    const sseFastPath = yield* makeSseFastEndpoints
    // Each request runs on the server's fiber refs (its logger and tracer) but an empty context: the
    // handlers here took their services when they were built (their types require none), and a
    // per-request value provided on the full context copies all of the application's services, per
    // request (npm run bench's allocations per call).
    const runtime = yield* Effect.map(
      Effect.runtime<never>(),
      (built) => Runtime.make({ context: Context.empty(), fiberRefs: built.fiberRefs, runtimeFlags: built.runtimeFlags })
    )
    const respond = makeResponder(runtime)
    const runFork = Runtime.runFork(runtime)

    /** Guards, reads the body (cut at the limit) and answers with `handler`'s reply. */
    const guarded = (
      request: IncomingMessage,
      response: ServerResponse,
      handler: (principal: Principal, body: Either.Either<string, BodyUnreadable>) => Effect.Effect<Reply>
    ) => {
      const guardRequest = { method: request.method ?? "GET", url: request.url ?? "/", header: headerOf(request) }
      const answer = (principal: Principal) => (body: Body) =>
        respond(
          response,
          Either.isLeft(body) && body.left._tag === "BodyTooLarge"
            ? writeReply(response, guard.tooLarge(guardRequest))
            : handler(principal, Either.mapLeft(body, (error) => new BodyUnreadable({ cause: error }))).pipe(
              Effect.flatMap((reply) => writeReply(response, reply))
            )
        )
      respond(
        response,
        Effect.flatMap(guard.check(guardRequest), (verdict) =>
          Either.match(verdict, {
            onLeft: (refusal) => writeReply(response, refusal),
            onRight: ({ principal }) =>
              Option.match(principal, {
                onNone: () => Effect.dieMessage(`${guardRequest.url} was admitted without an API key`),
                onSome: (principal) => Effect.sync(() => readBody(request, config.maxBodyBytes, answer(principal)))
              })
          }))
      )
    }

    const openings = admissions(SSE_OPENINGS)

    /** Guards, then answers with the endpoint's SSE body (or its reply) for as long as the client stays. */
    const streamed = (request: IncomingMessage, response: ServerResponse, handler: FastSseHandlerOf) => {
      // A GET's body, should one come, is not read: it is discarded.
      request.resume()
      openings(response, (opened) => stream(request, response, handler, opened))
    }

    const stream = (request: IncomingMessage, response: ServerResponse, handler: FastSseHandlerOf, opened: () => void) => {
      const guardRequest = { method: request.method ?? "GET", url: request.url ?? "/", header: headerOf(request) }
      const answer = Effect.flatMap(guard.check(guardRequest), (verdict) =>
        Either.match(verdict, {
          onLeft: (refusal) => writeReply(response, refusal),
          onRight: ({ principal }) =>
            Option.match(principal, {
              onNone: () => Effect.dieMessage(`${guardRequest.url} was admitted without an API key`),
              onSome: (principal) =>
                Effect.flatMap(
                  handler(principal, new URL(guardRequest.url, "http://localhost"), headerOf(request)),
                  Either.match({
                    onLeft: (reply) => writeReply(response, reply),
                    onRight: (open) => writeSse(response, open, opened)
                  })
                )
            })
        }))
      const fiber = runFork(answer.pipe(
        Effect.catchAllCause((cause) =>
          Effect.zipRight(
            Effect.logError(`${guardRequest.method} ${pathOf(guardRequest.url)} failed`, cause),
            Effect.sync(() => (response.headersSent ? response.end() : response.writeHead(500).end()))
          )
        ),
        Effect.ensuring(Effect.sync(opened))
      ))
      // The client went away while the stream was being opened: the opening ends (writeSse hands
      // an open stream to a fiber of its own, which the same event ends). Once answered, the
      // request's fiber is not kept by the response.
      const leave = () => fiber.unsafeInterruptAsFork(FiberId.none)
      response.once("close", leave)
      fiber.addObserver(() => response.off("close", leave))
    }

    const server = createServer({
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: config.requestTimeoutMs,
      // Node checks the two timeouts this often (30 s by default, which would let a 1 s timeout run 30 s).
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(config.requestTimeoutMs / 4)))
    }, (request, response) => {
      keepIdleConnectionsPastTheirAdvertisedTime(server, response)
      lingerWhenAnsweredEarly(request, response)
      const method = request.method ?? "GET"
      const path = pathOf(request.url ?? "/")
      if (path === MCP_PATH) {
        return guarded(request, response, (principal, body) =>
          mcp.handle({
            method,
            url: request.url ?? "/",
            header: headerOf(request),
            body: () => body
          }, principal))
      }
      const sse = sseFastPath(method, path)
      if (sse !== undefined) return streamed(request, response, sse)
      const fast = agentFastPath(method, path)
      if (fast === undefined) return platformListener(request, response)
      guarded(request, response, (principal, body) =>
        Either.match(body, {
          onLeft: () => Effect.succeed({ status: 400, headers: {}, body: "" }),
          onRight: (text) => fast(principal, text)
        }))
    })
    return yield* Effect.acquireRelease(listen(server, options.host, options.port), () => close(server))
  })
