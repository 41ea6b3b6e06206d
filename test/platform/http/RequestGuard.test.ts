import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { bearerToken, familyOf } from "../../../src/platform/http/RequestGuard.js"
import { rawRequest, TestServer, type Transport } from "../../support/TestServer.js"
import { seedOwner } from "../../support/Seed.js"

const session = `session_${"0".repeat(32)}`

describe("the Authorization header has one parser", () => {
  it.effect("`Bearer <key>`: the scheme in any case, any spaces or tabs before the key, none but trailing spaces after it", () =>
    Effect.sync(() => {
      expect(bearerToken("Bearer trellis_k")).toBe("trellis_k")
      expect(bearerToken("bearer trellis_k")).toBe("trellis_k")
      expect(bearerToken("BEARER    trellis_k  ")).toBe("trellis_k")
      expect(bearerToken("Bearer\ttrellis_k")).toBe("trellis_k")
      for (const refused of [undefined, "", "Bearer", "Bearer ", "Bearer    ", "Bearer a b", "Basic trellis_k", "Bearertrellis_k"]) {
        expect(bearerToken(refused), String(refused)).toBeUndefined()
      }
    }))
})

describe("route families", () => {
  it.effect("`/api/mcp` is mcp, `/api/agent/*` the bridge, any other `/api/*` a client route; /health, the OpenAPI document and the rest are open", () =>
    Effect.sync(() => {
      expect(familyOf("/api/mcp")).toBe("mcp")
      expect(familyOf("/api/agent/heartbeat")).toBe("bridge")
      expect(familyOf("/api/agent/sessions/s/pending")).toBe("bridge")
      expect(familyOf("/api/threads/t/events")).toBe("client")
      expect(familyOf("/api/mcp/other")).toBe("client")
      expect(familyOf("/api/openapi.json")).toBe("open")
      expect(familyOf("/health")).toBe("open")
      expect(familyOf("/")).toBe("open")
    }))
})

/** One route per family and how it answers an admitted request (none of them finds what it is asked for). */
const routes = [
  { path: "/api/mcp", method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }), admitted: 200 },
  { path: "/api/agent/heartbeat", method: "POST", body: JSON.stringify({ sessionId: session }), admitted: 404 },
  { path: "/api/agent/disconnect", method: "POST", body: JSON.stringify({ sessionId: session }), admitted: 404 },
  { path: "/api/threads/thread_x/interactions", method: "GET", body: undefined, admitted: 404 }
] as const

describe.each<Transport>(["platform", "node"])("every route family on the %s transport", (transport) => {
  layer(TestServer({}, transport))((it) => {
    it.effect("reads the key the same way: lowercase `bearer` and extra spaces are accepted, an empty key is 401", () =>
      Effect.gen(function*() {
        const { key } = yield* seedOwner("bearer")
        for (const route of routes) {
          const send = (authorization: string) =>
            rawRequest({
              method: route.method,
              path: route.path,
              headers: { authorization },
              ...(route.body === undefined ? {} : { body: route.body })
            })
          expect((yield* send(`bearer ${key}`)).status, route.path).toBe(route.admitted)
          expect((yield* send(`Bearer    ${key}`)).status, route.path).toBe(route.admitted)
          expect((yield* send("Bearer ")).status, route.path).toBe(401)
          expect((yield* send(`Basic ${key}`)).status, route.path).toBe(401)
        }
      }))
  })
})
