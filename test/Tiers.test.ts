import { describe, expect, it } from "@effect/vitest"
import { readdirSync } from "node:fs"
import { join, relative } from "node:path"
import { filesByTier, TIERS } from "./Tiers.js"

const root = join(import.meta.dirname, "..")

const allTestFiles = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === "fixtures" || entry.name === "node_modules" ? [] : allTestFiles(path)
    return entry.name.endsWith(".test.ts") ? [relative(root, path)] : []
  })

describe("the suite's tiers (docs/testing.md)", () => {
  const byTier = filesByTier()

  it("every test file belongs to exactly one tier", () => {
    const placed = TIERS.flatMap((tier) => byTier[tier])
    expect([...placed].sort()).toEqual([...allTestFiles(join(root, "test"))].sort())
    expect(new Set(placed).size).toBe(placed.length)
  })

  it("a file is in the tier of the heaviest thing it reaches through its imports", () => {
    expect(byTier.unit).toContain("test/threads/normalizers/ClaudeCode.test.ts")
    expect(byTier.service).toContain("test/platform/sql/TestDatabase.test.ts")
    expect(byTier.endpoint).toContain("test/server/McpEndpoint.test.ts")
    expect(byTier.process).toContain("test/e2e/Serve.test.ts")
    expect(byTier.browser).toContain("test/web/WebApp.test.ts")
    expect(byTier.runtime).toEqual(expect.arrayContaining(["test/e2e/ClaudeCodeRuntime.test.ts", "test/web/RealRuntime.test.ts"]))
  })

  it("the tiers' own test needs nothing: it is a unit test", () => {
    expect(byTier.unit).toContain("test/Tiers.test.ts")
  })

  it("no tier is empty", () => {
    for (const tier of TIERS) expect(byTier[tier].length, tier).toBeGreaterThan(0)
  })
})
