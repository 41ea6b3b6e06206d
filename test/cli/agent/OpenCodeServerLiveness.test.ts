import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import * as http from "node:http"
import { refuses } from "../../../cli/agent/runtimes/OpenCodeServer.js"

/**
 * Whether the agent takes its `opencode serve` for dead (RUNTIMES.md §4.3): a port that refuses
 * connections, or a connection lost without an answer, is death; an answer of any status is life.
 * Taken for dead, a live server is replaced and every batch running on it fails; taken for alive,
 * a dead one gets the next batch, which fails.
 */

/** A server on 127.0.0.1 answering every request with `handler`; closed with the scope. */
const serving = (handler: http.RequestListener) =>
  Effect.acquireRelease(
    Effect.async<http.Server>((resume) => {
      const server = http.createServer(handler)
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map((server) => {
    const address = server.address()
    return `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`
  }))

/** A port nothing listens on: one the system gave and took back. */
const closedPort = Effect.scoped(serving((_, response) => response.end()))

describe("the agent's check that its opencode serve is gone", () => {
  it.effect("a port that refuses connections is a dead server", () =>
    Effect.gen(function*() {
      expect(yield* refuses(yield* closedPort, "Basic x")).toBe(true)
    }))

  it.effect("an answer of any status is a live server", () =>
    Effect.gen(function*() {
      const url = yield* serving((_, response) => {
        response.statusCode = 500
        response.end()
      })
      expect(yield* refuses(url, "Basic x")).toBe(false)
    }).pipe(Effect.scoped))

  it.effect("a server gone after answering over a kept-alive connection is dead", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const url = yield* Scope.extend(serving((_, response) => response.end("{}")), scope)
      const answered = yield* Effect.promise(() => fetch(`${url}/session/status`).then((response) => response.text()))
      expect(answered).toBe("{}")
      yield* Scope.close(scope, Exit.void)
      expect(yield* refuses(url, "Basic x")).toBe(true)
    }))

  it.effect("a kept-alive connection the server dropped while idle says nothing of its life: each check has a connection of its own", () =>
    Effect.gen(function*() {
      // Drops any request that comes on a connection it has already answered on, as a server does
      // that closes an idle connection just as a request arrives on it.
      const answeredOn = new WeakSet<object>()
      const url = yield* serving((request, response) => {
        if (answeredOn.has(request.socket)) return request.socket.destroy()
        answeredOn.add(request.socket)
        response.end("{}")
      })
      const checks = yield* Effect.forEach(Array.from({ length: 5 }), () => refuses(url, "Basic x"))
      expect(checks).toEqual([false, false, false, false, false])
    }).pipe(Effect.scoped))
})
