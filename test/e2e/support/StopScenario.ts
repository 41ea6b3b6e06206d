/**
 * Stopping a running turn on a real runtime (issue 28 §3): the turn runs a long tool command, the
 * owner stops it with `POST /api/threads/:id/stop`, the turn ends Stopped within seconds, the
 * command is gone, and the next message runs.
 */
import { expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import { eventually } from "./Processes.js"
import { commandLinesWith, processTree } from "./RuntimeProcesses.js"
import { type RealRuntimeSuite } from "./RealRuntimes.js"
import { messagesOf } from "./Trellis.js"

/** Every process on the machine whose command line holds `text` (a runtime's tool may leave the agent's tree). */
export const processesWith = (text: string): ReadonlyArray<string> =>
  fs.readdirSync("/proc").filter((entry) => /^\d+$/.test(entry)).flatMap((pid) => {
    try {
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ")
      return argv.includes(text) ? [`${pid}: ${argv}`] : []
    } catch {
      return []
    }
  })

/** The thread's raw event stream holds `needle` (read from the start; closed once it does). */
const eventStreamHolds = async (suite: RealRuntimeSuite, needle: string, timeoutMs = 20_000): Promise<void> => {
  const { serve } = suite.backend()
  const abort = new AbortController()
  const timer = setTimeout(() => abort.abort(), timeoutMs)
  try {
    const response = await fetch(`${serve.baseUrl}/api/threads/${suite.threadId()}/events`, {
      headers: { authorization: `Bearer ${serve.credentials.apiKey}`, accept: "text/event-stream" },
      signal: abort.signal
    })
    if (response.body === null) throw new Error("no event stream")
    const reader = response.body.getReader()
    const decoder = new TextDecoder()
    let read = ""
    while (!read.includes(needle)) {
      const { done, value } = await reader.read()
      if (done) throw new Error("the event stream ended")
      read += decoder.decode(value, { stream: true })
    }
  } finally {
    clearTimeout(timer)
    abort.abort()
  }
}

export const stopRequest = async (suite: RealRuntimeSuite): Promise<unknown> => {
  const { serve } = suite.backend()
  const response = await fetch(`${serve.baseUrl}/api/threads/${suite.threadId()}/stop`, {
    method: "POST",
    headers: { authorization: `Bearer ${serve.credentials.apiKey}` }
  })
  if (!response.ok) throw new Error(`stop: HTTP ${response.status}: ${await response.text()}`)
  return response.json()
}

/** The figures each runtime's scenario measured, printed by the suite. */
export const stopTimings = new Map<string, number>()

const TIMEOUT = 150_000

/**
 * `seconds` names the runtime's `sleep` (unique per runtime, so its process is found on the
 * machine); `batchProcess` is an argument of the runtime's own per-batch process, which is gone
 * after the stop (OpenCode's shared server has none: it stays, idle).
 */
export const stopScenario = (suite: RealRuntimeSuite, runtime: string, cliType: string, seconds: string, batchProcess?: string) => {
  it(
    `Stop from a client: ${runtime} is interrupted its own way, the turn ends Stopped within seconds, its command is gone and the next message runs`,
    async () => {
      await suite.start(cliType, `hello before stopping ${runtime}`)
      const command = `sleep ${seconds}`
      await suite.send(`RUN_TOOL[${command}]`)
      await eventually(
        `${command} to run`,
        async () => processesWith(command),
        (found) => found.length > 0,
        90_000,
        () => suite.agent().proc.describe()
      )
      const [running] = (await messagesOf(suite.backend().mcp, suite.threadId())).slice(-1)
      expect(running?.status).toBe("streaming")

      const asked = Date.now()
      expect(await stopRequest(suite)).toEqual({ stopRequested: true, messageId: running?.messageId })
      const stopped = await suite.answer()
      const elapsed = Date.now() - asked
      stopTimings.set(runtime, elapsed)
      console.log(`${runtime}: Stop → Stopped in ${elapsed} ms`)
      expect([stopped.messageId, stopped.status]).toEqual([running?.messageId, "completed"])
      expect(elapsed).toBeLessThan(15_000)
      await eventStreamHolds(suite, `\\"turnStatus\\":\\"stopped\\"`)
      await eventually(`${command} to be gone`, async () => processesWith(command), (found) => found.length === 0, 10_000)
      if (batchProcess !== undefined) {
        const agentPid = suite.agent().proc.pid
        await eventually(
          `${runtime}'s process to be gone`,
          async () => commandLinesWith(processTree(agentPid), batchProcess),
          (found) => found.length === 0,
          10_000
        )
      }

      // Stopping a thread that runs nothing changes nothing.
      expect(await stopRequest(suite)).toEqual({ stopRequested: false, messageId: null })
      const next = await suite.turn(`after the stop on ${runtime}`)
      expect([next.status, next.text]).toEqual(["completed", `Mock reply: after the stop on ${runtime}`])
    },
    TIMEOUT
  )
}
