/**
 * The bench's side of the CLI bridge: the typed client of catalog/bridge/TrellisApi.ts (what the CLI
 * uses), CLI registration, thread creation through MCP, and a bare SSE reader that timestamps
 * each frame as it arrives.
 *
 * The client is built as test/support/FakeCli.ts's `bridgeClient` is, not imported from it:
 * FakeCli.ts imports @effect/vitest, which refuses to load outside a vitest run.
 */
import { HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect } from "effect"
import { Agent, request, type IncomingMessage } from "node:http"
import { performance } from "node:perf_hooks"
import { TrellisApi } from "../../catalog/bridge/TrellisApi.js"
import type { AgentSessionId, ProjectId } from "../../catalog/domain/Ids.js"
import { callTool, stringField, type McpTarget } from "../task-tools/Mcp.js"

/** A typed client of the bridge API acting with one API key, against the server at `baseUrl`. */
export const bridgeClient = (baseUrl: string, key: string) =>
  Effect.gen(function*() {
    const http = yield* HttpClient.HttpClient
    return yield* HttpApiClient.makeWith(TrellisApi, {
      httpClient: http.pipe(HttpClient.mapRequest(HttpClientRequest.bearerToken(key))),
      baseUrl
    })
  })

export type BridgeClient = Effect.Effect.Success<ReturnType<typeof bridgeClient>>

/** The runtimes a bench CLI reports (the three that execute), as test/support/FakeCli.ts's `registerCli`. */
const AVAILABLE_CLIS = [
  { type: "claude", version: "2.1.197" },
  { type: "codex", version: "0.169.0" },
  { type: "opencode", version: "1.18.33" }
] as const

/** A registered CLI: its session, and the profile and checkout its threads target. */
export interface Cli {
  readonly name: string
  readonly sessionId: AgentSessionId
  readonly profileId: string
  readonly pathId: string
}

/** Registers a new CLI (a new profile, so a session of its own) with one checkout. */
export const registerCli = (client: BridgeClient, projectId: ProjectId, name: string) =>
  Effect.gen(function*() {
    const registered = yield* client.agent.register({
      payload: {
        projectId,
        name,
        hostname: `${name}.local`,
        appVersion: "0.1.0",
        availableClis: AVAILABLE_CLIS,
        paths: [{ path: "/home/dev/project", gitRemoteUrl: "git@example.com:acme/project.git", branch: "main" }],
        force: false
      }
    })
    const path = registered.profile.paths[0]
    if (path === undefined) return yield* Effect.dieMessage(`${name}: registered without a checkout`)
    return { name, sessionId: registered.sessionId, profileId: registered.profile.profileId, pathId: path.pathId } satisfies Cli
  })

/** Creates `count` pending threads for the CLI through the `create_thread` tool; returns their IDs in order. */
export const createThreads = (
  mcp: McpTarget,
  cli: Cli,
  count: number,
  cliType: string,
  concurrency: number
): Effect.Effect<ReadonlyArray<string>> =>
  Effect.forEach(
    Array.from({ length: count }, (_, i) => i),
    (i) =>
      Effect.promise(() =>
        callTool(mcp, {
          name: "create_thread",
          arguments: { content: `Benchmark thread ${i + 1} for ${cli.name}`, profileId: cli.profileId, pathId: cli.pathId, cliType }
        })
      ).pipe(Effect.map((thread) => stringField(thread, "threadId"))),
    { concurrency }
  )

/**
 * `POST /api/agent/claim` for one CLI on keep-alive sockets of its own, with nothing between the
 * socket and `JSON.parse`: on a 2-core machine the load generator shares the cores with the server
 * and PostgreSQL, and the typed client spent as much CPU per claim as the server did. The typed
 * client still registers, heartbeats and uploads; the fast path's replies are the contract's.
 */
