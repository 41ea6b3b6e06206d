import { Cause, Effect, Either, Exit, FiberId, Option, Runtime, Scope } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { BodyTooLarge, BodyUnreadable } from "./Body.js"
import { hasBody, type Reply } from "./RequestGuard.js"
import { CONNECTED_BYTES, type SseBody, SSE_HEADERS } from "./Sse.js"

/** What the `node:http` fast paths share: reading the body, writing the reply, running the handler. */

export type Body = Either.Either<string, BodyTooLarge | BodyUnreadable>

/**
 * Reads the whole body. Past `maxBytes` it stops: what was read is dropped, the stream is paused
 * (so the socket is no longer read) and BodyTooLarge is reported at once.
 */
export const readBody = (request: IncomingMessage, maxBytes: number, done: (body: Body) => void) => {
  const chunks: Array<Buffer> = []
  let size = 0
  let finished = false
  const finish = (body: Body) => {
    if (finished) return
    finished = true
    done(body)
  }
  request.on("data", (chunk: Buffer) => {
    size += chunk.length
    if (size <= maxBytes) return void chunks.push(chunk)
    chunks.length = 0
    request.pause()
    finish(Either.left(new BodyTooLarge()))
  })
  request.on("end", () => finish(Either.right(Buffer.concat(chunks).toString("utf8"))))
  request.on("error", (cause) => finish(Either.left(new BodyUnreadable({ cause }))))
}

export const headerOf = (request: IncomingMessage) => (name: string) => {
  const value = request.headers[name]
  return Array.isArray(value) ? value.join(", ") : value
}

/**
 * A body the server reads to its end when it answers before reading it (a refusal decided from
 * the headers): node discards it and the connection serves the client's next request. Larger or
 * chunked bodies are never read: the connection closes instead.
 */
export const DRAIN_LIMIT_BYTES = 64 * 1024

const drainable = (header: (name: string) => string | undefined): boolean => {
  const length = header("content-length")
  return header("transfer-encoding") === undefined && length !== undefined && Number(length) <= DRAIN_LIMIT_BYTES
}

/**
 * An answer that goes out before the request's body has arrived, with a body too large to drain
 * (or cut at the limit): the server will not read the rest, so the connection cannot carry another
 * request and the answer must say `connection: close`, or a keep-alive client would send its next
 * request on a socket the server is closing.
 */
export const closesConnection = (request: IncomingMessage): boolean => {
  const header = headerOf(request)
  return !request.complete && hasBody(header) && !drainable(header)
}

/** Writes a whole reply; with a length, node sends the body in the same write as the headers. */
export const writeReply = (response: ServerResponse, reply: Reply) =>
  Effect.sync(() => {
    const body = Buffer.from(reply.body, "utf8")
    const closing = closesConnection(response.req) ? { connection: "close" } : {}
    response.writeHead(reply.status, { ...reply.headers, ...closing, "content-length": String(body.length) }).end(body)
  })

/**
 * Runs a handler that writes its own reply: one whose work never waits completes synchronously;
 * one that waits goes on in its fiber. A synchronous failure still gets a bare 500.
 */
export const makeResponder = <R>(runtime: Runtime.Runtime<R>) => {
  const runSync = Runtime.runSyncExit(runtime)
  return (response: ServerResponse, handler: Effect.Effect<void, unknown, R>) => {
    const exit = runSync(handler)
    const wentAsync = Exit.isFailure(exit) && Option.exists(Cause.dieOption(exit.cause), Runtime.isAsyncFiberException)
    if (Exit.isFailure(exit) && !wentAsync) response.writeHead(500).end()
  }
}

/**
 * At most `size` of the given starts run at once, the others in their order of arrival; each gets
 * a `done` to call (once is enough) when it no longer counts. A response closed while waiting is
 * never started.
 */
export const admissions = (size: number) => {
  let running = 0
  const waiting: Array<() => void> = []
  const next = () => {
    running--
    const start = waiting.shift()
    if (start !== undefined) start()
  }
  return (response: ServerResponse, start: (done: () => void) => void) => {
    const run = () => {
      running++
      if (response.destroyed) return next()
      let counted = true
      start(() => {
        if (counted) next()
        counted = false
      })
    }
    if (running < size) run()
    else waiting.push(run)
  }
}

/** Resolves once the socket takes more (or the response is gone: its close ends the writer anyway). */
const drained = (response: ServerResponse) =>
  Effect.async<void>((resume) => {
    const go = () => resume(Effect.void)
    response.once("drain", go).once("close", go)
    return Effect.sync(() => response.off("drain", go).off("close", go))
  })

/**
 * Streams an SSE body as the response: opens it, writes the headers and the opening comment (then
 * calls `opened`), and leaves the frames to a fiber of its own, which writes each as it comes
 * until the body ends (the response ends) or the client goes away (the fiber is interrupted and
 * the body's scope closes). That fiber starts with nothing on its stack: the request's fiber would
 * have kept every frame of the request's handling (guard, handler, scopes) for as long as the
 * stream lives. A frame the socket cannot take yet waits for it to drain: a slow reader holds back
 * its own stream only.
 */
export const writeSse = (response: ServerResponse, open: Effect.Effect<SseBody, never, Scope.Scope>, opened: () => void) =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(Scope.make(), (scope) =>
      restore(Scope.extend(open, scope)).pipe(
        Effect.onExit((exit) => (Exit.isFailure(exit) ? Scope.close(scope, exit) : Effect.void)),
        Effect.flatMap((body) => {
          response.writeHead(200, SSE_HEADERS)
          response.write(CONNECTED_BYTES)
          opened()
          const send = (bytes: Uint8Array) => (response.write(bytes) ? Effect.void : drained(response))
          const frames = Effect.forever(Effect.flatMap(body.next, send)).pipe(
            Effect.catchAll(() => Effect.sync(() => response.end())),
            Effect.interruptible,
            Effect.ensuring(Scope.close(scope, Exit.void))
          )
          // A root fiber, not a child of this one: a forked fiber keeps its parent (the request's
          // fiber, done by then) for as long as it lives.
          return Effect.map(Effect.runtime<never>(), (runtime) => {
            const fiber = Runtime.runFork(runtime)(frames)
            const leave = () => fiber.unsafeInterruptAsFork(FiberId.none)
            if (response.destroyed) leave()
            else response.once("close", leave)
          })
        })
      ))
  )
