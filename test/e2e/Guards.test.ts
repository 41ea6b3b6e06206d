/**
 * The HTTP guards of a real `trellis serve`, spoken to over raw sockets: Host/Origin, the API key
 * and the declared body length are decided from the headers before any body byte is read; bodies
 * are cut at the limit; a slow request is closed while an SSE stream lives on; every authenticated
 * route family has a rate budget. (RSS is read from /proc: Linux only, like CI.)
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import { eventually, killEverything, removeTempDirs, tempDir } from "./support/Processes.js"
import { exchange, head, RawConnection } from "./support/RawHttp.js"
import { type Serve, startServe } from "./support/Trellis.js"

const REQUEST_TIMEOUT_MS = 1_500
const LIMIT = 4 * 1024 * 1024
/** NodeIo.DRAIN_LIMIT_BYTES: a refused body up to this size is read and discarded, a larger one never. */
const DRAIN_LIMIT = 64 * 1024
const session = `session_${"0".repeat(32)}`
const thread = `thread_${"0".repeat(32)}`

let serve: Serve | undefined
const backend = (): Serve => {
  if (serve === undefined) throw new Error("trellis serve did not start")
  return serve
}

/** One route of each family, with a body it accepts in shape. */
const routes = [
  { family: "mcp", method: "POST", path: "/api/mcp", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) },
  { family: "bridge (fast path)", method: "POST", path: "/api/agent/heartbeat", body: JSON.stringify({ sessionId: session }) },
  { family: "bridge (router)", method: "POST", path: "/api/agent/disconnect", body: JSON.stringify({ sessionId: session }) },
  { family: "client", method: "POST", path: `/api/threads/${thread}/pin`, body: JSON.stringify({ pinned: true }) }
] as const

const open = [
  { family: "health", method: "GET", path: "/health", body: "" },
  { family: "anything else (a web app's pages)", method: "GET", path: "/", body: "" }
] as const

const headersOf = (serve: Serve, extra: Record<string, string> = {}, key: string | null = serve.credentials.apiKey) => ({
  host: `127.0.0.1:${serve.port}`,
  "content-type": "application/json",
  ...(key === null ? {} : { authorization: `Bearer ${key}` }),
  ...extra
})

/** The resident memory of the server: `trellis serve` is a launcher and its child node process. */
const treeRss = (pid: number): number => {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8")
  const own = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? "0") * 1024
  const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim()
  return own + (children === "" ? 0 : children.split(" ").reduce((sum, child) => sum + treeRss(Number(child)), 0))
}

