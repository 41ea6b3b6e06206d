/**
 * Issue 27 §3: stopping `trellis agent start` is bounded even when the backend does not answer
 * its shutdown calls. The calls run in a finalizer, where everything is uninterruptible: there
 * `Effect.timeout` cannot interrupt the HTTP call it gave up on and waits for it instead, so a
 * backend that held the disconnect held the agent's exit just as long (issue 27: 16.6 s).
 * A proxy in front of the real backend passes everything through but holds the disconnect.
 */
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Fiber, Layer, Option } from "effect"
import { mkdirSync, mkdtempSync } from "node:fs"
import * as http from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runAgent } from "../../../cli/agent/AgentLoop.js"
import { makeAgentLog } from "../../../cli/agent/AgentLog.js"
import { Git } from "../../../cli/agent/Git.js"
import { Journal } from "../../../cli/agent/Journal.js"
import { serveNode } from "../../../src/server/NodeServer.js"
import * as Trellis from "../../../src/server/Trellis.js"
import { TestDatabase } from "../../support/TestDatabase.js"
import { seedOwner } from "../../support/Seed.js"

class ServerUrl extends Effect.Tag("test/ShutdownBudget/ServerUrl")<ServerUrl, string>() {}
const Backend = Layer.scoped(
  ServerUrl,
  Effect.gen(function*() {
    const address = yield* serveNode(Trellis.routes, { host: "127.0.0.1", port: 0 })
    return `http://127.0.0.1:${address.port}`
  })
).pipe(Layer.provideMerge(Trellis.services({ rateLimit: Option.none() })), Layer.provideMerge(TestDatabase))

/** Forwards every request to `target`, except that `held` requests get no answer until the proxy closes. */
const holdingProxy = (target: string, held: (method: string, url: string) => boolean) =>
  Effect.acquireRelease(
    Effect.async<{ readonly url: string; readonly server: http.Server; readonly seen: Array<string> }>((resume) => {
      const seen: Array<string> = []
      const server = http.createServer((request, response) => {
        seen.push(`${request.method} ${request.url}`)
        if (held(request.method ?? "", request.url ?? "")) return void request.resume()
        const upstream = http.request(`${target}${request.url ?? "/"}`, { method: request.method, headers: request.headers }, (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(response)
        })
        upstream.on("error", () => response.destroy())
        request.pipe(upstream)
      })
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        const port = typeof address === "object" && address !== null ? address.port : 0
        resume(Effect.succeed({ url: `http://127.0.0.1:${port}`, server, seen }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

const waitFor = (what: string, done: () => boolean, timeoutMs = 20_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    while (!done()) {
      if (Date.now() > deadline) return yield* Effect.dieMessage(`timed out waiting for ${what}`)
      yield* Effect.sleep("50 millis")
    }
  })

describe("trellis agent: shutting down against a backend that does not answer", () => {
  layer(Layer.mergeAll(Backend, NodeContext.layer, NodeHttpClient.layerUndici), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.scoped("the agent stops within 2 s when the backend holds its disconnect", () =>
      Effect.gen(function*() {
        const backend = yield* ServerUrl
        const proxy = yield* holdingProxy(backend, (method, url) => method === "POST" && url.startsWith("/api/agent/disconnect"))
        const owner = yield* seedOwner("shutdown-budget")
        const home = mkdtempSync(join(tmpdir(), "trellis-agent-"))
        const checkout = join(home, "project")
        mkdirSync(checkout)
        const lines: Array<string> = []
        const agent = yield* Effect.fork(
          runAgent({
            profileName: "test",
            server: proxy.url,
            apiKey: owner.key,
            projectId: owner.project.id,
            machineName: "test-machine",
            hostname: "test-host",
            machineId: "test-machine-id",
            profileId: undefined,
            paths: [{ path: checkout, label: "project", gitRemoteUrl: null, branch: null }],
            availableClis: [{ type: "claude", version: "replay" }],
            runtimeFor: () => undefined,
            approve: "none",
            interactionTimeoutMs: 60_000,
            maxConcurrent: 2,
            force: false,
            stateDir: join(home, "state"),
            log: makeAgentLog("json", { write: (line) => lines.push(line) }),
            rememberProfileId: () => Effect.void
          }).pipe(Effect.provide([Journal.Default(join(home, "journal")), Git.Default]))
        )
        yield* waitFor("the agent to wait for threads", () => lines.some((line) => line.includes("waiting for threads")))

        const started = Date.now()
        yield* Fiber.interrupt(agent)
        const took = Date.now() - started
        expect(proxy.seen.filter((request) => request.startsWith("POST /api/agent/disconnect"))).toHaveLength(1)
        expect(took, `stopped ${took} ms after the interrupt`).toBeLessThan(2_000)
        // It says the backend never confirmed it, not that it is offline.
        expect(lines.filter((line) => line.includes("disconnected"))).toEqual([
          expect.stringContaining("disconnected without the backend's answer")
        ])
      }), 60_000)
  })
})
