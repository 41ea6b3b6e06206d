import { describe, expect, expectTypeOf, it, layer } from "@effect/vitest"
import { HttpClient, HttpClientRequest, HttpClientResponse } from "@effect/platform"
import { Effect, Layer, Redacted } from "effect"
import * as McpClient from "../../catalog/McpClient.js"
import { ListProjects } from "../../catalog/Projects.js"
import { rawRequest, TestServer } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"

const clientFor = (key: string, url = "/api/mcp") => McpClient.make({ url, apiKey: Redacted.make(key) })

/** An HttpClient that answers every request with `body` as `contentType`. */
const answering = (body: string, contentType: string) =>
  Layer.succeed(
    HttpClient.HttpClient,
    HttpClient.make((request) =>
      Effect.succeed(HttpClientResponse.fromWeb(request, new Response(body, { headers: { "content-type": contentType } })))
    )
  )

describe("the typed MCP client", () => {
  layer(TestServer())((it) => {
    it.effect("a call is typed from the tool's Schemas and its result decoded with the output Schema", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("mcp-client")
        const mcp = clientFor(key)
        const { projects } = yield* mcp.call("list_projects", {})
        expectTypeOf(projects).not.toBeAny()
        expect(projects.map((p) => p.ref)).toEqual(["MAIN"])
        const created = yield* mcp.call("create_task", { projectId: project.id, name: "Typed" })
        expectTypeOf(created.refId).toEqualTypeOf<string | null>()
        expect(created.refId).toBe("MAIN-1")
        // @ts-expect-error: create_task has no `title`; its Schema says so before any request.
        yield* Effect.flip(mcp.call("create_task", { projectId: project.id, title: "Untyped" }))
      }))

    it.effect("makeWith is a client of the tools it is given only, typed from their Schemas (the web app's, for a smaller bundle)", () =>
      Effect.gen(function*() {
        const { key } = yield* seedOwner("mcp-client-with")
        const mcp = McpClient.makeWith({ list_projects: ListProjects })({ url: "/api/mcp", apiKey: Redacted.make(key) })
        const { projects } = yield* mcp.call("list_projects", {})
        expectTypeOf(projects).toEqualTypeOf<McpClient.ResultOf<"list_projects">["projects"]>()
        expect(projects.map((p) => p.ref)).toEqual(["MAIN"])
        // @ts-expect-error: a tool it was not given is not callable.
        const refused = yield* Effect.flip(mcp.call("list_tasks", {}))
        expect(refused).toMatchObject({ _tag: "McpRequestError", message: "list_tasks is not a Trellis tool" })
      }))

    it.effect("a null result, sent as text only (MCP's structuredContent is an object), decodes as null", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("mcp-client-null")
        const mcp = clientFor(key)
        const { projectAgentId } = yield* mcp.call("create_project_agent", {
          projectId: project.id,
          name: "Builder",
          appearance: { color: "blue" }
        })
        expect(yield* mcp.call("update_project_agent", { projectAgentId, description: "Builds" })).toBeNull()
        expect(yield* mcp.call("load_skill", { projectId: project.id, name: "no-such-skill" })).toBeNull()
      }))

    it.effect("a tool that refuses fails with McpToolError carrying its code and message", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("mcp-client-refused")
        const error = yield* Effect.flip(clientFor(key).call("get_task", { projectId: project.id, taskId: "MAIN-404" }))
        expect(error).toMatchObject({ _tag: "McpToolError", tool: "get_task", code: "not_found" })
      }))

    it.effect("callRaw sends any arguments and answers the tool's result as it came, a refusal included", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("mcp-client-raw")
        const mcp = clientFor(key)
        const refused = yield* mcp.callRaw("create_task", { projectId: project.id, title: "Untyped" })
        expect(refused).toEqual({
          isError: true,
          structuredContent: { error: { code: "invalid_argument", message: expect.stringContaining("name") } },
          content: [{ type: "text", text: expect.stringContaining("name") }]
        })
        const created = yield* mcp.callRaw("create_task", { projectId: project.id, name: "Raw" })
        expect(created.isError).toBeUndefined()
        expect(created.structuredContent).toMatchObject({ refId: "MAIN-1" })
        // Not decoded: a timestamp stays the string that was sent.
        const fetched = yield* mcp.callRaw("get_task", { projectId: project.id, taskId: "MAIN-1" })
        expect(fetched.structuredContent).toMatchObject({ updatedAt: expect.any(String) })
        expect(JSON.parse(fetched.content?.[0]?.text ?? "")).toEqual(fetched.structuredContent)
      }))

    it.effect("callRaw of a name that is no tool fails with McpRequestError: the call reached no tool", () =>
      Effect.gen(function*() {
        const { key } = yield* seedOwner("mcp-client-raw-unknown")
        const error = yield* Effect.flip(clientFor(key).callRaw("no_such_tool", {}))
        expect(error).toMatchObject({ _tag: "McpRequestError", tool: "no_such_tool", status: 200 })
      }))

    it.effect("without an API key the client sends no Authorization: in a browser the session cookie signs the call", () =>
      Effect.gen(function*() {
        const { key } = yield* seedOwner("mcp-client-cookie")
        const mcp = McpClient.make({ url: "/api/mcp" })
        const anonymous = yield* Effect.flip(mcp.call("list_projects", {}))
        expect(anonymous).toMatchObject({ _tag: "McpRequestError", status: 401 })
        const signedIn = yield* rawRequest({ path: "/api/web/session", body: JSON.stringify({ apiKey: key }) })
        const cookie = (signedIn.headers["set-cookie"] ?? "").split(";")[0] ?? ""
        // What a page's fetch adds by itself to a same-origin request.
        const asBrowser = HttpClient.mapRequest(HttpClientRequest.setHeaders({ cookie, origin: "http://127.0.0.1" }))
        const { projects } = yield* mcp.call("list_projects", {}).pipe(
          Effect.provideServiceEffect(HttpClient.HttpClient, Effect.map(HttpClient.HttpClient, asBrowser))
        )
        expect(projects.map((p) => p.ref)).toEqual(["MAIN"])
      }))

    it.effect("a refused key fails with McpRequestError status 401", () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(clientFor("trellis_not-a-key").call("list_projects", {}))
        expect(error).toMatchObject({ _tag: "McpRequestError", tool: "list_projects", status: 401 })
      }))
  })

  it.effect("an answer framed as server-sent events is read like a JSON one", () =>
    Effect.gen(function*() {
      const reply = { jsonrpc: "2.0", id: 1, result: { structuredContent: { projects: [] } } }
      const { projects } = yield* clientFor("k", "http://mcp.test/api/mcp").call("list_projects", {}).pipe(
        Effect.provide(answering(`event: message\r\ndata: ${JSON.stringify(reply)}\r\n\r\n`, "text/event-stream"))
      )
      expect(projects).toEqual([])
    }))

  it.effect("callRaw keeps everything the answer held, fields the client does not know included", () =>
    Effect.gen(function*() {
      const result = {
        content: [{ type: "text", text: "{}", annotations: { audience: ["user"] } }],
        structuredContent: {},
        _meta: { trace: "t" }
      }
      const reply = { jsonrpc: "2.0", id: 1, result }
      const raw = yield* clientFor("k", "http://mcp.test/api/mcp").callRaw("anything", { any: ["thing"] }).pipe(
        Effect.provide(answering(JSON.stringify(reply), "application/json"))
      )
      expect(raw).toEqual(result)
    }))

  it.effect("an answer that is not the tool's result fails with McpRequestError, naming the tool", () =>
    Effect.gen(function*() {
      const reply = { jsonrpc: "2.0", id: 1, result: { structuredContent: { projects: "none" } } }
      const error = yield* Effect.flip(
        clientFor("k", "http://mcp.test/api/mcp").call("list_projects", {}).pipe(
          Effect.provide(answering(JSON.stringify(reply), "application/json"))
        )
      )
      expect(error).toMatchObject({
        _tag: "McpRequestError",
        status: 200,
        message: expect.stringContaining("list_projects's result does not match")
      })
    }))
})
