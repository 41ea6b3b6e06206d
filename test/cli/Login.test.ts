import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { login } from "../../cli/agent/Login.js"
import { Profiles } from "../../cli/agent/Profiles.js"
import { CliProfileId } from "../../catalog/domain/Ids.js"
import { serveNode } from "../../src/server/NodeServer.js"
import * as Trellis from "../../src/server/Trellis.js"
import { TestDatabase } from "../support/TestDatabase.js"
import { seedOwner } from "../support/Seed.js"
import { cli, tempDir, withEnv } from "./support.js"

/** The issue "The local CLI": `trellis agent login` against a real server (`trellis serve`'s listener). */

class ServerUrl extends Context.Tag("test/ServerUrl")<ServerUrl, string>() {}

const Server = Layer.scoped(
  ServerUrl,
  Effect.gen(function*() {
    const address = yield* serveNode(Trellis.routes, { host: "127.0.0.1", port: 0 })
    return `http://127.0.0.1:${address.port}`
  })
).pipe(
  Layer.provideMerge(Trellis.services({ rateLimit: Option.none() })),
  Layer.provideMerge(TestDatabase)
)

/** Runs `body` with the server's URL, a seeded owner and a Profiles service in a fresh directory. */
const withLogin = <A, E, R>(
  slug: string,
  body: (ctx: {
    readonly server: string
    readonly key: string
    readonly projectId: string
    readonly configDir: string
  }) => Effect.Effect<A, E, R>
) =>
  Effect.scoped(Effect.gen(function*() {
    const server = yield* ServerUrl
    const owner = yield* seedOwner(slug)
    const configDir = path.join(yield* tempDir("login"), "trellis")
    return yield* body({ server, key: owner.key, projectId: owner.project.id, configDir }).pipe(
      Effect.provide(Layer.mergeAll(Profiles.layer({ configDir }), NodeHttpClient.layerUndici)),
      withEnv({})
    )
  }))

