/**
 * The official TypeScript SDKs against `trellis serve`'s listener on one URL: v2 speaks
 * 2026-07-28 (and its Skills client verifies every file it reads), v1 the 2025 handshake.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client"
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills"
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { serveNode } from "../../src/server/NodeServer.js"
import * as Trellis from "../../src/server/Trellis.js"
import { ok } from "../support/TaskTools.js"
import { TestServer } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"

class Seeded extends Context.Tag("test/Seeded")<Seeded, { readonly url: string; readonly projectId: string; readonly key: string }>() {}

const SKILL_MD = "---\nname: släde-ride\ndescription: Ride the sledge — carefully\nmetadata:\n  level: \"2\"\n---\n\n# Släde\nHold on.\n"

const SeededLive = Layer.scoped(
  Seeded,
  Effect.gen(function*() {
    const address = yield* serveNode(Trellis.routes, { host: "127.0.0.1", port: 0 })
    const owner = yield* seedOwner("sdk")
    const path = { path: `/api/mcp?project=${owner.project.id}` }
    yield* ok(owner.key, "create_prompt", { key: "review", content: "Review the diff." }, path)
    const created = yield* ok(owner.key, "create_skill", { name: "sled-ride", content: SKILL_MD.replace("släde-ride", "sled-ride") }, path)
    yield* ok(owner.key, "update_skill", {
      skillId: (created as { skillId: string }).skillId,
      edits: [{ op: "write", path: "references/HILLS.md", content: "Steep — slow down.\n" }]
    }, path)
    return { url: `http://127.0.0.1:${address.port}/api/mcp?project=${owner.project.id}`, projectId: owner.project.id, key: owner.key }
  })
)

const env = SeededLive.pipe(Layer.provideMerge(TestServer()))

const connectV2 = ({ url, key }: { readonly url: string; readonly key: string }) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new ClientV2({ name: "sdk-v2-test", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } })
      await client.connect(new TransportV2(new URL(url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )

describe("the official SDK clients on one URL", () => {
  layer(env)((it) => {
    it.scoped("SDK v2 connects in 2026-07-28 with server/discover, lists every tool, and calls a project tool (sending Mcp-Param-Project)", () =>
      Effect.gen(function*() {
        const seeded = yield* Seeded
        const client = yield* connectV2(seeded)
        expect(client.getProtocolEra()).toBe("modern")
        expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28")
        expect(client.getServerVersion()?.name).toBe("trellis")
        const { tools } = yield* Effect.promise(() => client.listTools())
        expect(tools.length).toBeGreaterThanOrEqual(50)
        const labels = yield* Effect.promise(() =>
          client.callTool({ name: "list_task_labels", arguments: { projectId: seeded.projectId } })
        )
        expect(labels.isError).toBeFalsy()
        expect(labels).toMatchObject({ structuredContent: { labels: expect.any(Array) } })
        const { prompts } = yield* Effect.promise(() => client.listPrompts())
        expect(prompts.map((prompt) => prompt.name)).toEqual(["review"])
      }))

    it.scoped("SDK v2's Skills client lists the project's Skills and reads SKILL.md and a file, each verified against its digest, size and frontmatter", () =>
      Effect.gen(function*() {
        const client = yield* connectV2(yield* Seeded)
        const skills = new SkillsClient(client)
        expect(skills.supported).toBe(true)
        const listing = yield* Effect.promise(() => skills.list())
        expect(listing.skills.map((skill) => skill.frontmatter["name"])).toEqual(["sled-ride"])
        expect(listing).toMatchObject({ cacheScope: "private", ttlMs: expect.any(Number) })
        const skill = listing.skills[0]!
        const manifest = yield* Effect.promise(() => skills.read(skill))
        expect(manifest).toMatchObject({
          verified: true,
          frontmatter: { name: "sled-ride", description: "Ride the sledge — carefully", metadata: { level: "2" } }
        })
        const file = yield* Effect.promise(() => skills.read(skill, "references/HILLS.md"))
        expect(file).toMatchObject({ verified: true, text: "Steep — slow down.\n" })
        if (skills.directoryRead) {
          const root = skill.uri.replace(/\/SKILL\.md$/, "")
          const { resources } = yield* Effect.promise(() => skills.readDirectory(root))
          expect(resources.map((resource) => resource.uri).sort()).toEqual([`${root}/SKILL.md`, `${root}/references`])
        }
      }))

    it.scoped("SDK v1 still connects with the 2025-11-25 handshake on the same URL and calls tools", () =>
      Effect.gen(function*() {
        const { url, key, projectId } = yield* Seeded
        const client = yield* Effect.acquireRelease(
          Effect.promise(async () => {
            const client = new ClientV1({ name: "sdk-v1-test", version: "1.0.0" })
            await client.connect(new TransportV1(new URL(url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
            return client
          }),
          (client) => Effect.promise(() => client.close())
        )
        expect(client.getServerVersion()?.name).toBe("trellis")
        const labels = yield* Effect.promise(() => client.callTool({ name: "list_task_labels", arguments: { projectId } }))
        expect(labels).toMatchObject({ structuredContent: { labels: expect.any(Array) } })
        const resources = yield* Effect.promise(() => client.listResources())
        expect(resources.resources.some((resource) => resource.uri.endsWith("/sled-ride/SKILL.md"))).toBe(true)
      }))
  })
})
