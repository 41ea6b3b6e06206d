import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer, Schema } from "effect"
import { Catalog } from "../../catalog/index.js"
import { rawRequest, rpc, TestServer, type Transport } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"

class Owner extends Context.Tag("test/Owner")<Owner, Effect.Effect.Success<ReturnType<typeof seedOwner>>>() {}

const env = (transport: Transport) =>
  Layer.effect(Owner, seedOwner("acme")).pipe(Layer.provideMerge(TestServer({ toolsPageSize: 1 }, transport)))

const request = (method: string, params?: unknown, id: string | number = 1) =>
  params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params }

const withKey = <A, E, R>(f: (key: string) => Effect.Effect<A, E, R>) => Effect.flatMap(Owner, ({ key }) => f(key))

describe.each<Transport>(["platform", "node"])("MCP endpoint (POST /api/mcp) on the %s transport", (transport) => {
  layer(env(transport))((it) => {
    it.effect("initialize echoes each supported protocol version", () =>
      withKey((key) =>
        Effect.gen(function*() {
          for (const version of ["2025-11-25", "2025-06-18", "2025-03-26"]) {
            const res = yield* rpc(
              key,
              request("initialize", { protocolVersion: version, capabilities: {}, clientInfo: { name: "t", version: "1" } })
            )
            expect(res.status).toBe(200)
            expect(res.json).toMatchObject({
              jsonrpc: "2.0",
              id: 1,
              result: { protocolVersion: version, capabilities: { tools: {} }, serverInfo: { name: "trellis" } }
            })
          }
        })
      ))

    it.effect("initialize answers the latest version when the requested one is unknown", () =>
      withKey((key) =>
        Effect.gen(function*() {
          const res = yield* rpc(
            key,
            request("initialize", { protocolVersion: "1999-01-01", capabilities: {}, clientInfo: { name: "t", version: "1" } })
          )
          expect(res.json).toMatchObject({ result: { protocolVersion: "2025-11-25" } })
        })
      ))

    it.effect("notifications, including notifications/initialized, get 202 with an empty body", () =>
      withKey((key) =>
        Effect.gen(function*() {
          for (const method of ["notifications/initialized", "notifications/cancelled", "notifications/whatever"]) {
            const res = yield* rpc(key, { jsonrpc: "2.0", method })
            expect(res.status).toBe(202)
            expect(res.text).toBe("")
          }
        })
      ))

    it.effect("a JSON-RPC response sent by the client gets 202", () =>
      withKey((key) =>
        Effect.gen(function*() {
          const res = yield* rpc(key, { jsonrpc: "2.0", id: 7, result: {} })
          expect(res.status).toBe(202)
        })
      ))

    it.effect("ping answers an empty result", () =>
      withKey((key) =>
        Effect.gen(function*() {
          const res = yield* rpc(key, request("ping"))
          expect(res.json).toEqual({ jsonrpc: "2.0", id: 1, result: {} })
        })
      ))

    it.effect("string and number ids are both echoed", () =>
      withKey((key) =>
        Effect.gen(function*() {
          expect((yield* rpc(key, request("ping", undefined, "abc-1"))).json).toMatchObject({ id: "abc-1" })
          expect((yield* rpc(key, request("ping", undefined, 0))).json).toMatchObject({ id: 0 })
          expect((yield* rpc(key, request("ping", undefined, 42))).json).toMatchObject({ id: 42 })
        })
      ))

    it.effect("tools/list pages with an opaque cursor and describes each tool with object schemas and hints", () =>
      withKey((key) =>
        Effect.gen(function*() {
          type Page = { result: { tools: Array<Record<string, unknown>>; nextCursor?: string } }
          const tools: Array<Record<string, unknown>> = []
          let cursor: string | undefined = undefined
          do {
            const res = yield* rpc(key, request("tools/list", cursor === undefined ? undefined : { cursor }))
            const page: Page["result"] = (res.json as Page).result
            expect(page.tools).toHaveLength(1)
            tools.push(...page.tools)
            cursor = page.nextCursor
          } while (cursor !== undefined)
          expect(tools.map((tool) => tool["name"])).toEqual(Catalog.map((tool) => tool.name))
          for (const [index, tool] of tools.entries()) {
            const hints = Catalog[index]?.annotations
            expect(tool["inputSchema"]).toMatchObject({ type: "object", additionalProperties: false })
            // MCP's structuredContent is an object, so a tool whose result may be null declares no outputSchema.
            const output: Schema.Schema.AnyNoContext | undefined = Catalog[index]?.output
            if (output !== undefined && Schema.is(output)(null)) expect(tool["outputSchema"]).toBeUndefined()
            else expect(tool["outputSchema"]).toMatchObject({ type: "object" })
            expect(tool["annotations"]).toMatchObject({
              readOnlyHint: hints?.readOnly,
              destructiveHint: hints?.destructive,
              idempotentHint: hints?.idempotent
            })
          }
        })
      ))

    it.effect("tools/list with a cursor the server did not issue is -32602", () =>
      withKey((key) =>
        Effect.gen(function*() {
          for (const cursor of ["garbage", Buffer.from("tools:99").toString("base64url"), 5]) {
            const res = yield* rpc(key, request("tools/list", { cursor }))
            expect(res.json).toMatchObject({ id: 1, error: { code: -32602 } })
          }
        })
      ))

    it.effect("tools/call returns structuredContent and the same JSON as a text item", () =>
      withKey((key) =>
        Effect.gen(function*() {
          const res = yield* rpc(key, request("tools/call", { name: "list_task_types", arguments: {} }))
          const result = (res.json as {
            result: {
              structuredContent: { taskTypes: Array<{ key: string }> }
              content: Array<{ type: string; text: string }>
              isError?: boolean
            }
          }).result
          expect(result.structuredContent.taskTypes.map((type) => type.key)).toEqual([
            "task",
            "bug",
            "feature",
            "epic",
            "investigation",
            "chore",
            "idea"
          ])
          expect(result.content).toEqual([{ type: "text", text: JSON.stringify(result.structuredContent) }])
          expect(result.isError).toBeUndefined()
        })
      ))

    it.effect("tools/call without arguments is accepted for a tool without parameters", () =>
      withKey((key) =>
        Effect.gen(function*() {
          const res = yield* rpc(key, request("tools/call", { name: "list_task_types" }))
          expect(res.json).toMatchObject({ result: { structuredContent: { taskTypes: expect.any(Array) } } })
        })
      ))

    it.effect("invalid tool arguments are a tool error naming the field and the rule", () =>
      withKey((key) =>
        Effect.gen(function*() {
          const res = yield* rpc(key, request("tools/call", { name: "list_projects", arguments: { bogus: 1 } }))
          expect(res.status).toBe(200)
          const result = (res.json as {
            result: {
              isError: boolean
              content: Array<{ text: string }>
              structuredContent: { error: { code: string; message: string } }
            }
          }).result
          expect(result.isError).toBe(true)
          expect(result.structuredContent.error.code).toBe("invalid_argument")
          expect(result.structuredContent.error.message).toContain("bogus")
          expect(result.structuredContent.error.message).toContain("unexpected")
          expect(result.content[0]?.text).toBe(result.structuredContent.error.message)
        })
      ))

    it.effect("an unknown method is -32601", () =>
      withKey((key) =>
        Effect.gen(function*() {
          const res = yield* rpc(key, request("resources/list", {}, "x"))
          expect(res.status).toBe(200)
          expect(res.json).toMatchObject({ id: "x", error: { code: -32601 } })
        })
      ))

    it.effect("an unknown tool is -32602", () =>
      withKey((key) =>
        Effect.gen(function*() {
          const res = yield* rpc(key, request("tools/call", { name: "no_such_tool", arguments: {} }))
          expect(res.json).toMatchObject({ id: 1, error: { code: -32602, message: expect.stringContaining("no_such_tool") } })
        })
      ))

    it.effect("GET and DELETE answer 405", () =>
      withKey((key) =>
        Effect.gen(function*() {
          for (const method of ["GET", "DELETE"] as const) {
            const res = yield* rawRequest({ method, headers: { authorization: `Bearer ${key}` } })
            expect(res.status).toBe(405)
            expect(res.headers["allow"]).toBe("POST")
          }
        })
      ))

    it.effect("a JSON array (batch) body is 400 with -32600", () =>
      withKey((key) =>
        Effect.gen(function*() {
          const res = yield* rawRequest({ body: JSON.stringify([request("ping")]), headers: { authorization: `Bearer ${key}` } })
          expect(res.status).toBe(400)
          expect(res.json).toMatchObject({ id: null, error: { code: -32600 } })
        })
      ))

    it.effect("an unparseable body is 400 with -32700 and a null id", () =>
      withKey((key) =>
        Effect.gen(function*() {
          const res = yield* rawRequest({ body: "{\"jsonrpc\": \"2.0\", \"id\": 1, ", headers: { authorization: `Bearer ${key}` } })
          expect(res.status).toBe(400)
          expect(res.json).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32700, message: expect.any(String) } })
        })
      ))

    it.effect("a message without jsonrpc 2.0 is 400 with -32600", () =>
      withKey((key) =>
        Effect.gen(function*() {
          const res = yield* rawRequest({ body: JSON.stringify({ id: 3, method: "ping" }), headers: { authorization: `Bearer ${key}` } })
          expect(res.status).toBe(400)
          expect(res.json).toMatchObject({ id: 3, error: { code: -32600 } })
        })
      ))

    it.effect("an unsupported MCP-Protocol-Version header is 400 with -32022 naming the supported and requested versions; a supported or absent one is accepted", () =>
      withKey((key) =>
        Effect.gen(function*() {
          const bad = yield* rpc(key, request("ping"), { headers: { "mcp-protocol-version": "2024-01-01" } })
          expect(bad.status).toBe(400)
          expect(bad.json).toMatchObject({
            id: 1,
            error: {
              code: -32022,
              message: expect.stringContaining("2024-01-01"),
              data: { requested: "2024-01-01", supported: ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"] }
            }
          })
          expect((yield* rpc(key, request("ping"), { headers: { "mcp-protocol-version": "2025-06-18" } })).status).toBe(200)
          expect((yield* rpc(key, request("ping"))).status).toBe(200)
        })
      ))

    it.effect("a present Origin that is not allowed is 403; a loopback Origin is allowed", () =>
      withKey((key) =>
        Effect.gen(function*() {
          const evil = yield* rpc(key, request("ping"), { headers: { origin: "http://evil.example.com" } })
          expect(evil.status).toBe(403)
          const local = yield* rpc(key, request("ping"), { headers: { origin: "http://localhost:5173" } })
          expect(local.status).toBe(200)
        })
      ))

    it.effect("when bound to loopback, a non-loopback Host is 403 (DNS rebinding)", () =>
      withKey((key) =>
        Effect.gen(function*() {
          const res = yield* rpc(key, request("ping"), { headers: { host: "evil.example.com" } })
          expect(res.status).toBe(403)
          expect((yield* rpc(key, request("ping"), { headers: { host: "localhost:7420" } })).status).toBe(200)
        })
      ))

    it.effect("a body over 4 MB is 413", () =>
      withKey((key) =>
        Effect.gen(function*() {
          const huge = JSON.stringify({
            ...request("tools/call", { name: "list_projects", arguments: {} }),
            pad: "x".repeat(4 * 1024 * 1024)
          })
          const res = yield* rawRequest({ body: huge, headers: { authorization: `Bearer ${key}` } })
          expect(res.status).toBe(413)
        })
      ))
  })
})