describe("trellis serve's guards in front of every route", () => {
  beforeAll(async () => {
    serve = await startServe(tempDir("trellis-e2e-guards-"), {
      TRELLIS_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      TRELLIS_RATE_LIMIT: "0.05/40",
      TRELLIS_BRIDGE_RATE_LIMIT: "0.05/40"
    })
  }, 90_000)

  afterAll(async () => {
    await killEverything()
    await removeTempDirs()
  }, 30_000)

  it("100 clients without a key, each holding back the last byte of a 3.9 MB body, leave the server's memory flat", async () => {
    const serve = backend()
    const before = treeRss(serve.proc.pid)
    let peak = before
    // Sampled while the bodies are held: the server may take a moment to read what the kernel buffered.
    const sampler = setInterval(() => (peak = Math.max(peak, treeRss(serve.proc.pid))), 50)
    const size = Math.floor(3.9 * 1024 * 1024)
    const connections = await Promise.all(Array.from({ length: 100 }, () => RawConnection.open(serve.port)))
    try {
      await Promise.all(connections.map(async (connection) => {
        await connection.write(head("POST", "/api/mcp", { ...headersOf(serve, {}, null), "content-length": String(size) }))
        await connection.sendBody(size - 1)
      }))
      // Every client gets its answer while it still holds its last byte (on a loaded machine some
      // take seconds: waited for, not timed); then the bodies are held a little longer.
      await eventually(
        "a 401 for every client",
        () => Promise.resolve(connections.filter((connection) => connection.response?.status === 401).length),
        (answered) => answered === connections.length,
        30_000,
        () =>
          `statuses: ${JSON.stringify(connections.map((connection) => connection.response?.status ?? "none"))}; bytes received: ${
            JSON.stringify(connections.map((connection) => connection.receivedBytes))
          }; closed: ${connections.filter((connection) => connection.closed).length}\n${serve.proc.describe()}`
      )
      await new Promise((resolve) => setTimeout(resolve, 1_000))
    } finally {
      clearInterval(sampler)
    }
    const answered = connections.filter((connection) => connection.response?.status === 401).length
    for (const connection of connections) connection.close()
    console.info(`server RSS with 100 held unauthenticated bodies: ${before} → peak ${peak} bytes`)
    // Without the guard the server held every body: +380 MB. A generous bound for GC noise.
    expect(peak - before, `RSS ${before} → peak ${peak} bytes`).toBeLessThan(100 * 1024 * 1024)
    expect(answered).toBe(100)
  }, 120_000)

  describe.each([...routes, ...open])("$family ($method $path)", (route) => {
    it.each([
      ["a foreign Host", { host: "evil.example" }],
      ["a nip.io Host resolving to loopback", { host: "127.0.0.1.nip.io" }],
      ["a foreign Origin", { origin: "https://evil.example" }],
      ["Origin: null", { origin: "null" }]
    ])("%s is 403 with a body saying why", async (_, extra) => {
      const serve = backend()
      const { response, connection } = await exchange(
        serve.port,
        head(route.method, route.path, {
          ...headersOf(serve, extra),
          "content-length": String(Buffer.byteLength(route.body))
        }),
        route.body
      )
      connection.close()
      expect(response.status).toBe(403)
      expect(response.headers["content-type"]).toBe("application/json")
      expect(response.body).toMatch(/(Host|Origin) .* not allowed/)
    })
  })

  describe.each(routes)("$family ($method $path)", (route) => {
    it("without a key: 401 before a body past the drain limit is sent, saying connection: close, and the connection is closed", async () => {
      const serve = backend()
      const connection = await RawConnection.open(serve.port)
      await connection.write(head(route.method, route.path, { ...headersOf(serve, {}, null), "content-length": String(DRAIN_LIMIT + 1) }))
      const response = await connection.answer()
      expect(response.status).toBe(401)
      expect(response.headers["www-authenticate"]).toMatch(/^Bearer realm="trellis"/)
      expect(response.headers["connection"]).toBe("close")
      await connection.until("the server to close the connection", () => connection.closed)
    })

    it("without a key: 401 before a small body is sent; the body is drained and the connection serves the next request", async () => {
      const serve = backend()
      const connection = await RawConnection.open(serve.port)
      await connection.write(head(route.method, route.path, { ...headersOf(serve, {}, null), "content-length": String(DRAIN_LIMIT) }))
      const response = await connection.answer()
      expect(response.status).toBe(401)
      expect(response.headers["connection"]).toBe("keep-alive")
      await connection.sendBody(DRAIN_LIMIT, { stopOnAnswer: false })
      connection.forgetAnswer()
      await connection.write(head("GET", "/health", headersOf(serve)))
      expect((await connection.answer()).status).toBe(200)
      expect(connection.closed).toBe(false)
      connection.close()
    })

    it("a declared 64 MB body: 413 before the body is sent, and the connection is closed", async () => {
      const serve = backend()
      const connection = await RawConnection.open(serve.port)
      await connection.write(head(route.method, route.path, { ...headersOf(serve), "content-length": String(64 * 1024 * 1024) }))
      const response = await connection.answer()
      expect(response.status).toBe(413)
      expect(response.body).toContain(`exceeds ${LIMIT} bytes`)
      await connection.until("the server to close the connection", () => connection.closed)
    })

    it("a chunked body past the limit is cut there: the connection closes before much more than the limit was sent", async () => {
      const serve = backend()
      const connection = await RawConnection.open(serve.port)
      await connection.write(head(route.method, route.path, { ...headersOf(serve), "transfer-encoding": "chunked" }))
      await connection.sendBody(16 * LIMIT, { chunked: true })
      await connection.until("the server to close the connection", () => connection.closed, 30_000)
      // Socket buffers on both sides hold a few MB; a server reading to the end would take all 64 MB.
      expect(connection.bodyBytesSent).toBeLessThan(4 * LIMIT)
      if (connection.response !== undefined) expect(connection.response.status).toBe(413)
    })

    it("a body that trickles in is cut after the request timeout", async () => {
      const serve = backend()
      const connection = await RawConnection.open(serve.port)
      await connection.write(head(route.method, route.path, { ...headersOf(serve), "content-length": "100" }))
      await connection.write("{")
      await connection.until("the server to close the slow request", () => connection.closed, 20 * REQUEST_TIMEOUT_MS)
      if (connection.response !== undefined) expect(connection.response.status).toBe(408)
    })
  })

  it("mcp and the bridge's fast path answer a chunked body past the limit with 413 before cutting it", async () => {
    const serve = backend()
    for (const route of routes.slice(0, 2)) {
      const connection = await RawConnection.open(serve.port)
      await connection.write(head(route.method, route.path, { ...headersOf(serve), "transfer-encoding": "chunked" }))
      await connection.sendBody(16 * LIMIT, { chunked: true })
      const response = await connection.answer()
      expect(response.status, route.path).toBe(413)
      await connection.until("the server to close the connection", () => connection.closed)
    }
  })

  it("headers that never end are cut after the request timeout", async () => {
    const serve = backend()
    const connection = await RawConnection.open(serve.port)
    await connection.write(`GET /health HTTP/1.1\r\nhost: 127.0.0.1:${serve.port}\r\n`)
    await connection.until("the server to close the connection", () => connection.closed, 20 * REQUEST_TIMEOUT_MS)
  })

  /** POSTs JSON with the key and returns the parsed answer, which must be 200. */
  const postJson = async (path: string, payload: unknown): Promise<Record<string, unknown>> => {
    const serve = backend()
    const body = JSON.stringify(payload)
    const { response, connection } = await exchange(
      serve.port,
      head("POST", path, { ...headersOf(serve), "content-length": String(Buffer.byteLength(body)) }),
      body
    )
    connection.close()
    expect(response.status, `${path}: ${response.body}`).toBe(200)
    return Object(JSON.parse(response.body))
  }

  /** A CLI session, registered over the bridge, and its profile's first path. */
  const register = async (name: string) => {
    const registered = await postJson("/api/agent/register", {
      projectId: backend().credentials.projectId,
      name,
      hostname: "guards.local",
      appVersion: "0.1.0",
      availableClis: [{ type: "claude", version: "2.1.197" }],
      paths: [{ path: "/home/dev/guards" }]
    })
    const profile = Object(registered["profile"])
    return { sessionId: String(registered["sessionId"]), profileId: String(profile.profileId), pathId: String(profile.paths[0].pathId) }
  }

  const sseStreams: ReadonlyArray<readonly [string, () => Promise<string>]> = [
    ["a thread's events", async () => {
      const { pathId, profileId } = await register("guards-events")
      const created = await postJson("/api/mcp", {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "create_thread", arguments: { content: "hello", profileId, pathId, cliType: "claude" } }
      })
      const thread = Object(Object(created["result"]).structuredContent)
      return `/api/threads/${String(thread.threadId)}/events`
    }],
    ["a CLI session's pending threads", async () => `/api/agent/sessions/${(await register("guards-pending")).sessionId}/pending`]
  ]

  it.each(sseStreams)(
    "an SSE stream (%s) outlives the request timeout: it has no body, and its response is not bounded",
    async (_, pathOf) => {
      const serve = backend()
      const path = await pathOf()
      const stream = await RawConnection.open(serve.port)
      await stream.write(head("GET", path, { ...headersOf(serve), accept: "text/event-stream" }))
      await stream.until("the SSE response head", () => stream.response !== undefined || stream.streamed !== "" || stream.closed)
      expect(stream.closed).toBe(false)
      expect(stream.response?.status).toBe(200)
      expect(stream.response?.headers["content-type"]).toContain("text/event-stream")
      // Three timeouts and the server's checking interval have passed: a bounded response would be gone.
      await new Promise((resolve) => setTimeout(resolve, 3 * REQUEST_TIMEOUT_MS))
      expect(stream.closed).toBe(false)
      stream.close()
    }
  )

  describe.each([
    { family: "mcp (tools/list)", method: "POST", path: "/api/mcp", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) },
    routes[1],
    { family: "client", method: "GET", path: `/api/threads/${thread}/interactions`, body: "" }
  ])("$family ($method $path)", (route) => {
    it("spending the key's budget gets 429 with Retry-After", async () => {
      const serve = backend()
      for (let i = 0; i < 60; i++) {
        const { response, connection } = await exchange(
          serve.port,
          head(route.method, route.path, {
            ...headersOf(serve),
            "content-length": String(Buffer.byteLength(route.body))
          }),
          route.body
        )
        connection.close()
        if (response.status !== 429) continue
        expect(Number(response.headers["retry-after"])).toBeGreaterThanOrEqual(1)
        expect(response.body).toContain("retryAfterSeconds")
        return
      }
      throw new Error(`no 429 after 60 requests to ${route.path}`)
    })
  })
})
