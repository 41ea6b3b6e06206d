#!/usr/bin/env node
// Runs the compiled CLI (`npm run build` → dist/) when it is at least as new as every source file,
// else the TypeScript directly through tsx, so a checkout needs no build step and a stale build is
// never run. The compiled form starts faster and needs about 100 MB less memory.
import { spawn } from "node:child_process"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { isBuildFresh } from "./BuildFreshness.js"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const compiled = join(root, "dist", "cli", "main.js")

// `trellis agent start` runs for days beside the user's other programs, so its V8 heap is kept
// small: 2 MB semi-spaces for the young generation (default 16: short-lived garbage of a fast
// stream otherwise grows the heap by tens of MB) and an old generation capped at 128 MB (V8
// otherwise lets it grow to several times what is live before collecting). V8 reads these only
// when a process starts, so this launcher starts the agent again with them (unless NODE_OPTIONS
// sets its own limits), forwards its signals, and exits as the agent does. The agent ends as on
// SIGTERM when the launcher dies (its IPC channel closes). The launcher's own memory is a bare
// node process: most of it is the node binary's pages, shared with the agent.
const AGENT_HEAP_FLAGS = ["--max-semi-space-size=2", "--max-old-space-size=128"]
const isAgentStart = process.argv[2] === "agent" && process.argv[3] === "start"
const hasOwnLimits = /--max-(old|semi)-space-size/.test(`${process.env.NODE_OPTIONS ?? ""} ${process.execArgv.join(" ")}`)

if (isAgentStart && !hasOwnLimits) {
  const agent = spawn(process.execPath, [...process.execArgv, ...AGENT_HEAP_FLAGS, ...process.argv.slice(1)], {
    stdio: ["inherit", "inherit", "inherit", "ipc"]
  })
  agent.on("error", (error) => {
    console.error(`error: cannot start the agent: ${error.message}`)
    process.exit(1)
  })
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => agent.kill(signal))
  agent.on("exit", (code, signal) => {
    if (signal === null) process.exit(code ?? 1)
    process.removeAllListeners(signal)
    process.kill(process.pid, signal)
  })
} else if (process.env.TRELLIS_FROM_SOURCE !== "1" && isBuildFresh(root)) {
  await import(compiled)
} else {
  const { register } = await import("tsx/esm/api")
  register()
  await import("./main.ts")
}
