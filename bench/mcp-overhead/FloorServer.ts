/**
 * The floor: a bare `node:http` server that answers every POST with fixed bytes (Trellis's own
 * answer to the benchmarked call). Run as a child process by run.ts; env BENCH_FLOOR_BODY_BASE64.
 */
import { createServer } from "node:http"
import { listenAndAnnounce, requiredEnv } from "./ChildProcess.js"

const body = Buffer.from(requiredEnv("BENCH_FLOOR_BODY_BASE64"), "base64")
const headers = { "content-type": "application/json", "content-length": String(body.length) }

const server = createServer((request, response) => {
  if (request.method !== "POST") {
    response.writeHead(405, { allow: "POST" }).end()
    return
  }
  // Read the request body before answering, as any real server must.
  request.resume()
  request.on("end", () => response.writeHead(200, headers).end(body))
})

// Exits normally on SIGTERM, so that a `--cpu-prof` run writes its profile (bench/mcp-overhead/ProfiledRun.ts).
process.once("SIGTERM", () => process.exit(0))

listenAndAnnounce(server)
