import { Cause, Effect, Either, Exit, Option, Runtime } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { BodyTooLarge, BodyUnreadable } from "./Body.js"
import type { Reply } from "./RequestGuard.js"

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
 * Writes a whole reply; with a length, node sends the body in the same write as the headers.
 * A reply saying `connection: close` makes node close the socket once it is sent, unread body and all.
 */
export const writeReply = (response: ServerResponse, reply: Reply) =>
  Effect.sync(() => {
    const body = Buffer.from(reply.body, "utf8")
    response.writeHead(reply.status, { ...reply.headers, "content-length": String(body.length) }).end(body)
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
