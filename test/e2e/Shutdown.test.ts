/**
 * Stopping `trellis agent start` while Claude Code runs a tool command, other than by one SIGTERM:
 * SIGKILL, SIGINT (Ctrl-C) and a second signal. SIGTERM on every runtime, with a tool command
 * running or a permission request pending, is ShutdownInFlight.test.ts. The real binary runs
 * against the mock model; the tool command is a `sleep` nobody would wait for.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import { type MockModel, startMockModel } from "../support/mock-model/MockModel.js"
import type { RuntimeCommand } from "../support/runtimes/RuntimeBinaries.js"
import { offlineAfter, shutdownTimeline, sleepProcesses } from "./ShutdownProcesses.js"
import { eventually, isAlive, killEverything, removeTempDirs, trackPid } from "./support/Processes.js"
import { type Backend, createThread, onlineTarget, realMachine, startBackend, startRealAgent } from "./support/RealRuntimes.js"
import { type Agent, Profiles } from "./support/Trellis.js"

const TEST_TIMEOUT = 180_000
/** The shutdown target of the runtime-defects issue: offline within 2 s of the signal. */
const OFFLINE_WITHIN_MS = 2_000

/** `/proc/<pid>/stat` after the command name: state, ppid, process group, session, … */
const statOf = (pid: number): ReadonlyArray<string> => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")
}

/** The agent under its launcher (`cli/bin.js` starts it again with its heap limits). */
const agentUnder = (launcher: number): number => {
  const [agent] = fs.readdirSync("/proc").filter((entry) => /^\d+$/.test(entry) && isAlive(Number(entry))).map(Number).filter((pid) => {
    try {
      return Number(statOf(pid)[1]) === launcher
    } catch {
      return false
    }
  })
  if (agent === undefined) throw new Error(`no agent under launcher ${launcher}`)
  return agent
}

describe.sequential("stopping trellis agent start while a runtime's tool command runs", () => {
  let mock: MockModel | undefined
  let shared: Backend | undefined
  const backend = () => {
    if (shared === undefined) throw new Error("the backend did not start")
    return shared
  }

  beforeAll(async () => {
    mock = await startMockModel()
    shared = await startBackend()
  }, 120_000)

  afterAll(async () => {
    await shared?.mcp.close()
    await killEverything()
    await mock?.close()
    await removeTempDirs()
  }, 30_000)

  /** A machine of its own running `cliType`, with a thread whose runtime is inside `sleep <seconds>`. */
  const runningTool = async (
    b: Backend,
    name: string,
    cliType: RuntimeCommand,
    seconds: number
  ) => {
    if (mock === undefined) throw new Error("the mock model did not start")
    const m = await realMachine(b, mock, name, [cliType])
    const agent = await startRealAgent(m, ["--approve", "all"])
    const target = await onlineTarget(b, m, agent)
    const threadId = await createThread(b, target, cliType, `RUN_TOOL[sleep ${seconds}]`)
    const [tool] = await eventually(
      `the runtime to run sleep ${seconds}`,
      async () => sleepProcesses(seconds),
      (pids) => pids.length > 0,
      90_000,
      () => agent.proc.describe()
    )
    if (tool === undefined) throw new Error("no tool command")
    trackPid(tool)
    return { agent, profileId: target.profile.profileId, threadId, tool }
  }

  /** The tool command's process, for failure messages: its group and session tell who could have killed it. */
  const processOf = (pid: number) => {
    try {
      return execFileSync("ps", ["-o", "pid,pgid,sid,ppid,stat,args", "-p", String(pid)], { encoding: "utf8" })
    } catch {
      return `${pid}: gone`
    }
  }

  /** Whether the tool command ends within 5 s of the agent's exit. */
  const toolEnds = async (tool: number) => {
    const seen = processOf(tool)
    try {
      await eventually("the tool command to be gone", async () => isAlive(tool), (alive) => !alive, 5_000)
      return { gone: true, seen }
    } catch {
      return { gone: false, seen: processOf(tool) }
    }
  }

  const isOnline = async (b: Backend, profileId: string) =>
    (await b.mcp.call(Profiles, "list_cli_profiles", { projectId: b.serve.credentials.projectId })).profiles.some((p) =>
      p.profileId === profileId && p.isOnline
    )

  /** Signals the agent, then measures how long until the backend had its profile offline. */
  const signalled = async (b: Backend, agent: Agent, profileId: string, signal: NodeJS.Signals) => {
    const sent = Date.now()
    agent.proc.signal(signal)
    return { sent, took: await offlineAfter(agent, sent, () => isOnline(b, profileId)) }
  }

  it(
    "claude: the agent SIGKILLed while its Bash tool runs a command in a session of its own: the command is ended all the same",
    async () => {
      const b = backend()
      const { agent, tool } = await runningTool(b, "sigkill", "claude", 307)
      const agentPid = agentUnder(agent.proc.pid)
      // Claude's Bash tool runs the command in a session of its own: no group kill reaches it.
      expect(statOf(tool)[3], processOf(tool)).not.toBe(statOf(agentPid)[3])
      process.kill(agentPid, "SIGKILL")
      expect(await agent.proc.waitForExit(5_000)).toEqual({ code: null, signal: "SIGKILL" })
      const ended = await toolEnds(tool)
      expect(ended.gone, `tool command ${ended.seen}`).toBe(true)
    },
    TEST_TIMEOUT
  )

  it("SIGINT (Ctrl-C) stops the agent as SIGTERM does: offline within 2 s, the command ended, exit 0", async () => {
    const b = backend()
    const { agent, profileId, tool } = await runningTool(b, "sigint", "claude", 305)
    const { sent, took } = await signalled(b, agent, profileId, "SIGINT")
    const exit = await agent.proc.waitForExit(15_000)
    const ended = await toolEnds(tool)
    const context = `offline ${took} ms after SIGINT; exit ${JSON.stringify(exit)}; tool command ${ended.seen}\n${
      shutdownTimeline(agent.proc.stdout, sent)
    }\n${agent.proc.describe()}`
    expect({ exit, toolGone: ended.gone }, context).toEqual({ exit: { code: 0, signal: null }, toolGone: true })
    expect(took, context).toBeLessThan(OFFLINE_WITHIN_MS)
  }, TEST_TIMEOUT)

  it("a second signal while shutting down exits at once (code 130), the runtime's command ended all the same", async () => {
    // A backend of its own, gone for good: a graceful shutdown then waits out its timeouts (seconds).
    const b = await startBackend()
    const { agent, tool } = await runningTool(b, "second-signal", "claude", 306)
    await b.mcp.close()
    await b.serve.proc.killTree()

    agent.proc.signal("SIGTERM")
    // Well past the quarter second within which a signal counts as the same request (Ctrl-C reaches
    // launcher and agent): the agent times a signal when its event loop gets to it, which a loaded
    // machine delays by a hundred milliseconds or more. Its bounded shutdown still runs (~2 s).
    await new Promise((resolve) => setTimeout(resolve, 600))
    expect(agent.proc.hasExited, agent.proc.describe()).toBe(false)
    const second = Date.now()
    agent.proc.signal("SIGTERM")
    const exit = await agent.proc.waitForExit(5_000)
    const took = Date.now() - second
    const ended = await toolEnds(tool)
    const context = `exit ${JSON.stringify(exit)} ${took} ms after the second SIGTERM; tool command ${ended.seen}\n${agent.proc.describe()}`
    expect({ exit, toolGone: ended.gone }, context).toEqual({ exit: { code: 130, signal: null }, toolGone: true })
    expect(took, context).toBeLessThan(1_000)
  }, TEST_TIMEOUT)
})
