import { HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { afterAll, beforeAll, describe, expect, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Option, Stream } from "effect"
import { execFileSync } from "node:child_process"
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { runAgent } from "../../../cli/agent/AgentLoop.js"
import { makeAgentLog } from "../../../cli/agent/AgentLog.js"
import { Git } from "../../../cli/agent/Git.js"
import { Journal } from "../../../cli/agent/Journal.js"
import { ClaudeCode } from "../../../cli/agent/runtimes/ClaudeCode.js"
import type { Runtime } from "../../../cli/agent/runtimes/Runtime.js"
import { serveNode } from "../../../src/server/NodeServer.js"
import * as Trellis from "../../../src/server/Trellis.js"
import { TestDatabase } from "../../support/TestDatabase.js"
import { seedOwner } from "../../support/Seed.js"

const replay = fileURLToPath(new URL("../../support/replay/claude.mjs", import.meta.url))

/**
 * A bin directory whose `claude` is the replay runtime, first on PATH for the spawned runtimes
 * while this file runs (the worker runs other files after it, with PATH as it was).
 */
const savedPath = process.env["PATH"]
beforeAll(() => {
  const bin = mkdtempSync(join(tmpdir(), "trellis-bin-"))
  copyFileSync(replay, join(bin, "claude"))
  process.env["PATH"] = `${bin}:${savedPath ?? ""}`
})
afterAll(() => {
  if (savedPath !== undefined) process.env["PATH"] = savedPath
})

/** The backend on a random local port; its base URL is the service. */
class ServerUrl extends Effect.Tag("test/ServerUrl")<ServerUrl, string>() {}
const Backend = Layer.scoped(
  ServerUrl,
  Effect.gen(function*() {
    const address = yield* serveNode(Trellis.routes, { host: "127.0.0.1", port: 0 })
    return `http://127.0.0.1:${address.port}`
  })
).pipe(Layer.provideMerge(Trellis.services({ rateLimit: Option.none() })), Layer.provideMerge(TestDatabase))

const mcp = (server: string, key: string, name: string, args: unknown) =>
  Effect.gen(function*() {
    const http = yield* HttpClient.HttpClient
    const response = yield* http.execute(
      HttpClientRequest.post(`${server}/api/mcp`).pipe(
        HttpClientRequest.bearerToken(key),
        HttpClientRequest.setHeader("accept", "application/json, text/event-stream"),
        HttpClientRequest.bodyUnsafeJson({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } })
      )
    )
    const body: unknown = yield* response.json
    return Object(Reflect.get(Object(Reflect.get(Object(body), "result")), "structuredContent"))
  }).pipe(Effect.scoped)

const eventually = <A, E, R>(what: string, effect: Effect.Effect<A, E, R>, done: (a: A) => boolean, timeoutMs = 20_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    while (true) {
      const value = yield* effect
      if (done(value)) return value
      if (Date.now() > deadline) return yield* Effect.dieMessage(`timed out waiting for ${what}: ${JSON.stringify(value)}`)
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 100)))
    }
  })

/** `trellis agent start`'s loop for one checkout, its log lines kept in `log`. */
type Owner = Effect.Effect.Success<ReturnType<typeof seedOwner>>

const startAgent = (
  server: string,
  owner: Owner,
  checkout: string,
  home: string,
  options: { readonly log: Array<string>; readonly runtime: Runtime; readonly maxConcurrent: number }
) =>
  runAgent({
    profileName: "test",
    server,
    apiKey: owner.key,
    projectId: owner.project.id,
    machineName: "test-machine",
    hostname: "test-host",
    machineId: "test-machine-id",
    profileId: undefined,
    paths: [{ path: checkout, label: "project", gitRemoteUrl: null, branch: null }],
    availableClis: [{ type: "claude", version: "replay" }],
    runtimeFor: (cliType) => (cliType === "claude" ? options.runtime : undefined),
    approve: "none",
    interactionTimeoutMs: 60_000,
    maxConcurrent: options.maxConcurrent,
    force: false,
    stateDir: join(home, "state"),
    log: makeAgentLog("json", { write: (line) => options.log.push(line) }),
    rememberProfileId: () => Effect.void
  }).pipe(Effect.provide([Journal.Default(join(home, "journal")), Git.Default]))

