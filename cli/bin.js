#!/usr/bin/env node
// Runs the compiled CLI (`npm run build` → dist/) when it is at least as new as every source file,
// else the TypeScript directly through tsx, so a checkout needs no build step and a stale build is
// never run. The compiled form starts faster and needs about 100 MB less memory.
import { readdirSync, statSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const compiled = join(root, "dist", "cli", "main.js")
const stamp = join(root, "dist", ".built")

const modifiedAfter = (dir, time) =>
  readdirSync(dir, { withFileTypes: true }).some((entry) => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? modifiedAfter(path, time) : entry.name.endsWith(".ts") && statSync(path).mtimeMs > time
  })

const isFresh = () => {
  try {
    const built = statSync(stamp).mtimeMs
    return ["catalog", "src", "cli"].every((dir) => !modifiedAfter(join(root, dir), built))
  } catch {
    return false
  }
}

if (process.env.TRELLIS_FROM_SOURCE !== "1" && isFresh()) {
  await import(compiled)
} else {
  const { register } = await import("tsx/esm/api")
  register()
  await import("./main.ts")
}
