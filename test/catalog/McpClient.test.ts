import { describe, expect, expectTypeOf, it, layer } from "@effect/vitest"
import { HttpClient, HttpClientResponse } from "@effect/platform"
import { Effect, Layer, Redacted } from "effect"
import * as McpClient from "../../catalog/McpClient.js"
import { seedOwner, TestServer } from "../support/TestServer.js"

const clientFor = (key: string, url = "/api/mcp") => McpClient.make({ url, apiKey: Redacted.make(key) })

/** An HttpClient that answers every request with `body` as `contentType`. */
const answering = (body: string, contentType: string) =>
  Layer.succeed(HttpClient.HttpClient, HttpClient.make((request) =>
    Effect.succeed(HttpClientResponse.fromWeb(request, new Response(body, { headers: { "content-type": contentType } })))))

describe("the typed MCP client", () => {
  layer(TestServer())((it) => {
    it.effect("a call is typed from the tool's Schemas and its result decoded with the output Schema", () =>
      Effect.gen(function* () {
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

    it.effect("a tool that refuses fails with McpToolError carrying its code and message", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("mcp-client-refused")
        const error = yield* Effect.flip(clientFor(key).call("get_task", { projectId: project.id, taskId: "MAIN-404" }))
        expect(error).toMatchObject({ _tag: "McpToolError", tool: "get_task", code: "not_found" })
      }))

    it.effect("a refused key fails with McpRequestError status 401", () =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(clientFor("trellis_not-a-key").call("list_projects", {}))
        expect(error).toMatchObject({ _tag: "McpRequestError", tool: "list_projects", status: 401 })
      }))
  })

  it.effect("an answer framed as server-sent events is read like a JSON one", () =>
    Effect.gen(function* () {
      const reply = { jsonrpc: "2.0", id: 1, result: { structuredContent: { projects: [] } } }
      const { projects } = yield* clientFor("k", "http://mcp.test/api/mcp").call("list_projects", {}).pipe(
        Effect.provide(answering(`event: message\r\ndata: ${JSON.stringify(reply)}\r\n\r\n`, "text/event-stream"))
      )
      expect(projects).toEqual([])
    }))

  it.effect("an answer that is not the tool's result fails with McpRequestError, naming the tool", () =>
    Effect.gen(function* () {
      const reply = { jsonrpc: "2.0", id: 1, result: { structuredContent: { projects: "none" } } }
      const error = yield* Effect.flip(clientFor("k", "http://mcp.test/api/mcp").call("list_projects", {}).pipe(
        Effect.provide(answering(JSON.stringify(reply), "application/json"))
      ))
      expect(error).toMatchObject({ _tag: "McpRequestError", status: 200, message: expect.stringContaining("list_projects's result does not match") })
    }))
})
