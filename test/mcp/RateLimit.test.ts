import { describe, expect, it, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Option } from "effect"
import { rateLimitConfig } from "../../src/TrellisConfig.js"
import { callTool, rpc, seedOwner, TestServer } from "../support/TestServer.js"

describe("tool-call rate limit per API key", () => {
  layer(TestServer({ rateLimit: Option.some({ perSecond: 0.5, burst: 3 }) }))((it) => {
    it.effect("calls over the burst get 429 with Retry-After; other keys and other methods are not limited", () =>
      Effect.gen(function* () {
        const first = yield* seedOwner("limited")
        const second = yield* seedOwner("unlimited")
        for (let i = 0; i < 3; i++) expect((yield* callTool(first.key, "list_task_types")).status).toBe(200)
        const limited = yield* callTool(first.key, "list_task_types")
        expect(limited.status).toBe(429)
        expect(Number(limited.headers["retry-after"])).toBeGreaterThanOrEqual(1)
        expect(limited.json).toMatchObject({ id: 1, error: { code: -32000, data: { retryAfterSeconds: expect.any(Number) } } })
        expect((yield* callTool(second.key, "list_task_types")).status).toBe(200)
        expect((yield* rpc(first.key, { jsonrpc: "2.0", id: 2, method: "ping" })).status).toBe(200)
      }))
  })

  layer(TestServer({ rateLimit: Option.none() }))((it) => {
    it.effect("with the limit off, bursts are never refused", () =>
      Effect.gen(function* () {
        const { key } = yield* seedOwner("free")
        const statuses = yield* Effect.forEach(Array.from({ length: 150 }), () => callTool(key, "list_task_types"), { concurrency: 10 })
        expect(statuses.every((res) => res.status === 200)).toBe(true)
      }))
  })

  const parse = (value: string | undefined) =>
    Effect.withConfigProvider(rateLimitConfig, ConfigProvider.fromMap(new Map(value === undefined ? [] : [["TRELLIS_RATE_LIMIT", value]])))

  it.effect("TRELLIS_RATE_LIMIT defaults to 20/s with a burst of 100, takes `off` and `<perSecond>/<burst>`", () =>
    Effect.gen(function* () {
      expect(yield* parse(undefined)).toEqual(Option.some({ perSecond: 20, burst: 100 }))
      expect(yield* parse("off")).toEqual(Option.none())
      expect(yield* parse("5/10")).toEqual(Option.some({ perSecond: 5, burst: 10 }))
      expect((yield* Effect.either(parse("fast")))._tag).toBe("Left")
    }))
})