export const leanClaimer = (baseUrl: string, key: string, sockets: number) => {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets })
  const url = new URL("/api/agent/claim", baseUrl)
  const claim = (sessionId: string): Promise<string | undefined> =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({ sessionId })
      const req = request(url, {
        method: "POST",
        agent,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) }
      }, (response) => {
        void readBody(response).then((text) => {
          if (response.statusCode !== 200) return reject(new Error(`claim: HTTP ${response.statusCode} ${text.slice(0, 300)}`))
          const thread: unknown = Reflect.get(JSON.parse(text), "thread")
          const threadId: unknown = thread === null ? undefined : Reflect.get(Object(thread), "threadId")
          resolve(typeof threadId === "string" ? threadId : undefined)
        })
      })
      req.on("error", reject)
      req.end(body)
    })
  return { claim, close: () => agent.destroy() }
}

// ---- server-sent events -------------------------------------------------------------------

export interface SseFrame {
  readonly id: string | undefined
  readonly event: string
  readonly data: unknown
  /** performance.now() when the bytes completing the frame were read. */
  readonly arrivedAt: number
}

export interface SseStream {
  /** Resolves with performance.now() when the response headers arrive (status 200); rejects otherwise. */
  readonly ready: Promise<number>
  readonly close: () => void
  /** How many frames (keep-alive comments aside) have arrived. */
  readonly frameCount: () => number
}

const parseFrame = (raw: string, arrivedAt: number): SseFrame | undefined => {
  const lines = raw.split("\n").filter((line) => line !== "" && !line.startsWith(":"))
  if (lines.length === 0) return undefined
  const field = (name: string) => lines.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2)
  const data = field("data")
  return { id: field("id"), event: field("event") ?? "message", data: data === undefined ? null : JSON.parse(data), arrivedAt }
}

const readBody = (response: IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    let body = ""
    response.setEncoding("utf8")
    response.on("data", (piece: string) => {
      body += piece
    })
    response.on("end", () => resolve(body))
    response.on("error", () => resolve(body))
  })

/**
 * Opens `GET url` as an SSE stream on a socket of its own (node:http, no client library in the
 * way) and calls `onFrame` for each frame as it arrives. Returns at once: the server may hold
 * the response headers back until it has a first frame to send, so `ready` is apart.
 */
export const openSse = (url: string, key: string, onFrame: (frame: SseFrame) => void): SseStream => {
  let frames = 0
  let settle: { resolve: (at: number) => void; reject: (error: Error) => void } | undefined
  const ready = new Promise<number>((resolve, reject) => {
    settle = { resolve, reject }
  })
  ready.catch(() => undefined)
  const req = request(url, { agent: false, headers: { authorization: `Bearer ${key}`, accept: "text/event-stream" } }, (response) => {
    if (response.statusCode !== 200) {
      void readBody(response).then((body) => settle?.reject(new Error(`GET ${url}: HTTP ${response.statusCode} ${body.slice(0, 300)}`)))
      return
    }
    settle?.resolve(performance.now())
    let buffer = ""
    response.setEncoding("utf8")
    response.on("data", (piece: string) => {
      const arrivedAt = performance.now()
      const parts = (buffer + piece).split("\n\n")
      buffer = parts.pop() ?? ""
      for (const raw of parts) {
        const frame = parseFrame(raw, arrivedAt)
        if (frame === undefined) continue
        frames++
        onFrame(frame)
      }
    })
    response.on("error", () => undefined)
  })
  req.on("error", (error) => settle?.reject(error))
  req.end()
  return { ready, close: () => req.destroy(), frameCount: () => frames }
}

/** The `{messageId, seq}` of an `event` frame on a thread's stream, as one key. */
export const chunkKey = (messageId: string, seq: number): string => `${messageId}#${seq}`

export const frameChunkKey = (frame: SseFrame): string | undefined => {
  if (frame.event !== "event" || typeof frame.data !== "object" || frame.data === null) return undefined
  const messageId: unknown = Reflect.get(frame.data, "messageId")
  const seq: unknown = Reflect.get(frame.data, "seq")
  return typeof messageId === "string" && typeof seq === "number" ? chunkKey(messageId, seq) : undefined
}