/** The CLI's registered profile and its one path, once it has registered. */
const registered = (server: string, owner: Owner) =>
  Effect.gen(function*() {
    const profiles = yield* eventually(
      "the CLI to register",
      mcp(server, owner.key, "list_cli_profiles", { projectId: owner.project.id }),
      (result) => Array.isArray(result["profiles"]) && result["profiles"].length === 1
    )
    const profile = Object(Reflect.get(profiles["profiles"], 0))
    return { profileId: profile["profileId"], pathId: Reflect.get(Object(Reflect.get(profile["paths"], 0)), "pathId") }
  })

const answeredIn = (server: string, key: string, threadId: string) =>
  eventually(
    "the answer",
    mcp(server, key, "list_thread_messages", { threadId }),
    (result) =>
      Array.isArray(result["messages"]) &&
      result["messages"].some((m: unknown) =>
        Reflect.get(Object(m), "status") === "completed" && Reflect.get(Object(m), "role") === "assistant"
      )
  )

/** The backend's URL, a fresh owner, and a machine's home with its checkout. */
const machineOf = (slug: string) =>
  Effect.gen(function*() {
    const server = yield* ServerUrl
    const owner = yield* seedOwner(slug)
    const home = mkdtempSync(join(tmpdir(), "trellis-agent-"))
    const checkout = join(home, "project")
    mkdirSync(checkout)
    return { checkout, home, owner, server }
  })

