/**
 * The budget: the JavaScript a first visit loads (the shell's module script and what it
 * preloads) is at most 250 KB gzipped. Reads the build (`npm run build`), as the server ships it.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { gzipSync } from "node:zlib"
import { repoRoot } from "../e2e/support/Processes.js"

const BUDGET_BYTES = 250 * 1024
const built = path.join(repoRoot, "dist", "web")

describe("the web app's bundle", () => {
  it("the initial JavaScript is at most 250 KB gzipped", () => {
    const shellFile = path.join(built, "index.html")
    if (!fs.existsSync(shellFile)) throw new Error("dist/web/ is not built: run `npm run build` before this test")
    const shell = fs.readFileSync(shellFile, "utf8")
    const scripts = [...shell.matchAll(/<(?:script[^>]*\bsrc|link[^>]*\brel="modulepreload"[^>]*\bhref)="([^"]+\.js)"/g)].map((match) =>
      match[1] ?? ""
    )
    expect(scripts.length).toBeGreaterThan(0)
    const gzipped = scripts.reduce((total, script) => total + gzipSync(fs.readFileSync(path.join(built, script))).length, 0)
    expect(gzipped, `${scripts.join(", ")}: ${(gzipped / 1024).toFixed(1)} KB gzipped`).toBeLessThanOrEqual(BUDGET_BYTES)
  })
})
