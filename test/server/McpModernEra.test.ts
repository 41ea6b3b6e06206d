import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { ok } from "../support/TaskTools.js"
import { rpc, TestServer, type Transport } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"

class Owner extends Context.Tag("test/Owner")<Owner, Effect.Effect.Success<ReturnType<typeof seedOwner>>>() {}

const env = (transport: Transport) => Layer.effect(Owner, seedOwner("modern")).pipe(Layer.provideMerge(TestServer({}, transport)))

const MODERN = "2026-07-28"
const envelope = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "test", version: "1" }
}

/** A 2026-07-28 request: the envelope in `_meta` and the standard headers, each overridable. */
const modern = (
  key: string,
  method: string,
  params: Record<string, unknown> = {},
  options: {
    readonly headers?: Record<string, string>
    readonly meta?: Record<string, unknown>
    readonly path?: string
    readonly id?: number
  } = {}
) => {
  const name = typeof params["name"] === "string" ? params["name"] : typeof params["uri"] === "string" ? params["uri"] : undefined
  return rpc(key, { jsonrpc: "2.0", id: options.id ?? 7, method, params: { ...params, _meta: options.meta ?? envelope } }, {
    headers: {
      "mcp-protocol-version": MODERN,
      "mcp-method": method,
      ...(name === undefined ? {} : { "mcp-name": name }),
      ...options.headers
    },
    ...(options.path === undefined ? {} : { path: options.path })
  })
}

