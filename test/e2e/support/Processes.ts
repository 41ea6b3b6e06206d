/**
 * Real processes for end-to-end tests: spawning (each in its own process group, so a whole
 * tree can be killed), waiting on output with a deadline, polling, and cleanup that kills
 * whatever a test left running.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

export const repoRoot = fileURLToPath(new URL("../../..", import.meta.url))

/** Whether a process runs; a zombie (exited, not yet reaped) does not. */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    // Linux: the state follows the parenthesized command name.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2).charAt(0) !== "Z"
  } catch {
    return true
  }
}

/** SIGKILLs a process and its group, if still there. */
export const killPid = (pid: number): void => {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, "SIGKILL")
    } catch {
      // Already gone.
    }
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls `probe` every 100 ms until `done` holds; fails after `timeoutMs` showing the last value. */
export const eventually = async <A>(
  what: string,
  probe: () => Promise<A>,
  done: (value: A) => boolean,
  timeoutMs = 30_000,
  context: () => string = () => ""
): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  let last: A | undefined
  let lastError: unknown
  while (Date.now() < deadline) {
    try {
      last = await probe()
      lastError = undefined
      if (done(last)) return last
    } catch (error) {
      lastError = error
    }
    await sleep(100)
  }
  const seen = lastError === undefined ? JSON.stringify(last, null, 1) : String(lastError)
  throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}; last seen: ${seen}\n${context()}`)
}

const withTimeout = <A>(promise: Promise<A>, ms: number, describe: () => string): Promise<A> => {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(describe())), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

export interface Exit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

/** Every process group spawned here and every extra pid a test learned of (runtimes), for cleanup. */
const groups = new Set<Proc>()
const strays = new Set<number>()

/** A spawned process: its output so far, its exit, and signals to it or its whole group. */
export class Proc {
  private out = ""
  private err = ""
  readonly exit: Promise<Exit>
  private exited: Exit | undefined

  constructor(readonly name: string, readonly child: ChildProcess, readonly pid: number) {
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (this.out += chunk))
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (this.err += chunk))
    this.exit = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        this.exited = { code, signal }
        resolve(this.exited)
      })
    })
  }

  get stdout(): string {
    return this.out
  }

  get stderr(): string {
    return this.err
  }

  get hasExited(): boolean {
    return this.exited !== undefined
  }

  /** Both streams, for failure messages. */
  describe(): string {
    const state = this.exited === undefined ? "running" : `exited (code ${this.exited.code}, signal ${this.exited.signal})`
    return `--- ${this.name} (pid ${this.pid}, ${state}) stdout:\n${this.out}\n--- ${this.name} stderr:\n${this.err}`
  }

  /** Waits until stdout satisfies `ready`; fails if the process exits first or the time runs out. */
  async waitForStdout(what: string, ready: (stdout: string) => boolean, timeoutMs = 30_000): Promise<void> {
    const reached = new Promise<void>((resolve, reject) => {
      const check = () => {
        if (ready(this.out)) {
          this.child.stdout?.off("data", check)
          resolve()
        }
      }
      this.child.stdout?.on("data", check)
      check()
      void this.exit.then(() => {
        // Output may arrive with the exit; look once more.
        if (ready(this.out)) resolve()
        else reject(new Error(`${this.name} exited before ${what}\n${this.describe()}`))
      })
    })
    await withTimeout(reached, timeoutMs, () => `${this.name}: no ${what} within ${timeoutMs / 1000} s\n${this.describe()}`)
  }

  /** Sends a signal to this process only (not its group). */
  signal(signal: NodeJS.Signals): void {
    if (!this.hasExited) this.child.kill(signal)
  }

  /** Sends a signal to the whole process group (`trellis agent start` is a launcher and the agent). */
  signalGroup(signal: NodeJS.Signals): void {
    if (this.hasExited) return
    try {
      process.kill(-this.pid, signal)
    } catch {
      this.child.kill(signal)
    }
  }

  /** SIGKILLs the whole process group and waits for the exit. */
  async killTree(): Promise<Exit> {
    if (!this.hasExited) {
      try {
        process.kill(-this.pid, "SIGKILL")
      } catch {
        this.child.kill("SIGKILL")
      }
    }
    return this.exit
  }

  /** SIGTERM, then the exit within `timeoutMs`, else SIGKILL of the group (and a failure). */
  async stop(timeoutMs = 15_000): Promise<Exit> {
    this.signal("SIGTERM")
    try {
      return await withTimeout(
        this.exit,
        timeoutMs,
        () => `${this.name} did not exit within ${timeoutMs / 1000} s of SIGTERM\n${this.describe()}`
      )
    } catch (error) {
      await this.killTree()
      throw error
    }
  }

  /** The exit, failing after `timeoutMs`. */
  waitForExit(timeoutMs: number): Promise<Exit> {
    return withTimeout(this.exit, timeoutMs, () => `${this.name} did not exit within ${timeoutMs / 1000} s\n${this.describe()}`)
  }
}

export interface SpawnOptions {
  readonly cwd: string
  readonly env: NodeJS.ProcessEnv
}

/** Starts `command` in its own process group, tracked for cleanup. */
export const spawnProcess = (name: string, command: string, args: ReadonlyArray<string>, options: SpawnOptions): Proc => {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"], detached: true })
  if (child.pid === undefined) throw new Error(`${name}: could not spawn ${command}`)
  const proc = new Proc(name, child, child.pid)
  groups.add(proc)
  void proc.exit.then(() => groups.delete(proc))
  return proc
}

export interface Completed {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs a command to completion (SIGKILLed after `timeoutMs`). */
export const runToEnd = async (
  name: string,
  command: string,
  args: ReadonlyArray<string>,
  options: SpawnOptions,
  timeoutMs = 60_000
): Promise<Completed> => {
  const proc = spawnProcess(name, command, args, options)
  try {
    const { code } = await proc.waitForExit(timeoutMs)
    return { code, stdout: proc.stdout, stderr: proc.stderr }
  } catch (error) {
    await proc.killTree()
    throw error
  }
}

/** Runs a command that must succeed; its stdout. */
export const runOk = async (name: string, command: string, args: ReadonlyArray<string>, options: SpawnOptions): Promise<string> => {
  const result = await runToEnd(name, command, args, options)
  if (result.code !== 0) {
    throw new Error(
      `${name}: ${command} ${args.join(" ")} exited with ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`
    )
  }
  return result.stdout
}

/** A pid this module did not spawn (a runtime started by the agent) to kill at cleanup if still alive. */
export const trackPid = (pid: number): void => {
  strays.add(pid)
}

/** What outlives the cleanups of the suites that share it (a file's one backend), until `release`d. */
const spared = { procs: new Set<Proc>(), dirs: new Set<string>() }

/** Keeps `proc` and `dir` through `killEverything` and `removeTempDirs` until the returned release is called. */
export const spare = (proc: Proc, dir: string): () => void => {
  spared.procs.add(proc)
  spared.dirs.add(dir)
  return () => {
    spared.procs.delete(proc)
    spared.dirs.delete(dir)
  }
}

/** SIGKILLs every tracked process group (but those spared) and pid still alive, and waits for the groups' exits. */
export const killEverything = async (): Promise<void> => {
  const procs = [...groups].filter((proc) => !spared.procs.has(proc))
  await Promise.all(procs.map((proc) => proc.killTree()))
  for (const pid of strays) killPid(pid)
  strays.clear()
}

/** Temporary directories, removed by `removeTempDirs`. */
const tempDirs = new Set<string>()

export const tempDir = (prefix: string): string => {
  // The real path: the runtimes report process.cwd(), which resolves symlinks (macOS /tmp).
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  tempDirs.add(dir)
  return dir
}

/** Pids of processes whose HOME or working directory lies inside `dir`. */
const livingIn = (dir: string): ReadonlyArray<number> =>
  fs.readdirSync("/proc").filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid).flatMap((pid) => {
    try {
      const home = fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").find((pair) => pair.startsWith("HOME="))?.slice(5)
      const cwd = fs.readlinkSync(`/proc/${pid}/cwd`)
      return [home, cwd].some((at) => at !== undefined && (at === dir || at.startsWith(`${dir}/`))) ? [Number(pid)] : []
    } catch {
      return []
    }
  })

export const removeTempDirs = async (): Promise<void> => {
  // A runtime's helper may outlive its runtime in a process group of its own (OpenCode installs its
  // plugins into its config dir): anything still living in a directory is killed before it goes.
  for (const dir of tempDirs) {
    if (spared.dirs.has(dir)) continue
    for (let round = 0; round < 20; round++) {
      const living = livingIn(dir)
      if (living.length === 0) break
      living.forEach(killPid)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 })
    tempDirs.delete(dir)
  }
}

/** The environment without anything inherited that would redirect Trellis or the replay runtime. */
export const cleanEnv = (extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith("TRELLIS_") || name.startsWith("REPLAY_") || name === "DATABASE_URL" || name.startsWith("GIT_")) continue
    env[name] = value
  }
  return { ...env, ...extra }
}