describe("trellis agent: the claim loop", () => {
  layer(Layer.mergeAll(Backend, NodeContext.layer, NodeHttpClient.layerUndici), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect("a thread created over MCP is claimed, run by the runtime and answered; the loop disconnects when stopped", () =>
      Effect.gen(function*() {
        const { checkout, home, owner, server } = yield* machineOf("agent-loop")
        const lines: Array<string> = []
        const agent = yield* Effect.fork(startAgent(server, owner, checkout, home, { log: lines, runtime: ClaudeCode, maxConcurrent: 2 }))

        const { pathId, profileId } = yield* registered(server, owner)
        const thread = yield* mcp(server, owner.key, "create_thread", { content: "hello agent", profileId, pathId, cliType: "claude" })
        const threadId = String(thread["threadId"])

        const answered = yield* answeredIn(server, owner.key, threadId)
        const assistant = Object(Reflect.get(answered["messages"], 1))
        expect(assistant["text"]).toBe("Echo: hello agent")

        // A second message is the next batch: the runtime resumes the session it was given.
        yield* mcp(server, owner.key, "send_thread_message", { threadId, content: "and again" })
        const second = yield* eventually(
          "the second answer",
          mcp(server, owner.key, "list_thread_messages", { threadId }),
          (result) =>
            Array.isArray(result["messages"]) && result["messages"].length === 4 &&
            Reflect.get(Object(Reflect.get(result["messages"], 3)), "status") === "completed"
        )
        expect(Reflect.get(Object(Reflect.get(second["messages"], 3)), "text")).toBe("Echo: and again")
        const idle = yield* eventually(
          "the thread to go idle",
          mcp(server, owner.key, "get_thread", { threadId }),
          (t) => t["status"] === "idle"
        )
        expect(idle["targetOnline"]).toBe(true)

        yield* Fiber.interrupt(agent)
        const offline = yield* mcp(server, owner.key, "get_thread", { threadId })
        expect(offline["targetOnline"]).toBe(false)
        expect(lines.some((line) => line.includes("disconnected"))).toBe(true)
        expect(lines.join("")).not.toContain(owner.key)
      }))

    it.effect("a thread claimed when another is released is answered: its batch ends with its runtime, the turn's stop watch interrupted", () =>
      Effect.gen(function*() {
        const { checkout, home, owner, server } = yield* machineOf("agent-loop-redispatch")
        // The first batch waits until the second thread is queued: with room for one thread, the
        // second is then claimed by the dispatch that follows the first one's release.
        const gate = yield* Deferred.make<void>()
        let batches = 0
        const runtime: Runtime = {
          ...ClaudeCode,
          run: (input) => Stream.unwrap((++batches === 1 ? Deferred.await(gate) : Effect.void).pipe(Effect.as(ClaudeCode.run(input))))
        }
        // A daemon: were its runs uninterruptible, the test's own clean-up would hang on it instead of failing.
        const agent = yield* Effect.forkDaemon(startAgent(server, owner, checkout, home, { log: [], runtime, maxConcurrent: 1 }))
        const { pathId, profileId } = yield* registered(server, owner)
        const first = yield* mcp(server, owner.key, "create_thread", { content: "first", profileId, pathId, cliType: "claude" })
        yield* eventually("the first batch to start", Effect.sync(() => batches), (n) => n === 1)
        const second = yield* mcp(server, owner.key, "create_thread", { content: "second", profileId, pathId, cliType: "claude" })
        yield* Deferred.succeed(gate, undefined)

        yield* answeredIn(server, owner.key, String(first["threadId"]))
        yield* answeredIn(server, owner.key, String(second["threadId"]))
        expect(batches).toBe(2)
        yield* Fiber.interrupt(agent)
      }))

    it.effect("a turn that edits files is followed by a change report of the checkout", () =>
      Effect.gen(function*() {
        const { checkout, home, owner, server } = yield* machineOf("agent-loop-changes")
        const git = (...args: ReadonlyArray<string>) => execFileSync("git", ["-C", checkout, ...args], { encoding: "utf8" }).trim()
        git("init", "-q", "-b", "main")
        git("-c", "user.email=dev@example.com", "-c", "user.name=Dev", "commit", "-q", "--allow-empty", "-m", "base")
        const base = git("rev-parse", "HEAD")
        // The runtime edits the working copy during its turn, as an agent does.
        const runtime: Runtime = {
          ...ClaudeCode,
          run: (input) =>
            Stream.unwrap(
              Effect.sync(() => writeFileSync(join(input.cwd, "edited.txt"), "written by the agent\n")).pipe(
                Effect.as(ClaudeCode.run(input))
              )
            )
        }
        const agent = yield* Effect.forkDaemon(startAgent(server, owner, checkout, home, { log: [], runtime, maxConcurrent: 1 }))
        const { pathId, profileId } = yield* registered(server, owner)
        const thread = yield* mcp(server, owner.key, "create_thread", { content: "edit a file", profileId, pathId, cliType: "claude" })
        const threadId = String(thread["threadId"])

        const changes = yield* eventually(
          "the change report",
          mcp(server, owner.key, "get_thread_changes", { threadId }),
          (result) => result["report"] !== null && result["report"] !== undefined
        )
        expect(changes["report"]).toMatchObject({ baseCommit: base, headCommit: base, branch: "main", totals: { files: 1, additions: 1 } })
        expect(changes["files"]).toEqual([{
          path: "edited.txt",
          status: "added",
          additions: 1,
          deletions: 0,
          binary: false,
          patch: expect.stringContaining("+written by the agent")
        }])
        yield* Fiber.interrupt(agent)
      }))

    it.effect("a change report asked between turns is sent by the idle CLI, with what was edited since", () =>
      Effect.gen(function*() {
        const { checkout, home, owner, server } = yield* machineOf("agent-loop-changes-asked")
        const log: Array<string> = []
        const git = (...args: ReadonlyArray<string>) => execFileSync("git", ["-C", checkout, ...args], { encoding: "utf8" }).trim()
        git("init", "-q", "-b", "main")
        git("-c", "user.email=dev@example.com", "-c", "user.name=Dev", "commit", "-q", "--allow-empty", "-m", "base")
        const agent = yield* Effect.forkDaemon(startAgent(server, owner, checkout, home, { log, runtime: ClaudeCode, maxConcurrent: 1 }))
        const { pathId, profileId } = yield* registered(server, owner)
        const thread = yield* mcp(server, owner.key, "create_thread", { content: "look around", profileId, pathId, cliType: "claude" })
        const threadId = String(thread["threadId"])
        const first = yield* eventually(
          "the turn's report",
          mcp(server, owner.key, "get_thread_changes", { threadId }),
          (result) => result["report"] !== null && result["report"] !== undefined
        )
        expect(first["files"]).toEqual([])

        // A person edits the working copy by hand, then asks for a fresh report.
        writeFileSync(join(checkout, "by-hand.txt"), "edited by a person\n")
        const asked = yield* mcp(server, owner.key, "refresh_thread_changes", { threadId })
        expect(asked["machineOnline"]).toBe(true)
        const fresh = yield* eventually(
          "the report asked for",
          mcp(server, owner.key, "get_thread_changes", { threadId }),
          (result) => Array.isArray(result["files"]) && result["files"].length === 1
        )
        expect(Reflect.get(Object(fresh["report"]), "reportId")).not.toBe(Reflect.get(Object(first["report"]), "reportId"))
        expect(fresh["files"]).toEqual([expect.objectContaining({ path: "by-hand.txt", status: "added", additions: 1 })])
        yield* Fiber.interrupt(agent)
      }))
  })
})
