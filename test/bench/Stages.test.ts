import { describe, expect, it } from "@effect/vitest"
import { decodeCpuProfile, stageTimes } from "../../bench/mcp-overhead/Stages.js"

const frame = (id: number, functionName: string, url: string, children: ReadonlyArray<number> = []) => ({
  id,
  callFrame: { functionName, url, scriptId: "0", lineNumber: 0, columnNumber: 0 },
  hitCount: 0,
  children
})

// root ─┬ (idle)
//       ├ (garbage collector)
//       ├ startup: node:internal/modules/run_main
//       └ node:_http_server parserOnIncoming ─ NodeServer ─┬ McpHttp ─ JSON.parse (native, no script)
//                                                           ├ effect/dist/esm/ParseResult.js
//                                                           └ effect/dist/esm/internal/fiberRuntime.js ─ wasm
const dist = "file:///app/dist/src"
const profile = (samples: ReadonlyArray<number>, timeDeltas: ReadonlyArray<number>) =>
  decodeCpuProfile(JSON.stringify({
    nodes: [
      frame(1, "(root)", "", [2, 3, 4, 5]),
      frame(2, "(idle)", ""),
      frame(3, "(garbage collector)", ""),
      frame(4, "runMain", "node:internal/modules/run_main"),
      frame(5, "parserOnIncoming", "node:_http_server", [6]),
      frame(6, "handle", `${dist}/server/NodeServer.js`, [7, 9, 10]),
      frame(7, "frame", `${dist}/server/McpHttp.js`, [8]),
      frame(8, "parse", ""),
      frame(9, "decode", "file:///app/node_modules/effect/dist/esm/ParseResult.js"),
      frame(10, "runLoop", "file:///app/node_modules/effect/dist/esm/internal/fiberRuntime.js", [11]),
      frame(11, "exec", "wasm://wasm/0a1b2c")
    ],
    startTime: 0,
    endTime: 1,
    samples,
    timeDeltas
  }))

describe("the per-stage breakdown of a CPU profile", () => {
  it("a native frame is charged to the stage of the script that called it", () => {
    const times = stageTimes(profile([8, 9, 11, 10], [100, 20, 30, 40]))
    expect(Object.fromEntries(times.micros)).toEqual({
      "JSON-RPC framing": 100,
      "Schema decode and encode": 20,
      "database": 30,
      "Effect runtime (fibers, context, scopes)": 40
    })
    expect(times.totalMicros).toBe(190)
  })

  it("samples before the first request handled and after the last are left out, idle ones everywhere", () => {
    // startup, request, idle, GC, request, shutdown-time GC
    const times = stageTimes(profile([4, 8, 2, 3, 9, 3], [1000, 10, 500, 7, 20, 900]))
    expect(Object.fromEntries(times.micros)).toEqual({
      "JSON-RPC framing": 10,
      "garbage collection": 7,
      "Schema decode and encode": 20
    })
    expect(times.totalMicros).toBe(37)
  })

  it("a profile in which no request was handled has no time in any stage", () => {
    const times = stageTimes(profile([4, 2, 3], [10, 10, 10]))
    expect(times.totalMicros).toBe(0)
    expect(times.micros.size).toBe(0)
  })
})
