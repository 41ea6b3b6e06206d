/**
 * The floors measured in the same run: a bare Node process, and a bare PGlite opened on the server's own data
 * directory (the server stopped: one process at a time) with PGlite's defaults and with the server's settings.
 * Both are plain `node`, not tsx, as the server runs compiled.
 */
import { spawn } from "node:child_process"
import { once } from "node:events"
import { sample, type Sample } from "./Memory.js"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Runs `node <args>` until it prints `ready`, waits `settleMs`, samples it and ends it. */
const measureNode = async (repoRoot: string, args: ReadonlyArray<string>, settleMs: number): Promise<Sample> => {
  const child = spawn(process.execPath, [...args], { cwd: repoRoot, stdio: ["ignore", "pipe", "inherit"] })
  try {
    let out = ""
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString("utf8")
        if (out.includes("ready\n")) resolve()
      })
      child.once("exit", (code) => reject(new Error(`the baseline process exited (code ${code}) before it was ready: ${out}`)))
    })
    await sleep(settleMs)
    const pid = child.pid
    if (pid === undefined) throw new Error("the baseline process has no pid")
    return sample(pid)
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, "exit")
      child.kill("SIGTERM")
      await exited
    }
  }
}

export const bareNode = (repoRoot: string): Promise<Sample> =>
  measureNode(repoRoot, ["-e", "process.stdout.write('ready\\n'); setInterval(() => {}, 1000)"], 1_000)

/**
 * PGlite on `dataDir`, a few catalog reads, then idle; `startParams` as PGlite takes them (undefined: its
 * defaults). Resolved from the repository, so the same PGlite as the server's.
 */
export const barePglite = (repoRoot: string, dataDir: string, startParams: ReadonlyArray<string> | undefined): Promise<Sample> =>
  measureNode(repoRoot, [
    "--input-type=module",
    "-e",
    `import { PGlite } from "@electric-sql/pglite"
const pg = await PGlite.create({ dataDir: ${JSON.stringify(dataDir)}${
      startParams === undefined ? "" : `, startParams: ${JSON.stringify(startParams)}`
    } })
await pg.query("SELECT count(*) FROM pg_class")
process.once("SIGTERM", () => pg.close().then(() => process.exit(0)))
process.stdout.write("ready\\n")
setInterval(() => {}, 1000)`
  ], 2_000)
