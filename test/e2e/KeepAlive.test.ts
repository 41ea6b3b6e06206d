/**
 * A refusal never costs a keep-alive client its next request: whatever the guard refuses from the
 * headers (403, 401, 413, 429) either keeps the connection usable or says `connection: close`, so
 * the clients people use (Node's keep-alive agent, `fetch`, the MCP SDK client, Chromium) never
 * send a request on a socket the server is closing.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as http from "node:http"
import { chromium } from "playwright-core"
import { CHROMIUM } from "../web/support/Browser.js"
import { killEverything, removeTempDirs, tempDir } from "./support/Processes.js"
import { type Serve, startServe } from "./support/Trellis.js"

const LIMIT = 4 * 1024 * 1024
const thread = `thread_${"0".repeat(32)}`

let serve: Serve | undefined
let limited: Serve | undefined
const backend = (): Serve => {
  if (serve === undefined) throw new Error("trellis serve did not start")
  return serve
}

/** One route of each family, with a body it accepts in shape. */
const routes = [
  { family: "mcp", path: "/api/mcp", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) },
  { family: "bridge (fast path)", path: "/api/agent/heartbeat", body: JSON.stringify({ sessionId: `session_${"0".repeat(32)}` }) },
  { family: "bridge (router)", path: "/api/agent/register", body: JSON.stringify({ name: "x" }) },
  { family: "client", path: `/api/threads/${thread}/pin`, body: JSON.stringify({ pinned: true }) }
] as const

type Outcome = number | string

/** POSTs through `agent` and gives the status, or the socket error's code. */
const post = (agent: http.Agent, port: number, path: string, headers: Record<string, string>, body: string | Buffer) =>
  new Promise<Outcome>((resolve) => {
    const request = http.request({ host: "127.0.0.1", port, method: "POST", path, agent, headers }, (response) => {
      response.resume()
      response.on("end", () => resolve(response.statusCode ?? 0))
      response.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
    })
    request.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
    request.end(body)
  })

/** One socket at a time, kept alive: every request after the first is sent on a reused connection. */
const keepAliveAgent = () => new http.Agent({ keepAlive: true, maxSockets: 1 })

const json = { "content-type": "application/json" }

interface Exchange {
  readonly status: number | undefined
  readonly keepAlive: string
  readonly reused: boolean
}

/** POSTs through `agent`: the status, the `Keep-Alive` answered, and whether it went on a reused connection. */
const exchange = (agent: http.Agent, port: number, headers: Record<string, string>, body: string) =>
  new Promise<Exchange>((resolve, reject) => {
    const request = http.request({ host: "127.0.0.1", port, method: "POST", path: "/api/mcp", agent, headers }, (response) => {
      response.resume()
      response.on(
        "end",
        () =>
          resolve({ status: response.statusCode, keepAlive: String(response.headers["keep-alive"] ?? ""), reused: request.reusedSocket })
      )
    })
    request.on("error", reject)
    request.end(body)
  })

