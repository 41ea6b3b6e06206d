/**
 * The benchmark's SSE readers: real `node:http` clients on one keep-alive Agent, one socket each,
 * as a thousand browser tabs would hold. Each reader watches its bytes for the round's probe text
 * and notes when it arrived; closing destroys the sockets, as a tab that goes away does.
 */
import { Agent, request, type ClientRequest } from "node:http"
import { performance } from "node:perf_hooks"

export interface Reader {
  /** performance.now() at which the probe text arrived, once it has. */
  readonly seenAt: () => number | undefined
}

export interface Readers {
  /** How many answered 200 and sent their `: connected` comment before the deadline. */
  readonly opened: number
  readonly failures: ReadonlyMap<string, number>
  /** Waits until every opened reader saw `probe` or `timeoutMs` passed; the arrival times of those that did. */
  readonly waitFor: (probe: string, timeoutMs: number) => Promise<ReadonlyArray<number>>
  readonly close: () => void
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Opens `count` streams of `path` at once and waits (at most `timeoutMs`) until each has connected or failed. */
export const openReaders = async (
  base: URL,
  apiKey: string,
  path: string,
  count: number,
  timeoutMs: number
): Promise<Readers> => {
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity })
  const requests: Array<ClientRequest> = []
  const failures = new Map<string, number>()
  const fail = (reason: string) => failures.set(reason, (failures.get(reason) ?? 0) + 1)
  // The probe each reader is waiting for, and whether it has come: one text buffer per reader would be 1,000 strings.
  let probe = ""
  const seen: Array<number | undefined> = []
  let connectedCount = 0
  let settled = 0

  for (let i = 0; i < count; i++) {
    seen.push(undefined)
    let connected = false
    let tail = ""
    const req = request({
      agent,
      host: base.hostname,
      port: base.port,
      path,
      headers: { authorization: `Bearer ${apiKey}`, accept: "text/event-stream" }
    }, (response) => {
      if (response.statusCode !== 200) {
        fail(`HTTP ${response.statusCode}`)
        settled++
        response.resume()
        return
      }
      response.setEncoding("utf8")
      response.on("data", (piece: string) => {
        const text = tail + piece
        if (!connected && text.includes(": connected")) {
          connected = true
          connectedCount++
          settled++
        }
        if (probe !== "" && seen[i] === undefined && text.includes(probe)) seen[i] = performance.now()
        // A probe split across two reads is still found; more than its length is never needed.
        tail = text.slice(-256)
      })
      response.on("error", () => undefined)
    })
    req.on("error", (error) => {
      if (!connected) {
        fail(error.message)
        settled++
      }
    })
    req.end()
    requests.push(req)
  }

  const deadline = performance.now() + timeoutMs
  while (settled < count && performance.now() < deadline) await sleep(50)
  for (let n = count - settled; n > 0; n--) fail(`not connected within ${timeoutMs} ms`)

  return {
    opened: connectedCount,
    failures,
    waitFor: async (text, waitMs) => {
      probe = text
      const until = performance.now() + waitMs
      const arrived = () => seen.filter((at): at is number => at !== undefined)
      while (arrived().length < connectedCount && performance.now() < until) await sleep(10)
      return arrived()
    },
    close: () => {
      for (const req of requests) req.destroy()
      agent.destroy()
    }
  }
}

/** One GET on a connection of its own (not queued behind the streams' sockets): its status (0: none within `timeoutMs`) and how long it took. */
export const timedGet = (url: URL, apiKey: string, timeoutMs: number): Promise<{ readonly status: number; readonly ms: number }> =>
  new Promise((resolve) => {
    const started = performance.now()
    let answered = false
    const done = (status: number) => {
      if (answered) return
      answered = true
      resolve({ status, ms: performance.now() - started })
    }
    const req = request(url, { agent: false, headers: { authorization: `Bearer ${apiKey}` } }, (response) => {
      response.resume()
      response.on("end", () => done(response.statusCode ?? 0))
      response.on("error", () => done(0))
    })
    // A timer, not req.setTimeout: that one starts only once connected, and a swamped server may not accept at all.
    const timer = setTimeout(() => {
      done(0)
      req.destroy()
    }, timeoutMs)
    req.on("close", () => clearTimeout(timer))
    req.on("error", () => done(0))
    req.end()
  })
