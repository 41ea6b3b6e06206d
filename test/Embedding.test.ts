import { describe, expect, layer } from "@effect/vitest"
import { HttpClient, HttpLayerRouter, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer, Option } from "effect"
// The package's own entry point, as another program would import it.
import { ApiKeys, bootstrap, CurrentPrincipal, DefaultProject, PgliteClient, ToolRunner, Trellis } from "trellis"
import { callTool } from "./support/TestServer.js"

// Another program's own route, served beside Trellis on one HTTP server.
const HelloRoute = HttpLayerRouter.add("GET", "/hello", HttpServerResponse.text("hello from the host program"))

const Host = HttpLayerRouter.serve(Layer.merge(Trellis.routes, HelloRoute), { disableLogger: true }).pipe(
  Layer.provideMerge(Trellis.services({ rateLimit: Option.none() })),
  Layer.provideMerge(NodeHttpServer.layerTest),
  Layer.provideMerge(PgliteClient.layer({}))
)

describe("embedding Trellis as a library", () => {
  layer(Host)((it) => {
    it.effect("the backend Layer serves its MCP endpoint inside the host's HTTP server", () =>
      Effect.gen(function*() {
        const created = yield* bootstrap
        const { apiKey } = Option.getOrThrowWith(created, () => new Error("expected an empty database"))
        const hello = yield* (yield* HttpClient.HttpClient).get("/hello")
        expect(yield* hello.text).toBe("hello from the host program")
        const res = yield* callTool(apiKey, "list_projects")
        expect(res.json).toMatchObject({ result: { structuredContent: { projects: [{ ref: "DEMO" }] } } })
      }))

    it.effect("the host calls tools in process through ToolRunner with a principal", () =>
      Effect.gen(function*() {
        const apiKeys = yield* ApiKeys
        const [bootstrapKey] = yield* apiKeys.list(null)
        const { secret } = yield* apiKeys.create({ userId: bootstrapKey!.userId, name: "in-process", projectIds: null })
        const principal = yield* apiKeys.authenticate(secret)
        const runner = yield* ToolRunner
        const result = yield* runner.call("list_task_types", {}).pipe(
          Effect.provideService(CurrentPrincipal, principal),
          Effect.provideService(DefaultProject, null)
        )
        expect(result).toMatchObject({ taskTypes: expect.arrayContaining([{ key: "bug", name: "Bug", builtIn: true }]) })
        const projects = yield* runner.call("list_projects", {}).pipe(
          Effect.provideService(CurrentPrincipal, principal),
          Effect.provideService(DefaultProject, null)
        )
        expect(projects).toMatchObject({ projects: [{ ref: "DEMO" }] })
      }))
  })
})