/** A local port nothing listens on: one the system just handed out and took back. */
const closedPort = Effect.async<number>((resume) => {
  const server = net.createServer().listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

const input = (server: string, key: string, project: string) => ({
  server,
  apiKey: Redacted.make(key),
  project,
  name: Option.none(),
  machineName: Option.some("laptop")
})

describe("trellis agent login", () => {
  layer(Server, { timeout: "60 seconds" })((it) => {
    it.effect("verifies the key, resolves a project ref, saves the profile and makes the first one the default", () =>
      withLogin("login-ref", ({ server, key, projectId, configDir }) =>
        Effect.gen(function*() {
          // A ref in any case, and a trailing slash on the server URL, are accepted.
          const first = yield* login(input(`${server}/`, key, "main"))
          expect(first).toMatchObject({ name: "main", isDefault: true, updated: false })
          expect(first.profile).toMatchObject({ server, projectId, projectRef: "MAIN", machineName: "laptop", paths: [] })
          const profiles = yield* Profiles
          expect(Redacted.value((yield* profiles.get("main")).apiKey)).toBe(key)

          // By ID, under another name: saved, but the first stays the default.
          const second = yield* login({ ...input(server, key, projectId), name: Option.some("work") })
          expect(second).toMatchObject({ name: "work", isDefault: false })
          expect(yield* profiles.defaultProfile).toBe("main")

          // Logging in again (a new key, say) keeps the profile's paths and server-side ID.
          const profileId = CliProfileId.generate()
          yield* profiles.setProfileId("main", profileId)
          const entry = { path: configDir, label: "x", gitRemoteUrl: null, branch: null, kind: "checkout" as const, parentPath: null }
          yield* profiles.save("main", { ...(yield* profiles.get("main")), paths: [entry] })
          const again = yield* login(input(server, key, "MAIN"))
          expect(again).toMatchObject({ name: "main", updated: true, profile: { profileId, paths: [entry] } })
          // A profile of that name for another server or project is not replaced.
          const clash = yield* Effect.flip(login(input(server.replace("127.0.0.1", "localhost"), key, "MAIN")))
          expect(clash.message).toContain("profile main already exists")

          const stored = JSON.parse(fs.readFileSync(path.join(configDir, "profiles.json"), "utf8"))
          expect(Object.keys(stored.profiles).sort()).toEqual(["main", "work"])
        })))

    it.effect("a key the server refuses is a clear 401 error, and nothing is saved", () =>
      withLogin("login-bad-key", ({ server, configDir }) =>
        Effect.gen(function*() {
          const error = yield* Effect.flip(login(input(server, "trellis_not_a_real_key_0000000000000000", "MAIN")))
          expect(error._tag).toBe("LoginError")
          expect(error.message).toContain("rejected the API key trellis_…0000")
          expect(error.message).toContain("401")
          expect(error.message).not.toContain("not_a_real_key")
          expect(fs.existsSync(path.join(configDir, "profiles.json"))).toBe(false)
        })))

    it.effect("a server that cannot be reached is named with the cause, and nothing is saved", () =>
      withLogin("login-unreachable", ({ configDir, key }) =>
        Effect.gen(function*() {
          const closed = yield* closedPort
          const error = yield* Effect.flip(login(input(`http://127.0.0.1:${closed}`, key, "MAIN")))
          expect(error._tag).toBe("LoginError")
          expect(error.message).toContain(`cannot reach http://127.0.0.1:${closed}/api/mcp`)
          expect(error.message).toContain("ECONNREFUSED")
          expect(fs.existsSync(path.join(configDir, "profiles.json"))).toBe(false)
        })))

    it.effect("a URL that is not a Trellis server answers 404 with a hint", () =>
      withLogin("login-not-trellis", ({ server, key }) =>
        Effect.gen(function*() {
          const error = yield* Effect.flip(login(input(`${server}/elsewhere`, key, "MAIN")))
          expect(error.message).toContain("answered HTTP 404")
          expect(error.message).toContain("is this the base URL of a Trellis server?")
        })))

    it.effect("a project the key cannot access is refused, naming the projects it can", () =>
      withLogin("login-unknown", ({ server, key, projectId, configDir }) =>
        Effect.gen(function*() {
          const error = yield* Effect.flip(login(input(server, key, "NOPE")))
          expect(error._tag).toBe("LoginError")
          expect(error.message).toContain("project NOPE is not one this API key can access")
          expect(error.message).toContain(`MAIN (${projectId})`)
          const byId = yield* Effect.flip(login(input(server, key, "proj_00000000000000000000000000000000")))
          expect(byId.message).toContain("proj_00000000000000000000000000000000")
          expect(fs.existsSync(path.join(configDir, "profiles.json"))).toBe(false)
        })))

    it.effect("the commands: login, profiles list|use|remove, never printing the key", () =>
      withLogin("login-cli", ({ server, key, projectId, configDir }) =>
        Effect.gen(function*() {
          const loggedIn = yield* cli(configDir, ["login", "--server", server, "--api-key", key, "--project", "main", "--json"])
          expect(loggedIn.failed).toBe(false)
          expect(JSON.parse(loggedIn.stdout)).toMatchObject({ name: "main", default: true, projectId, projectRef: "MAIN", server })
          yield* cli(configDir, ["login", "--server", server, "--api-key", key, "--project", projectId, "--name", "work"])

          const listed = yield* cli(configDir, ["profiles", "list", "--json"])
          expect(JSON.parse(listed.stdout)).toMatchObject({
            defaultProfile: "main",
            profiles: [{ name: "main", default: true, pathCount: 0 }, { name: "work", default: false }]
          })
          yield* cli(configDir, ["profiles", "use", "work"])
          const text = yield* cli(configDir, ["profiles", "list"])
          expect(text.stdout).toMatch(/^ {3}main .*MAIN .*0 paths\n\* {2}work /)

          const missing = yield* cli(configDir, ["profiles", "use", "ghost"])
          expect(missing.failed).toBe(true)
          expect(missing.stderr).toContain("error: profile ghost does not exist")
          yield* cli(configDir, ["profiles", "remove", "work"])
          expect(JSON.parse((yield* cli(configDir, ["profiles", "list", "--json"])).stdout).defaultProfile).toBeNull()

          const refused = yield* cli(configDir, ["login", "--server", server, "--api-key", "trellis_wrong", "--project", "main"])
          expect(refused.failed).toBe(true)
          expect(refused.stderr).toContain("401")
          for (const run of [loggedIn, listed, text, refused]) {
            expect(run.stdout + run.stderr).not.toContain(key)
            expect(run.stdout + run.stderr).not.toContain("trellis_wrong")
          }
        })))
  })
})
