import * as http from "node:http"
import { CALL_BODY } from "../mcp-overhead/Request.js"

/** What one minute of workers saw: every answer by status, every socket error by code, ok latencies. */
export interface LoadResult {
  readonly statuses: ReadonlyMap<number, number>
  readonly socketErrors: ReadonlyMap<string, number>
  readonly okLatenciesMs: ReadonlyArray<number>
  readonly seconds: number
}

const count = <K>(map: Map<K, number>, key: K) => map.set(key, (map.get(key) ?? 0) + 1)

/** An answer's status and what its Retry-After asks (seconds), or the socket error's code. */
type Outcome = { readonly status: number; readonly retryAfterSeconds: number } | string

const post = (agent: http.Agent, url: URL, headers: Record<string, string>) =>
  new Promise<Outcome>((resolve) => {
    const request = http.request(url, { method: "POST", agent, headers }, (response) => {
      response.resume()
      const retryAfterSeconds = Number(response.headers["retry-after"] ?? "0")
      response.on("end", () => resolve({ status: response.statusCode ?? 0, retryAfterSeconds }))
      response.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
    })
    request.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
    request.end(CALL_BODY)
  })

/**
 * How a worker takes a 429: `eager` calls again at once (a client that ignores the answer: the most
 * refusals a minute can hold); `polite` waits what Retry-After says first, as a client that reads it.
 */
export type RefusalHandling = "eager" | "polite"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * `workers` clients calling `tools/call` back to back for `seconds` through one keep-alive agent
 * (as Node's default agent, undici and the MCP SDKs keep sockets), each worker with one of `keys`
 * in turn. Nothing waits between admitted calls; after a refusal, what `handling` says.
 */
export const runWorkers = async (
  url: string,
  keys: ReadonlyArray<string>,
  workers: number,
  seconds: number,
  handling: RefusalHandling = "eager"
): Promise<LoadResult> => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: workers })
  const target = new URL(url)
  const statuses = new Map<number, number>()
  const socketErrors = new Map<string, number>()
  const okLatenciesMs: Array<number> = []
  const deadline = performance.now() + seconds * 1000
  const started = performance.now()
  await Promise.all(Array.from({ length: workers }, async (_, worker) => {
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${keys[worker % keys.length]}`,
      "mcp-protocol-version": "2025-06-18"
    }
    while (performance.now() < deadline) {
      const sent = performance.now()
      const outcome = await post(agent, target, headers)
      if (typeof outcome === "string") count(socketErrors, outcome)
      else {
        count(statuses, outcome.status)
        if (outcome.status >= 200 && outcome.status < 300) okLatenciesMs.push(performance.now() - sent)
        if (outcome.status === 429 && handling === "polite") {
          await sleep(Math.min(outcome.retryAfterSeconds * 1000, deadline - performance.now()))
        }
      }
    }
  }))
  agent.destroy()
  return { statuses, socketErrors, okLatenciesMs, seconds: (performance.now() - started) / 1000 }
}

export const percentile = (values: ReadonlyArray<number>, p: number): number => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
}