const withKey = <A, E, R>(f: (owner: Effect.Effect.Success<ReturnType<typeof seedOwner>>) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(Owner, f)

describe.each<Transport>(["platform", "node"])("MCP 2026-07-28 beside the 2025 revisions, on the %s transport", (transport) => {
  layer(env(transport))((it) => {
    it.effect("a 2026-07-28 request is served without a handshake, with resultType, the server's identity and cache hints", () =>
      withKey(({ key }) =>
        Effect.gen(function*() {
          const res = yield* modern(key, "tools/list")
          expect(res.status).toBe(200)
          expect(res.json).toMatchObject({
            id: 7,
            result: {
              resultType: "complete",
              ttlMs: expect.any(Number),
              cacheScope: "public",
              _meta: { "io.modelcontextprotocol/serverInfo": { name: "trellis", version: expect.any(String) } }
            }
          })
        })
      ))

    it.effect("server/discover names every supported revision, the capabilities and the instructions", () =>
      withKey(({ key }) =>
        Effect.gen(function*() {
          const res = yield* modern(key, "server/discover")
          expect(res.json).toMatchObject({
            result: {
              supportedVersions: ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"],
              capabilities: { tools: {}, prompts: {} },
              instructions: expect.stringContaining("list_projects"),
              resultType: "complete"
            }
          })
        })
      ))

    it.effect("a missing protocol version or client capabilities in _meta is 400 with -32602, naming the key; clientInfo is optional", () =>
      withKey(({ key }) =>
        Effect.gen(function*() {
          for (const missing of ["io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities"]) {
            const meta = Object.fromEntries(Object.entries(envelope).filter(([name]) => name !== missing))
            const res = yield* modern(key, "server/discover", {}, { meta, id: 12 })
            expect(res.status).toBe(400)
            expect(res.json).toMatchObject({ id: 12, error: { code: -32602, message: expect.stringContaining(missing) } })
          }
          const noInfo = yield* modern(key, "server/discover", {}, {
            meta: { ...envelope, "io.modelcontextprotocol/clientInfo": undefined }
          })
          expect(noInfo.status).toBe(200)
          const noMeta = yield* rpc(key, { jsonrpc: "2.0", id: 13, method: "tools/list", params: {} }, {
            headers: { "mcp-protocol-version": MODERN, "mcp-method": "tools/list" }
          })
          expect(noMeta.status).toBe(400)
          expect(noMeta.json).toMatchObject({ id: 13, error: { code: -32602 } })
        })
      ))

    it.effect("a protocol version header that disagrees with _meta is 400 with -32020; a missing one too", () =>
      withKey(({ key }) =>
        Effect.gen(function*() {
          const disagree = yield* modern(key, "tools/list", {}, {
            meta: { ...envelope, "io.modelcontextprotocol/protocolVersion": "2025-11-25" }
          })
          expect(disagree.status).toBe(400)
          expect(disagree.json).toMatchObject({ id: 7, error: { code: -32020 } })
          const missing = yield* rpc(key, { jsonrpc: "2.0", id: 8, method: "tools/list", params: { _meta: envelope } }, {
            headers: { "mcp-method": "tools/list" }
          })
          expect(missing.status).toBe(400)
          expect(missing.json).toMatchObject({ id: 8, error: { code: -32020 } })
        })
      ))

    it.effect("a revision the server does not speak is 400 with -32022, its data naming the supported and requested versions", () =>
      withKey(({ key }) =>
        Effect.gen(function*() {
          const res = yield* modern(key, "server/discover", {}, {
            meta: { ...envelope, "io.modelcontextprotocol/protocolVersion": "2099-01-01" },
            headers: { "mcp-protocol-version": "2099-01-01" }
          })
          expect(res.status).toBe(400)
          expect(res.json).toMatchObject({
            id: 7,
            error: { code: -32022, data: { requested: "2099-01-01", supported: expect.arrayContaining([MODERN, "2025-11-25"]) } }
          })
        })
      ))

    it.effect("Mcp-Method is required and must equal the body's method, case and all; whitespace around it is ignored", () =>
      withKey(({ key }) =>
        Effect.gen(function*() {
          for (const headers of [{ "mcp-method": "prompts/list" }, { "mcp-method": "TOOLS/LIST" }]) {
            const res = yield* modern(key, "tools/list", {}, { headers })
            expect(res.status).toBe(400)
            expect(res.json).toMatchObject({ id: 7, error: { code: -32020, data: { mismatch: { body: "tools/list" } } } })
          }
          const missing = yield* rpc(key, { jsonrpc: "2.0", id: 9, method: "tools/list", params: { _meta: envelope } }, {
            headers: { "mcp-protocol-version": MODERN }
          })
          expect(missing.status).toBe(400)
          expect(missing.json).toMatchObject({ id: 9, error: { code: -32020 } })
          expect((yield* modern(key, "tools/list", {}, { headers: { "MCP-METHOD": "  tools/list  " } })).status).toBe(200)
        })
      ))

    it.effect("Mcp-Name must name the tool the body calls, literally or in =?base64?…?=; invalid Base64 is refused", () =>
      withKey(({ key }) =>
        Effect.gen(function*() {
          const call = { name: "list_projects", arguments: {} }
          const wrong = yield* modern(key, "tools/call", call, { headers: { "mcp-name": "create_task" } })
          expect(wrong.status).toBe(400)
          expect(wrong.json).toMatchObject({
            error: { code: -32020, data: { mismatch: { header: "create_task", body: "list_projects" } } }
          })
          const missing = yield* rpc(key, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { ...call, _meta: envelope } }, {
            headers: { "mcp-protocol-version": MODERN, "mcp-method": "tools/call" }
          })
          expect(missing.status).toBe(400)
          const encoded = yield* modern(key, "tools/call", call, {
            headers: { "mcp-name": `=?base64?${Buffer.from("list_projects").toString("base64")}?=` }
          })
          expect(encoded.status).toBe(200)
          expect(encoded.json).toMatchObject({ result: { resultType: "complete", structuredContent: { projects: expect.any(Array) } } })
          const invalid = yield* modern(key, "tools/call", call, { headers: { "mcp-name": "=?base64?bGlzdF9wcm9qZWN0cw?=" } })
          expect(invalid.status).toBe(400)
          expect(invalid.json).toMatchObject({ error: { code: -32020 } })
        })
      ))

    it.effect("a tool's projectId is declared x-mcp-header Project: given in the body, Mcp-Param-Project must carry it too", () =>
      withKey(({ key, project }) =>
        Effect.gen(function*() {
          const listed = yield* modern(key, "tools/list")
          const tools = (listed.json as {
            result: { tools: ReadonlyArray<{ name: string; inputSchema: { properties: Record<string, Record<string, unknown>> } }> }
          }).result.tools
          expect(tools.find((tool) => tool.name === "list_task_labels")?.inputSchema.properties["projectId"]).toMatchObject({
            "x-mcp-header": "Project"
          })
          expect(tools.find((tool) => tool.name === "list_projects")?.inputSchema.properties["projectId"]).toBeUndefined()
          const call = { name: "list_task_labels", arguments: { projectId: project.id } }
          const missing = yield* modern(key, "tools/call", call)
          expect(missing.status).toBe(400)
          expect(missing.json).toMatchObject({ id: 7, error: { code: -32020, message: expect.stringContaining("Mcp-Param-Project") } })
          const wrong = yield* modern(key, "tools/call", call, { headers: { "mcp-param-project": "proj_other" } })
          expect(wrong.status).toBe(400)
          for (const value of [project.id, ` ${project.id} `, `=?base64?${Buffer.from(project.id).toString("base64")}?=`]) {
            const res = yield* modern(key, "tools/call", call, { headers: { "Mcp-Param-Project": value } })
            expect(res.status).toBe(200)
            expect(res.json).toMatchObject({ result: { structuredContent: { labels: expect.any(Array) } } })
          }
          // Without projectId in the body (the URL's project), no header is expected.
          const fromUrl = yield* modern(key, "tools/call", { name: "list_task_labels", arguments: {} }, {
            path: `/api/mcp?project=${project.id}`
          })
          expect(fromUrl.status).toBe(200)
        })
      ))

    it.effect("methods 2026-07-28 removed (initialize, ping, logging/setLevel) and unknown methods are 404 with -32601, echoing the id", () =>
      withKey(({ key }) =>
        Effect.gen(function*() {
          for (const method of ["initialize", "ping", "logging/setLevel", "resources/subscribe", "no/such"]) {
            const res = yield* modern(key, method, {}, { id: 41 })
            expect(res.status).toBe(404)
            expect(res.json).toMatchObject({ id: 41, error: { code: -32601 } })
          }
        })
      ))

    it.effect("a tool's own error stays a result (isError) with status 200", () =>
      withKey(({ key }) =>
        Effect.gen(function*() {
          const res = yield* modern(key, "tools/call", { name: "get_task", arguments: { taskId: "nope" } })
          expect(res.status).toBe(200)
          expect(res.json).toMatchObject({ result: { isError: true, resultType: "complete" } })
        })
      ))

    it.effect("lists that depend on the URL's project or the key are private; a new prompt shows once its TTL has passed", () =>
      withKey(({ key, project }) =>
        Effect.gen(function*() {
          const path = `/api/mcp?project=${project.id}`
          const tools = yield* modern(key, "tools/list", {}, { path })
          expect(tools.json).toMatchObject({ result: { cacheScope: "private", ttlMs: expect.any(Number) } })
          const readOnly = yield* modern(key, "tools/list", {}, { path: "/api/mcp?readonly=1" })
          expect(readOnly.json).toMatchObject({ result: { cacheScope: "private" } })
          const before = yield* modern(key, "prompts/list", {}, { path })
          expect(before.json).toMatchObject({ result: { cacheScope: "private", prompts: [] } })
          const { ttlMs } = (before.json as { result: { ttlMs: number } }).result
          expect(ttlMs).toBeLessThanOrEqual(60_000)
          yield* ok(key, "create_prompt", { key: "review", content: "Review it." }, { path })
          // No server-side cache: the next request after the client's TTL sees the new prompt.
          const after = yield* modern(key, "prompts/list", {}, { path })
          expect(after.json).toMatchObject({ result: { prompts: [{ name: "review" }] } })
        })
      ))

    it.effect("the Skills extension and resources are declared only with a ?project= the key reaches; without, their methods are unknown", () =>
      withKey(({ key, project }) =>
        Effect.gen(function*() {
          const withProject = yield* modern(key, "server/discover", {}, { path: `/api/mcp?project=${project.id}` })
          expect(withProject.json).toMatchObject({
            result: {
              capabilities: { resources: {}, extensions: { "io.modelcontextprotocol/skills": { directoryRead: true } } },
              cacheScope: "private"
            }
          })
          const listed = yield* modern(key, "skills/list", {}, { path: `/api/mcp?project=${project.id}` })
          expect(listed.json).toMatchObject({ result: { skills: [], resultType: "complete", cacheScope: "private" } })
          const bare = yield* modern(key, "server/discover")
          expect(bare.json).toMatchObject({ result: { cacheScope: "public" } })
          expect((bare.json as { result: { capabilities: Record<string, unknown> } }).result.capabilities).toEqual({
            tools: { listChanged: false },
            prompts: { listChanged: false }
          })
          for (const method of ["skills/list", "resources/list"]) {
            const res = yield* modern(key, method)
            expect(res.status).toBe(404)
            expect(res.json).toMatchObject({ error: { code: -32601 } })
          }
        })
      ))

    it.effect("the 2025 revisions are served as before: initialize works, results carry no 2026 fields, server/discover is unknown", () =>
      withKey(({ key }) =>
        Effect.gen(function*() {
          const init = yield* rpc(key, {
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } }
          })
          expect(init.json).toMatchObject({ result: { protocolVersion: "2025-11-25" } })
          const list = yield* rpc(key, { jsonrpc: "2.0", id: 2, method: "tools/list" }, {
            headers: { "mcp-protocol-version": "2025-11-25" }
          })
          expect(list.status).toBe(200)
          expect(list.json).not.toMatchObject({ result: { resultType: expect.anything() } })
          expect(list.json).not.toMatchObject({ result: { ttlMs: expect.anything() } })
          const discover = yield* rpc(key, { jsonrpc: "2.0", id: 3, method: "server/discover" }, {
            headers: { "mcp-protocol-version": "2025-11-25" }
          })
          expect(discover.status).toBe(200)
          expect(discover.json).toMatchObject({ id: 3, error: { code: -32601 } })
          const modernHeaderOnInitialize = yield* rpc(key, {
            jsonrpc: "2.0",
            id: 4,
            method: "initialize",
            params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } }
          }, {
            headers: { "mcp-protocol-version": MODERN }
          })
          expect(modernHeaderOnInitialize.status).toBe(400)
          expect(modernHeaderOnInitialize.json).toMatchObject({ id: 4, error: { code: -32020 } })
        })
      ))
  })
})
