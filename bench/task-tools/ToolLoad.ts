/** autocannon load of one tool over MCP, cycling through that tool's calls. */
import autocannon from "autocannon"
import type { LoadSettings, Measurement } from "../mcp-overhead/Load.js"
import { toolCallBody, type McpTarget, type ToolCall } from "./Mcp.js"

/** autocannon's `requests` option, which ../mcp-overhead/autocannon.d.ts does not declare. */
interface RequestSequence {
  readonly requests: ReadonlyArray<{ readonly body: string }>
}

const fire = (target: McpTarget, calls: ReadonlyArray<ToolCall>, settings: LoadSettings, durationSeconds: number) => {
  // Each connection cycles through these prebuilt requests (no setupRequest), so rotating over
  // task refs costs the load generator nothing per call.
  const options: Parameters<typeof autocannon>[0] & RequestSequence = {
    url: target.url,
    method: "POST",
    headers: target.headers,
    requests: calls.map((call) => ({ body: toolCallBody(call) })),
    connections: settings.connections,
    pipelining: settings.pipelining,
    duration: durationSeconds
  }
  return autocannon(options)
}

/** A warm-up run (discarded), then the measured run; as `measure` in ../mcp-overhead/Load.ts. */
export const measureTool = async (target: McpTarget, calls: ReadonlyArray<ToolCall>, settings: LoadSettings): Promise<Measurement> => {
  if (settings.warmupSeconds > 0) await fire(target, calls, settings, settings.warmupSeconds)
  const result = await fire(target, calls, settings, settings.durationSeconds)
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors
  }
}
