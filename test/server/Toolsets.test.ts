import { describe, expect, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Catalog, TOOLSET_NAMES, Toolsets } from "../../catalog/index.js"
import { rawRequest, rpc, TestServer } from "../support/TestServer.js"
import { createKey, seedOwner } from "../support/Seed.js"

/** Issue 20 §3: a connection narrows itself to the toolsets it names, or to reading; a read-only key reads only. */

const ToolsList = Schema.Struct({
  result: Schema.Struct({
    tools: Schema.Array(Schema.Struct({ name: Schema.String, annotations: Schema.Struct({ readOnlyHint: Schema.Boolean }) })),
    nextCursor: Schema.optional(Schema.String)
  })
})
const RpcError = Schema.Struct({ error: Schema.Struct({ code: Schema.Number, message: Schema.String }) })
const ToolResult = Schema.Struct({ result: Schema.Struct({ isError: Schema.optional(Schema.Boolean), structuredContent: Schema.Unknown }) })

const listTools = (key: string, path = "/api/mcp", headers: Record<string, string> = {}) =>
  rpc(key, { jsonrpc: "2.0", id: 7, method: "tools/list" }, { path, headers }).pipe(
    Effect.flatMap((response) => Schema.decodeUnknown(ToolsList)(response.json)),
    Effect.map((list) => list.result.tools)
  )

const call = (key: string, name: string, args: unknown, path = "/api/mcp", headers: Record<string, string> = {}) =>
  rpc(key, { jsonrpc: "2.0", id: 8, method: "tools/call", params: { name, arguments: args } }, { path, headers })

const refusal = (response: { readonly json: unknown }) =>
  Schema.decodeUnknown(RpcError)(response.json).pipe(Effect.map((body) => body.error))

const namesOf = (...toolsets: ReadonlyArray<keyof typeof Toolsets>) =>
  toolsets.flatMap((name) => Toolsets[name].tools.map((tool) => tool.name))

