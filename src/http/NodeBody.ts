import { Either } from "effect"
import type { IncomingMessage } from "node:http"
import { BodyTooLarge, BodyUnreadable } from "../mcp/McpHttp.js"

/** Request bodies and headers on the `node:http` fast paths. */

export type Body = Either.Either<string, BodyTooLarge | BodyUnreadable>

/** Reads the whole body, keeping at most `maxBytes`; the rest is drained and discarded. */
export const readBody = (request: IncomingMessage, maxBytes: number, done: (body: Body) => void) => {
  const chunks: Array<Buffer> = []
  let size = 0
  request.on("data", (chunk: Buffer) => {
    size += chunk.length
    if (size <= maxBytes) chunks.push(chunk)
  })
  request.on("end", () =>
    done(size > maxBytes ? Either.left(new BodyTooLarge()) : Either.right(Buffer.concat(chunks).toString("utf8"))))
  request.on("error", (cause) => done(Either.left(new BodyUnreadable({ cause }))))
}

export const headerOf = (request: IncomingMessage) => (name: string) => {
  const value = request.headers[name]
  return Array.isArray(value) ? value.join(", ") : value
}

