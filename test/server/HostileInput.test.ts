import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { callTool, rawRequest, TestServer } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"

const toolError = (json: unknown) =>
  (json as { result?: { isError?: boolean; structuredContent?: { error?: { code: string; message: string } } } }).result

const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")

/** `{"a":{"a":…}}` `depth` levels deep, built as text: JSON.stringify itself would overflow. */
const nested = (depth: number) => `${"{\"a\":".repeat(depth)}1${"}".repeat(depth)}`

describe("hostile input is refused, never an internal error", () => {
  layer(TestServer())((it) => {
    it.effect("a cursor that a paginated tool did not issue is invalid_argument naming cursor", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("cursors")
        const foreign = [
          cursorOf(["a0", "list_0192d7c6a1b27c3e8f0a1b2c3d4e5f60"]),
          cursorOf(["2026-02-31 00:00:00+00", "thread_0192d7c6a1b27c3e8f0a1b2c3d4e5f60"]),
          cursorOf([1.5, "task_x"]),
          cursorOf({ a: 1 }),
          cursorOf(["a0"]),
          cursorOf(["a0", "list_0192d7c6a1b27c3e8f0a1b2c3d4e5f60"]).slice(0, 10),
          "!!!"
        ]
        for (
          const [tool, extra] of [
            ["list_threads", {}],
            ["list_task_lists", {}],
            ["search_tasks", { query: "x" }]
          ] as const
        ) {
          for (const cursor of foreign) {
            const res = yield* callTool(key, tool, { projectId: project.id, cursor, ...extra })
            expect(res.status, `${tool} ${cursor}`).toBe(200)
            const result = toolError(res.json)
            expect(result?.isError, `${tool} ${cursor}`).toBe(true)
            expect(result?.structuredContent?.error?.code).toBe("invalid_argument")
            expect(result?.structuredContent?.error?.message).toMatch(/^cursor: /)
          }
        }
      }))

    it.effect("a lone UTF-16 surrogate in any string argument is invalid_argument naming the field", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("surrogates")
        const cases: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
          ["create_task", { projectId: project.id, name: "t", description: "\ud800" }, "description"],
          ["create_task", {
            projectId: project.id,
            name: "t",
            externalLinks: [{ id: "a", kind: "url", url: "https://x.test", title: "x\udfffy" }]
          }, "externalLinks.0.title"],
          ["create_skill", { projectId: project.id, name: "s", description: "d", content: "x\udfffy" }, "content"],
          ["create_project_agent", {
            projectId: project.id,
            name: "a",
            automation: { enabled: true, prompt: "\ud800", cliModel: "m" }
          }, "automation.prompt"]
        ]
        for (const [tool, args, field] of cases) {
          const res = yield* callTool(key, tool, args)
          expect(res.status, tool).toBe(200)
          const result = toolError(res.json)
          expect(result?.isError, `${tool} ${field}`).toBe(true)
          expect(result?.structuredContent?.error?.code).toBe("invalid_argument")
          expect(result?.structuredContent?.error?.message).toContain(
            `${field}: must not split a character (it holds an unpaired UTF-16 surrogate)`
          )
        }
      }))

    it.effect("a message nested deeper than the bound is -32600, not -32603", () =>
      Effect.gen(function*() {
        const { key } = yield* seedOwner("nesting")
        const headers = { authorization: `Bearer ${key}` }
        const deepParams = yield* rawRequest({
          headers,
          body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_task","arguments":{"name":"t","x":${
            nested(100_000)
          }}}}`
        })
        expect(deepParams.status).toBe(400)
        expect(deepParams.json).toMatchObject({ error: { code: -32600 } })
        const deepArguments = yield* rawRequest({
          headers,
          body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_projects","arguments":${nested(5_000)}}}`
        })
        expect(deepArguments.status).toBe(400)
        expect(deepArguments.json).toMatchObject({ error: { code: -32600 } })
      }))
  })
})