describe("toolsets and read-only connections", () => {
  layer(TestServer())((it) => {
    it.effect("the toolsets partition the catalog: every tool is in exactly one, in the catalog's order", () =>
      Effect.sync(() => {
        expect(TOOLSET_NAMES.flatMap((name) => Toolsets[name].tools.map((tool) => tool.name))).toEqual(Catalog.map((tool) => tool.name))
        expect(new Set(Catalog.map((tool) => tool.name)).size).toBe(Catalog.length)
      }))

    it.effect("without ?toolsets= a connection is served every tool", () =>
      Effect.gen(function*() {
        const owner = yield* seedOwner("toolsets-all")
        expect((yield* listTools(owner.key)).map((tool) => tool.name)).toEqual(Catalog.map((tool) => tool.name))
      }))

    it.effect("?toolsets=tasks,threads serves those toolsets and projects (where project IDs come from), in catalog order", () =>
      Effect.gen(function*() {
        const owner = yield* seedOwner("toolsets-some")
        expect((yield* listTools(owner.key, "/api/mcp?toolsets=threads,tasks")).map((tool) => tool.name))
          .toEqual(namesOf("projects", "tasks", "threads"))
      }))

    it.effect("the X-MCP-Toolsets header does the same, and the URL wins over it", () =>
      Effect.gen(function*() {
        const owner = yield* seedOwner("toolsets-header")
        expect((yield* listTools(owner.key, "/api/mcp", { "x-mcp-toolsets": "skills" })).map((tool) => tool.name))
          .toEqual(namesOf("projects", "skills"))
        expect((yield* listTools(owner.key, "/api/mcp?toolsets=labels", { "x-mcp-toolsets": "skills" })).map((tool) => tool.name))
          .toEqual(namesOf("projects", "labels"))
      }))

    it.effect("a call to a tool outside the connection's toolsets is refused, naming the toolset to add, and changes nothing", () =>
      Effect.gen(function*() {
        const owner = yield* seedOwner("toolsets-call")
        const path = `/api/mcp?toolsets=threads&project=${owner.project.id}`
        const error = yield* refusal(yield* call(owner.key, "create_task", { title: "Outside" }, path))
        expect(error.code).toBe(-32602)
        expect(error.message).toContain(`create_task is in the toolset "tasks"`)
        expect(error.message).toContain("?toolsets=")
        const listed = yield* Schema.decodeUnknown(ToolResult)(
          yield* call(owner.key, "list_tasks", {}, `/api/mcp?project=${owner.project.id}`).pipe(Effect.map((r) => r.json))
        )
        expect(JSON.stringify(listed.result.structuredContent)).not.toContain("Outside")
      }))

    it.effect("an unknown toolset is refused with the names of those that exist", () =>
      Effect.gen(function*() {
        const owner = yield* seedOwner("toolsets-unknown")
        const error = yield* refusal(
          yield* rpc(owner.key, { jsonrpc: "2.0", id: 3, method: "tools/list" }, { path: "/api/mcp?toolsets=tasks,boards" })
        )
        expect(error.code).toBe(-32602)
        expect(error.message).toBe(`Invalid params: toolsets: "boards" is not a toolset (toolsets: ${TOOLSET_NAMES.join(", ")})`)
      }))

    it.effect("?readonly=1 serves only the tools annotated readOnlyHint and refuses a write", () =>
      Effect.gen(function*() {
        const owner = yield* seedOwner("readonly-url")
        const tools = yield* listTools(owner.key, "/api/mcp?readonly=1")
        expect(tools.map((tool) => tool.name)).toEqual(Catalog.filter((tool) => tool.annotations.readOnly).map((tool) => tool.name))
        expect(tools.every((tool) => tool.annotations.readOnlyHint)).toBe(true)
        const error = yield* refusal(
          yield* call(owner.key, "create_task", { projectId: owner.project.id, title: "No" }, "/api/mcp?readonly=1")
        )
        expect(error.message).toContain("create_task writes, and this connection is read-only (?readonly=1)")
      }))

    it.effect("?readonly= takes 1 or 0 only", () =>
      Effect.gen(function*() {
        const owner = yield* seedOwner("readonly-bad")
        const error = yield* refusal(
          yield* rpc(owner.key, { jsonrpc: "2.0", id: 3, method: "tools/list" }, { path: "/api/mcp?readonly=maybe" })
        )
        expect(error.message).toContain(`readonly: must be 1 or 0`)
      }))

    it.effect("a read-only key is served only read-only tools and its writes are refused, whatever the URL says", () =>
      Effect.gen(function*() {
        const owner = yield* seedOwner("readonly-key")
        const reader = yield* createKey(owner.user.id, null, { readOnly: true })
        const tools = yield* listTools(reader.secret, "/api/mcp?readonly=0")
        expect(tools.map((tool) => tool.name)).toEqual(Catalog.filter((tool) => tool.annotations.readOnly).map((tool) => tool.name))
        const error = yield* refusal(
          yield* call(reader.secret, "create_task", { projectId: owner.project.id, title: "No" }, "/api/mcp?readonly=0")
        )
        expect(error.message).toContain("create_task writes, and this API key is read-only")
        const read = yield* Schema.decodeUnknown(ToolResult)((yield* call(reader.secret, "list_projects", {})).json)
        expect(read.result.isError).toBeUndefined()
      }))

    it.effect("a read-only key changes nothing through the other routes either: a POST is refused with 403, a GET is served", () =>
      Effect.gen(function*() {
        const owner = yield* seedOwner("readonly-routes")
        const reader = yield* createKey(owner.user.id, null, { readOnly: true })
        const headers = { authorization: `Bearer ${reader.secret}` }
        const register = yield* rawRequest({ path: "/api/agent/register", body: "{}", headers })
        expect(register.status).toBe(403)
        expect(register.text).toContain("this API key is read-only")
        const workflow = yield* rawRequest({
          path: "/api/threads/workflow-runs",
          body: JSON.stringify({ projectId: owner.project.id, title: "No" }),
          headers
        })
        expect(workflow.status).toBe(403)
        const events = yield* rawRequest({ method: "GET", path: "/api/threads/thr_missing/events", headers })
        expect(events.status).toBe(404)
      }))
  })
})
