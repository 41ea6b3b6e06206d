/**
 * Where the CPU went during a measurement: the server process, this process (the load generator
 * and, in the bare-SQL phase, the pool), and the machine as a whole (PostgreSQL included). On a
 * small machine the three share the cores, so a figure only means something next to these.
 */
import { readdirSync, readFileSync } from "node:fs"
import { cpus } from "node:os"
import { performance } from "node:perf_hooks"

/** Linux's USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s. */
const TICKS_PER_SECOND = 100

interface Snapshot {
  readonly wallMs: number
  readonly benchMicros: number
  readonly serverTicks: number | undefined
  /** utime + stime of every live `postgres` process, by PID. */
  readonly postgresTicks: ReadonlyMap<number, number>
  readonly machineBusyMs: number
  readonly machineTotalMs: number
}

export interface CpuShare {
  /** Percent of one core; undefined when there was no server process to read. */
  readonly serverPercent: number | undefined
  /** Percent of one core, all `postgres` processes on the machine (the server's and the baseline's backends). */
  readonly postgresPercent: number | undefined
  /** Percent of one core. */
  readonly benchPercent: number
  /** Percent of all cores, every process. */
  readonly machinePercent: number
  readonly cores: number
  /** CPU seconds the server process used; undefined as serverPercent. */
  readonly serverSeconds: number | undefined
}

/** utime + stime of a process, in ticks; undefined when it cannot be read (not Linux, or gone). */
const processTicks = (pid: number | undefined): number | undefined => {
  if (pid === undefined) return undefined
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    // After the command: state is field 3 (index 0 here); utime and stime are fields 14 and 15.
    return Number(fields[11]) + Number(fields[12])
  } catch {
    return undefined
  }
}

/** utime + stime of each process whose command is `postgres` (PostgreSQL's backends and helpers). */
const postgresTicks = (): ReadonlyMap<number, number> => {
  const ticks = new Map<number, number>()
  try {
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
        if (stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")) !== "postgres") continue
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
        ticks.set(Number(entry), Number(fields[11]) + Number(fields[12]))
      } catch {
        // The process ended while being read.
      }
    }
  } catch {
    // No /proc.
  }
  return ticks
}

/** The first child of `parent` whose command line has `serve`. */
const serveChildOf = (parent: number): number | undefined => {
  try {
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
        if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) !== parent) continue
        if (readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").includes("serve")) return Number(entry)
      } catch {
        // The process ended while being read.
      }
    }
  } catch {
    // No /proc.
  }
  return undefined
}

/**
 * The PID of the process serving `trellis serve` started by this one (task-tools' startServer does
 * not expose it): cli/bin.js's launcher starts the server as its own child.
 */
export const findServerPid = (): number | undefined => {
  const launcher = serveChildOf(process.pid)
  return launcher === undefined ? undefined : serveChildOf(launcher) ?? launcher
}

const machineTimes = () =>
  cpus().reduce(
    (sum, cpu) => {
      const { user, nice, sys, irq, idle } = cpu.times
      return { busy: sum.busy + user + nice + sys + irq, total: sum.total + user + nice + sys + irq + idle }
    },
    { busy: 0, total: 0 }
  )

const snapshot = (serverPid: number | undefined): Snapshot => {
  const usage = process.cpuUsage()
  const machine = machineTimes()
  return {
    wallMs: performance.now(),
    benchMicros: usage.user + usage.system,
    serverTicks: processTicks(serverPid),
    postgresTicks: postgresTicks(),
    machineBusyMs: machine.busy,
    machineTotalMs: machine.total
  }
}

/** Starts measuring; the returned function ends the measurement and gives the shares. */
export const startCpu = (serverPid: number | undefined): () => CpuShare => {
  const start = snapshot(serverPid)
  return () => {
    const end = snapshot(serverPid)
    const wallSeconds = (end.wallMs - start.wallMs) / 1000
    const serverTicks = end.serverTicks === undefined || start.serverTicks === undefined ? undefined : end.serverTicks - start.serverTicks
    // A backend that started during the measurement counts from zero; one that ended is lost.
    let postgres = 0
    for (const [pid, ticks] of end.postgresTicks) postgres += ticks - (start.postgresTicks.get(pid) ?? 0)
    return {
      postgresPercent: end.postgresTicks.size === 0 ? undefined : (100 * postgres) / TICKS_PER_SECOND / wallSeconds,
      serverPercent: serverTicks === undefined ? undefined : (100 * serverTicks) / TICKS_PER_SECOND / wallSeconds,
      benchPercent: (100 * (end.benchMicros - start.benchMicros)) / 1e6 / wallSeconds,
      machinePercent: (100 * (end.machineBusyMs - start.machineBusyMs)) / Math.max(1, end.machineTotalMs - start.machineTotalMs),
      cores: cpus().length,
      serverSeconds: serverTicks === undefined ? undefined : serverTicks / TICKS_PER_SECOND
    }
  }
}

const percent = (value: number | undefined): string => (value === undefined ? "n/a" : `${value.toFixed(0)}%`)

/** Percent of one core used by everything else on the machine (other programs: noise in the figures). */
export const othersPercent = (cpu: CpuShare): number =>
  Math.max(0, cpu.machinePercent * cpu.cores - (cpu.serverPercent ?? 0) - (cpu.postgresPercent ?? 0) - cpu.benchPercent)

export const formatCpu = (cpu: CpuShare): string =>
  `cpu: server ${percent(cpu.serverPercent)}, postgres ${percent(cpu.postgresPercent)}, bench ${percent(cpu.benchPercent)}, ` +
  `others ${percent(othersPercent(cpu))}; machine ${percent(cpu.machinePercent)} of ${cpu.cores} cores`
