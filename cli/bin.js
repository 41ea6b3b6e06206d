#!/usr/bin/env node
// Runs the compiled CLI (`npm run build` → dist/) when it is at least as new as every source file,
// else the TypeScript directly through tsx, so a checkout needs no build step and a stale build is
// never run. The compiled form starts faster and needs about 100 MB less memory.
import { spawn } from "node:child_process"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { isBuildFresh } from "./BuildFreshness.js"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
// The bundle (cli/BuildBundle.ts) starts fastest; TRELLIS_BUNDLE=0 runs the per-module build, whose
// CPU profiles name each module (npm run bench's per-stage breakdown).
const compiled = join(root, "dist", process.env.TRELLIS_BUNDLE === "0" ? "cli" : "bundle", "main.js")

// `trellis agent start` and `trellis serve` run for days beside the user's other programs, so their
// V8 heaps are kept small. V8 otherwise lets the old generation grow to several times what is live
// before collecting, and 16 MB semi-spaces let short-lived garbage of a fast stream or a burst of
// requests grow the heap by tens of MB: the agent gets 2 MB semi-spaces and an old generation capped
// at 128 MB; the server (whose live heap grows with its users) 4 MB semi-spaces and a heap that
// grows by 40 % of what is live between collections, with no cap (npm run bench:refusals: peak RSS
// 480 MB → 245 MB on PostgreSQL, the same p99). V8 reads these only when a process starts, so this
// launcher starts the command again with them (unless NODE_OPTIONS sets its own limits), forwards
// its signals, and exits as the command does. The command ends as on SIGTERM when the launcher dies
// (its IPC channel closes; cli/agent/StopWithLauncher.ts). The launcher's own memory is a bare node
// process: most of it is the node binary's pages, shared with its child.
const HEAP_FLAGS = {
  agent: ["--max-semi-space-size=2", "--max-old-space-size=128"],
  serve: ["--max-semi-space-size=4", "--heap-growing-percent=40"]
}
// glibc gives each of V8's compiler threads a malloc arena and, once a large block is freed, raises
// the size above which it maps blocks directly. The background compiles that tier up PGlite's
// WebAssembly thus left ~60 MB of freed memory in those arenas for the life of the server. A fixed
// threshold hands large blocks back to the OS when they are freed (npm run bench:memory: idle RSS
// 281 → 225 MB, tools/call no slower). Other C libraries ignore the variable; a GLIBC_TUNABLES of the
// user's own is kept.
const MALLOC_ENV = {
  agent: {},
  serve: { GLIBC_TUNABLES: "glibc.malloc.mmap_threshold=131072" }
}
const command = process.argv[2] === "agent" && process.argv[3] === "start"
  ? "agent"
  : process.argv[2] === "serve"
  ? "serve"
  : undefined
const hasOwnLimits = /--max-(old|semi)-space-size/.test(`${process.env.NODE_OPTIONS ?? ""} ${process.execArgv.join(" ")}`)

if (command !== undefined && !hasOwnLimits) {
  const child = spawn(process.execPath, [...process.execArgv, ...HEAP_FLAGS[command], ...process.argv.slice(1)], {
    stdio: ["inherit", "inherit", "inherit", "ipc"],
    env: { ...MALLOC_ENV[command], ...process.env }
  })
  child.on("error", (error) => {
    console.error(`error: cannot start trellis ${command}: ${error.message}`)
    process.exit(1)
  })
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal))
  child.on("exit", (code, signal) => {
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
