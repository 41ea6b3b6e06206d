/**
 * What the shutdown tests look at (Linux /proc): the processes under the agent's launcher, the
 * tool command a runtime runs, a readable account of whatever outlived the deadline (state, group,
 * session, what it waits in), and the agent's log lines timed from the signal.
 */
import * as fs from "node:fs"
import { eventually, isAlive } from "./support/Processes.js"
import { processTree } from "./support/RuntimeProcesses.js"
import type { Agent } from "./support/Trellis.js"

const read = (file: string): string => {
  try {
    return fs.readFileSync(file, "utf8")
  } catch {
    return ""
  }
}

/** Every process under `root` now (children, their children, …), without `root`. */
export const treeOf = (root: number): ReadonlyArray<number> => processTree(root).map((p) => p.pid).filter((pid) => pid !== root)

/**
 * The live `sleep <seconds>` processes: the tool command itself, not a process whose arguments
 * merely mention it (`codex exec` gets the prompt `RUN_TOOL[sleep …]` on its command line).
 */
export const sleepProcesses = (seconds: number): ReadonlyArray<number> =>
  fs.readdirSync("/proc").filter((entry) => /^\d+$/.test(entry)).flatMap((entry) => {
    const pid = Number(entry)
    const [command, argument] = read(`/proc/${pid}/cmdline`).split("\0")
    return command !== undefined && /(^|\/)sleep$/.test(command) && argument === String(seconds) && isAlive(pid) ? [pid] : []
  })

/** One line per pid: state, parent, group, session, the kernel function it sleeps in, its command line. */
export const describeProcesses = (pids: ReadonlyArray<number>): string =>
  pids.map((pid) => {
    const stat = read(`/proc/${pid}/stat`)
    const [state, ppid, pgid, sid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    const argv = read(`/proc/${pid}/cmdline`).split("\0").join(" ").trim()
    return `  ${pid} state ${state} ppid ${ppid} pgid ${pgid} sid ${sid} wchan ${read(`/proc/${pid}/wchan`)}: ${argv}`
  }).join("\n")

/** The agent's JSON log lines from `since` on, each with its time after `since` (e.g. `+105 ms released on shutdown`). */
export const shutdownTimeline = (stdout: string, since: number): string =>
  stdout.split("\n").flatMap((line) => {
    try {
      const parsed: unknown = JSON.parse(line)
      if (typeof parsed !== "object" || parsed === null) return []
      const time = Date.parse(String(Reflect.get(parsed, "time")))
      return time >= since - 50 ? [`  +${time - since} ms ${String(Reflect.get(parsed, "message"))}`] : []
    } catch {
      return []
    }
  }).join("\n")

/**
 * How long after `sent` (the signal) the profile went offline: once the backend shows it offline,
 * the time the agent logged the backend's answer to its disconnect (the session ended before that
 * answer left), or when this test saw it offline if the agent logged none. Taken from the agent's
 * log, the figure leaves out this test's own polling, whose MCP calls queue behind everything else
 * a loaded machine runs.
 */
export const offlineAfter = async (agent: Agent, sent: number, isOnline: () => Promise<boolean>): Promise<number> => {
  await eventually("the profile to go offline", isOnline, (online) => !online, 20_000, () => agent.proc.describe())
  const seen = Date.now()
  const disconnected = agent.loggedAt(/^disconnected$/)
  return (disconnected ?? seen) - sent
}
