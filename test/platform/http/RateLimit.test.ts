import { describe, expect, it, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Option, Redacted, TestClock } from "effect"
import { WebSessions } from "../../../src/platform/auth/WebSessions.js"
import { RateLimiter } from "../../../src/platform/http/RateLimiter.js"
import { bridgeRateLimitConfig, rateLimitConfig } from "../../../src/platform/TrellisConfig.js"
import { callTool, rawRequest, rpc, TestServer } from "../../support/TestServer.js"
import { seedOwner } from "../../support/Seed.js"

const session = `session_${"0".repeat(32)}`

describe("the request budget per API key", () => {
  layer(TestServer({ rateLimit: Option.some({ perSecond: 0.5, burst: 3 }) }))((it) => {
    it.effect("every MCP request spends it, tools/list included: over the burst, 429 with Retry-After; other keys are not limited", () =>
      Effect.gen(function*() {
        const first = yield* seedOwner("limited")
        const second = yield* seedOwner("unlimited")
        expect((yield* callTool(first.key, "list_task_types")).status).toBe(200)
        expect((yield* rpc(first.key, { jsonrpc: "2.0", id: 1, method: "ping" })).status).toBe(200)
        expect((yield* rpc(first.key, { jsonrpc: "2.0", id: 1, method: "tools/list" })).status).toBe(200)
        const limited = yield* rpc(first.key, { jsonrpc: "2.0", id: 7, method: "tools/list" })
        expect(limited.status).toBe(429)
        expect(Number(limited.headers["retry-after"])).toBe(2)
        // Refused from the headers alone, before the body (and its id) is read.
        expect(limited.json).toMatchObject({ id: null, error: { code: -32000, data: { retryAfterSeconds: 2 } } })
        expect((yield* callTool(second.key, "list_task_types")).status).toBe(200)
      }))

    it.effect("a browser session has a budget of its own: a page spending it leaves the key's other clients untouched, and other sessions too", () =>
      Effect.gen(function*() {
        const { key } = yield* seedOwner("session-budget")
        const sessions = yield* WebSessions
        const page = yield* sessions.signIn(Redacted.make(key))
        const other = yield* sessions.signIn(Redacted.make(key))
        const bySession = (token: string) =>
          rawRequest({
            path: "/api/mcp",
            body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
            headers: { cookie: `trellis_session=${token}`, origin: "http://127.0.0.1" }
          })
        for (let i = 0; i < 3; i++) expect((yield* bySession(page.token)).status).toBe(200)
        expect((yield* bySession(page.token)).status).toBe(429)
        expect((yield* callTool(key, "list_task_types")).status).toBe(200)
        expect((yield* bySession(other.token)).status).toBe(200)
      }))

    it.effect("the client routes have a budget of their own: spending it leaves MCP calls untouched", () =>
      Effect.gen(function*() {
        const { key } = yield* seedOwner("client")
        const headers = { authorization: `Bearer ${key}` }
        for (let i = 0; i < 3; i++) {
          expect((yield* rawRequest({ method: "GET", path: "/api/threads/thread_x/interactions", headers })).status).toBe(404)
        }
        const limited = yield* rawRequest({ method: "GET", path: "/api/threads/thread_x/interactions", headers })
        expect(limited.status).toBe(429)
        expect(limited.headers["retry-after"]).toBe("2")
        expect(limited.json).toEqual({ _tag: "TooManyRequests", message: expect.stringContaining("retry in 2 s"), retryAfterSeconds: 2 })
        expect((yield* callTool(key, "list_task_types")).status).toBe(200)
      }))
  })

  describe.each(["platform", "node"] as const)("the bridge's own budget on the %s transport", (transport) => {
    layer(TestServer({ bridgeRateLimit: Option.some({ perSecond: 0.5, burst: 2 }) }, transport))((it) => {
      it.effect("the bridge routes spend the bridge budget: over it, 429 TooManyRequests with Retry-After", () =>
        Effect.gen(function*() {
          const { key } = yield* seedOwner("bridge")
          const heartbeat = () =>
            rawRequest({
              path: "/api/agent/heartbeat",
              body: JSON.stringify({ sessionId: session }),
              headers: { authorization: `Bearer ${key}` }
            })
          expect((yield* heartbeat()).status).toBe(404)
          expect((yield* heartbeat()).status).toBe(404)
          const limited = yield* heartbeat()
          expect([limited.status, limited.headers["retry-after"], limited.json]).toEqual([429, "2", {
            _tag: "TooManyRequests",
            message: "too many requests for this API key; retry in 2 s",
            retryAfterSeconds: 2
          }])
          expect((yield* callTool(key, "list_task_types")).status).toBe(200)
        }))
    })
  })

  layer(TestServer({ rateLimit: Option.some({ perSecond: 1, burst: 1 }) }), { excludeTestServices: true })((it) => {
    it.effect("a refused call succeeds once the Retry-After it was given has passed (the bucket refills in real time)", () =>
      Effect.gen(function*() {
        const { key } = yield* seedOwner("refill")
        expect((yield* callTool(key, "list_task_types")).status).toBe(200)
        const limited = yield* callTool(key, "list_task_types")
        expect(limited.status).toBe(429)
        const wait = Number(limited.headers["retry-after"])
        expect(wait).toBe(1)
        yield* Effect.sleep(`${wait} seconds`)
        expect((yield* callTool(key, "list_task_types")).status).toBe(200)
      }))
  })

  layer(TestServer({ rateLimit: Option.none() }))((it) => {
    it.effect("with the limit off, bursts are never refused", () =>
      Effect.gen(function*() {
        const { key } = yield* seedOwner("free")
        const statuses = yield* Effect.forEach(Array.from({ length: 150 }), () => callTool(key, "list_task_types"), { concurrency: 10 })
        expect(statuses.every((res) => res.status === 200)).toBe(true)
      }))
  })

  it.effect("buckets that have refilled are forgotten, so the limiter's memory holds only keys active lately", () =>
    Effect.gen(function*() {
      const limiter = yield* RateLimiter
      const budget = { perSecond: 10, burst: 10 }
      for (let i = 0; i < 1_500; i++) yield* limiter.take(`key-${i}`, budget)
      expect(yield* limiter.size).toBe(1_500)
      yield* TestClock.adjust("11 seconds")
      yield* limiter.take("key-active", budget)
      expect(yield* limiter.size).toBe(1)
    }).pipe(Effect.provide(RateLimiter.Default)))

  const parse = (config: typeof rateLimitConfig, name: string, value: string | undefined) =>
    Effect.withConfigProvider(config, ConfigProvider.fromMap(new Map(value === undefined ? [] : [[name, value]])))

  it.effect("TRELLIS_RATE_LIMIT defaults to 20/s with a burst of 100, takes `off` and `<perSecond>/<burst>`", () =>
    Effect.gen(function*() {
      expect(yield* parse(rateLimitConfig, "TRELLIS_RATE_LIMIT", undefined)).toEqual(Option.some({ perSecond: 20, burst: 100 }))
      expect(yield* parse(rateLimitConfig, "TRELLIS_RATE_LIMIT", "off")).toEqual(Option.none())
      expect(yield* parse(rateLimitConfig, "TRELLIS_RATE_LIMIT", "5/10")).toEqual(Option.some({ perSecond: 5, burst: 10 }))
      expect((yield* Effect.either(parse(rateLimitConfig, "TRELLIS_RATE_LIMIT", "fast")))._tag).toBe("Left")
    }))

  it.effect("TRELLIS_BRIDGE_RATE_LIMIT defaults to 200/s with a burst of 2000 and takes the same forms", () =>
    Effect.gen(function*() {
      expect(yield* parse(bridgeRateLimitConfig, "TRELLIS_BRIDGE_RATE_LIMIT", undefined)).toEqual(
        Option.some({ perSecond: 200, burst: 2000 })
      )
      expect(yield* parse(bridgeRateLimitConfig, "TRELLIS_BRIDGE_RATE_LIMIT", "off")).toEqual(Option.none())
      expect((yield* Effect.either(parse(bridgeRateLimitConfig, "TRELLIS_BRIDGE_RATE_LIMIT", "lots")))._tag).toBe("Left")
    }))
})