describe("a refusal never breaks a keep-alive client's next request", () => {
  beforeAll(async () => {
    ;[serve, limited] = await Promise.all([
      startServe(tempDir("trellis-e2e-keepalive-")),
      startServe(tempDir("trellis-e2e-keepalive-limited-"), { TRELLIS_RATE_LIMIT: "0.01/3", TRELLIS_BRIDGE_RATE_LIMIT: "0.01/3" })
    ])
  }, 120_000)

  afterAll(async () => {
    await killEverything()
    await removeTempDirs()
  }, 30_000)

  describe.each(routes)("$family (POST $path) through Node's keep-alive agent", (route) => {
    it("403 for Origin: null, six times over one connection: six answers, no socket error", async () => {
      const { port, credentials } = backend()
      const agent = keepAliveAgent()
      const outcomes: Array<Outcome> = []
      for (let i = 0; i < 6; i++) {
        outcomes.push(
          await post(agent, port, route.path, { ...json, origin: "null", authorization: `Bearer ${credentials.apiKey}` }, route.body)
        )
      }
      agent.destroy()
      expect(outcomes).toEqual([403, 403, 403, 403, 403, 403])
    })

    it("401 without a key, then an admitted request on the same connection", async () => {
      const { port, credentials } = backend()
      const agent = keepAliveAgent()
      const refused = await post(agent, port, route.path, json, route.body)
      const next = await post(agent, port, "/api/mcp", { ...json, authorization: `Bearer ${credentials.apiKey}` }, routes[0].body)
      agent.destroy()
      expect([refused, next]).toEqual([401, 200])
    })

    it("413 for a body past the limit, then an admitted request: the next one is answered", async () => {
      const { port, credentials } = backend()
      const agent = keepAliveAgent()
      const refused = await post(
        agent,
        port,
        route.path,
        { ...json, authorization: `Bearer ${credentials.apiKey}` },
        Buffer.alloc(LIMIT + 1, 32)
      )
      const next = await post(agent, port, "/api/mcp", { ...json, authorization: `Bearer ${credentials.apiKey}` }, routes[0].body)
      agent.destroy()
      // The refused request itself may lose the race with its own unsent body; the next one may not.
      expect(refused === 413 || refused === "EPIPE" || refused === "ECONNRESET").toBe(true)
      expect(next).toBe(200)
    })

    it("429 once the key's budget is spent, again and again on one connection: only 2xx and 429", async () => {
      const { port, credentials } = limited ?? backend()
      const agent = keepAliveAgent()
      const outcomes: Array<Outcome> = []
      for (let i = 0; i < 8; i++) {
        outcomes.push(await post(agent, port, route.path, { ...json, authorization: `Bearer ${credentials.apiKey}` }, route.body))
      }
      agent.destroy()
      expect(outcomes.filter((outcome) => outcome === 429).length).toBeGreaterThan(0)
      expect(outcomes.filter((outcome) => typeof outcome !== "number")).toEqual([])
    })
  })

  it("fetch: refusals and admitted requests alternate on its pooled connection without a failure", async () => {
    const { baseUrl, credentials } = backend()
    const statuses: Array<Outcome> = []
    for (let i = 0; i < 6; i++) {
      const refused = await fetch(`${baseUrl}/api/mcp`, { method: "POST", headers: { ...json, origin: "null" }, body: routes[0].body })
        .then((response) => response.status, (error: Error) => String(error.cause ?? error))
      const admitted = await fetch(`${baseUrl}/api/mcp`, {
        method: "POST",
        headers: { ...json, accept: "application/json, text/event-stream", authorization: `Bearer ${credentials.apiKey}` },
        body: routes[0].body
      }).then((response) => response.status, (error: Error) => String(error.cause ?? error))
      statuses.push(refused, admitted)
    }
    expect(statuses).toEqual([403, 200, 403, 200, 403, 200, 403, 200, 403, 200, 403, 200])
  })

  it(
    "a connection idle past the keep-alive time it advertises still takes the next request: a client that counts late never sends on a socket just closed",
    async () => {
      const { port, credentials } = backend()
      const agent = keepAliveAgent()
      const headers = { ...json, authorization: `Bearer ${credentials.apiKey}` }
      const first = await exchange(agent, port, headers, routes[0].body)
      const advertisedMs = Number(/timeout=(\d+)/.exec(first.keepAlive)?.[1]) * 1000
      expect(advertisedMs).toBeGreaterThan(0)
      // Past node's own margin (1 s) too.
      await new Promise((resolve) => setTimeout(resolve, advertisedMs + 2_500))
      const next = await exchange(agent, port, headers, routes[0].body)
      agent.destroy()
      expect([first.status, next.status, next.reused]).toEqual([200, 200, true])
    },
    30_000
  )

  it("the MCP SDK client: a client refused for its key, then one with a good key, on the same pool", async () => {
    const { mcpUrl, credentials } = backend()
    for (let i = 0; i < 3; i++) {
      const refused = new Client({ name: "refused", version: "0.0.0" })
      const error = await refused.connect(
        new StreamableHTTPClientTransport(new URL(mcpUrl), {
          requestInit: { headers: { Authorization: "Bearer trellis_not-a-key" } }
        })
      ).then(() => undefined, (error: Error) => error)
      expect(error?.message).toMatch(/401|Unauthorized|Invalid API key/i)
      const client = new Client({ name: "admitted", version: "0.0.0" })
      await client.connect(
        new StreamableHTTPClientTransport(new URL(mcpUrl), {
          requestInit: { headers: { Authorization: `Bearer ${credentials.apiKey}` } }
        })
      )
      const result = await client.callTool({ name: "list_projects", arguments: {} })
      expect(result.isError).not.toBe(true)
      await client.close()
    }
  })

  it("Chromium: a page's refused requests and its next ones on the same connection all get answers", async () => {
    const { baseUrl } = backend()
    const browser = await chromium.launch({ executablePath: CHROMIUM })
    try {
      const page = await browser.newPage()
      await page.goto(`${baseUrl}/health`)
      const statuses: unknown = await page.evaluate(async (body) => {
        const out: Array<number | string> = []
        for (let i = 0; i < 6; i++) {
          for (const path of ["/api/mcp", "/api/agent/heartbeat", "/health"]) {
            out.push(
              await fetch(path, {
                method: path === "/health" ? "GET" : "POST",
                headers: { "content-type": "application/json" },
                ...(path === "/health" ? {} : { body })
              })
                .then((response) => response.status, (error: Error) => error.message)
            )
          }
        }
        return out
      }, routes[0].body)
      expect(statuses).toEqual(Array.from({ length: 6 }, () => [401, 401, 200]).flat())
    } finally {
      await browser.close()
    }
  })
})
