import { spawn, type ChildProcess } from "node:child_process"
import { once } from "node:events"
import type { Server } from "node:http"

/** A server child process: its output is kept (the tail) so a failure can show it. */
export interface ServerProcess {
  readonly name: string
  readonly child: ChildProcess
  /** The last few kilobytes the child wrote to stdout and stderr. */
  readonly outputTail: () => string
  /** True once the child has exited. */
  readonly hasExited: () => boolean
  /** SIGTERM, then wait for the exit (SIGKILL if it takes more than 10 s). */
  readonly stop: () => Promise<void>
}

const OUTPUT_TAIL_CHARS = 8_000
const STOP_GRACE_MS = 10_000

export const spawnServer = (
  name: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env: NodeJS.ProcessEnv }
): ServerProcess => {
  // BENCH_SERVER_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the servers under load.
  const nodeArgs = (process.env["BENCH_SERVER_NODE_ARGS"] ?? "").split(" ").filter((arg) => arg !== "")
  const child = spawn(process.execPath, [...nodeArgs, ...args], { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] })
  let tail = ""
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString("utf8")).slice(-OUTPUT_TAIL_CHARS)
  }
  child.stdout.on("data", keep)
  child.stderr.on("data", keep)
  const hasExited = () => child.exitCode !== null || child.signalCode !== null

  const stop = async () => {
    if (hasExited()) return
    const exited = once(child, "exit")
    child.kill("SIGTERM")
    const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS)
    await exited
    clearTimeout(timer)
  }

  return { name, child, outputTail: () => tail, hasExited, stop }
}

export const describeFailure = (server: ServerProcess, problem: string): Error =>
  new Error(`${problem}\n--- ${server.name} output (tail) ---\n${server.outputTail()}\n---`)

const LISTENING = /^listening (\d+)$/m

/** In a child: listen on a free loopback port and tell the parent which (see `waitForAnnouncedPort`). */
export const listenAndAnnounce = (server: Server): void => {
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    if (address === null || typeof address === "string") throw new Error("expected a TCP address")
    process.stdout.write(`listening ${address.port}\n`)
  })
}

/**
 * In the parent: the first capture of `pattern` in the child's stdout, once it appears; fails
 * (showing the child's output) if the child exits first or `timeoutMs` passes.
 */
export const waitForOutput = (server: ServerProcess, pattern: RegExp, timeoutMs: number): Promise<string> =>
  new Promise((resolve, reject) => {
    const { child } = server
    let seen = ""
    const finish = (outcome: () => void) => {
      clearTimeout(timer)
      child.stdout?.off("data", onData)
      child.off("exit", onExit)
      outcome()
    }
    const onData = (chunk: Buffer) => {
      seen += chunk.toString("utf8")
      const match = pattern.exec(seen)?.[1]
      if (match !== undefined) finish(() => resolve(match))
    }
    const onExit = () =>
      finish(() => reject(describeFailure(server, `The ${server.name} server exited during startup (code ${child.exitCode})`)))
    const timer = setTimeout(
      () => finish(() => reject(describeFailure(server, `The ${server.name} server did not start within ${timeoutMs} ms`))),
      timeoutMs
    )
    child.stdout?.on("data", onData)
    child.once("exit", onExit)
  })

/** In the parent: the port a child announced with `listenAndAnnounce`. */
export const waitForAnnouncedPort = (server: ServerProcess, timeoutMs: number): Promise<number> =>
  waitForOutput(server, LISTENING, timeoutMs).then(Number)

/** An integer setting from the environment, with a default and a lower bound. */
export const intEnv = (name: string, fallback: number, min: number): number => {
  const raw = process.env[name]
  if (raw === undefined || raw === "") return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer ≥ ${min}, got "${raw}"`)
  return value
}

export const requiredEnv = (name: string): string => {
  const value = process.env[name]
  if (value === undefined || value === "") throw new Error(`${name} is not set`)
  return value
}
