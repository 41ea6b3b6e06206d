import { execFileSync } from "node:child_process"
import * as fs from "node:fs"

/**
 * The process groups a runtime's descendants moved to. A runtime runs in its own process group so
 * that ending a batch kills its whole tree, but a runtime may start a tool command in a session of
 * its own (Claude Code's Bash tool does), out of reach of that kill: such a command would run on,
 * orphaned, after its runtime and the agent are gone. They are found while they are still the
 * runtime's descendants, before it is killed (after, they belong to init).
 */

interface Entry {
  readonly pid: number
  readonly ppid: number
  readonly pgid: number
}

/** Linux: the pids /proc lists, as its directory names. */
const procPids = (): ReadonlyArray<string> => fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name))

/** Linux: /proc/<pid>/stat (`pid (comm) state ppid pgrp …`; comm may hold spaces and parentheses). */
const fromProc = (): ReadonlyArray<Entry> =>
  procPids().flatMap((name) => {
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8")
      const [, ppid, pgid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      return [{ pid: Number(name), ppid: Number(ppid), pgid: Number(pgid) }]
    } catch {
      return []
    }
  })

/** Elsewhere (macOS): `ps`. */
const fromPs = (): ReadonlyArray<Entry> =>
  execFileSync("ps", ["-A", "-o", "pid=,ppid=,pgid="], { encoding: "utf8" }).split("\n").flatMap((line) => {
    const [pid, ppid, pgid] = line.trim().split(/\s+/).map(Number)
    return pid === undefined || ppid === undefined || pgid === undefined || Number.isNaN(pgid) ? [] : [{ pid, ppid, pgid }]
  })

const processes = (): ReadonlyArray<Entry> => {
  try {
    return fs.existsSync("/proc/self/stat") ? fromProc() : fromPs()
  } catch {
    return []
  }
}

/** The process groups, other than the runtime's own (`root`), that its descendants run in. */
export const escapedGroups = (root: number): ReadonlyArray<number> => {
  const all = processes()
  const children = new Map<number, Array<Entry>>()
  for (const entry of all) children.set(entry.ppid, [...(children.get(entry.ppid) ?? []), entry])
  const groups = new Set<number>()
  const queue = [root]
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    for (const child of children.get(pid) ?? []) {
      if (child.pgid !== root && child.pgid > 1) groups.add(child.pgid)
      queue.push(child.pid)
    }
  }
  return [...groups]
}

/** Sends `signal` to each process group (a group gone already is skipped): a group is a negative pid to kill(2). */
export const signalGroups = (groups: ReadonlyArray<number>, signal: NodeJS.Signals): void =>
  signalProcesses(groups.map((group) => -group), signal)

/** The groups of `groups` that still have a process. */
export const livingGroups = (groups: ReadonlyArray<number>): ReadonlyArray<number> =>
  groups.filter((group) => {
    try {
      process.kill(-group, 0)
      return true
    } catch {
      return false
    }
  })

/** Sends `signal` to every group `escapedGroups` names (a group gone already is skipped). */
export const signalEscaped = (root: number, signal: NodeJS.Signals): void => signalGroups(escapedGroups(root), signal)

/**
 * The processes whose environment holds `variable=value`, a value too random to be another's (Linux: /proc/<pid>/environ, as it was at
 * their exec). Empty elsewhere: there, only a runtime still running is stopped with its tree.
 */
export const processesMarked = (variable: string, value: string): ReadonlyArray<number> => {
  if (!fs.existsSync("/proc/self/environ")) return []
  const entry = `${variable}=${value}\0`
  return procPids().flatMap((name) => {
    try {
      return fs.readFileSync(`/proc/${name}/environ`).includes(entry) ? [Number(name)] : []
    } catch {
      return []
    }
  })
}

/** Sends `signal` to each process (one gone already is skipped). */
export const signalProcesses = (pids: ReadonlyArray<number>, signal: NodeJS.Signals): void => {
  for (const pid of pids) {
    try {
      process.kill(pid, signal)
    } catch {
      // Gone already.
    }
  }
}
