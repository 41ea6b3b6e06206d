import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"

/**
 * The suite's tiers, by what a test file needs to run (docs/testing.md). A file's tier is the
 * heaviest thing it reaches through its imports inside test/: nothing is declared twice, and a new
 * file lands in a tier by what it uses. The rules, heaviest first:
 *
 * - runtime: the real Claude Code, Codex or OpenCode against the mock model (test/support/mock-model/)
 * - browser: Chromium (playwright-core)
 * - process: `trellis` binaries, signals, installs (test/e2e/, or a spawned cli/bin.js)
 * - endpoint: a server in process, over HTTP or MCP (test/support/TestServer.ts, serveNode)
 * - service: a database, no HTTP (test/support/TestDatabase.ts, through ServiceTest.ts or directly)
 * - unit: none of those
 */
export const TIERS = ["unit", "service", "endpoint", "process", "browser", "runtime"] as const
export type Tier = (typeof TIERS)[number]

/** What puts a file, or any test/ file it imports, in a tier. */
const REACHES: ReadonlyArray<readonly [Tier, RegExp]> = [
  ["runtime", /support\/mock-model\/|support\/RealRuntimes\.js/],
  ["browser", /["']playwright-core["']/],
  ["process", /cli\/bin\.js|support\/Processes\.js/],
  ["endpoint", /support\/TestServer\.js|\bserveNode\(/],
  ["service", /\/TestDatabase\.js["']/]
]

const IMPORT = /(?:import|export)\s[^"']*?from\s+["'](\.{1,2}\/[^"']+)["']|import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g

const testRoot = dirname(new URL(import.meta.url).pathname)

/** The test/ files `file` imports (`.js` specifiers name the `.ts` sources). */
const localImports = (file: string): ReadonlyArray<string> =>
  [...readFileSync(file, "utf8").matchAll(IMPORT)]
    .map((match) => resolve(dirname(file), (match[1] ?? match[2] ?? "").replace(/\.js$/, ".ts")))
    .filter((target) => target.startsWith(testRoot + "/"))

const rank = (tier: Tier): number => TIERS.indexOf(tier)

/** A file's code without its comments: a comment that names a helper does not use it. */
const withoutComments = (source: string): string => source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "")

/** The tier of one test file (an absolute path). */
export const tierOf = (file: string, seen: Map<string, Tier> = new Map()): Tier => {
  const known = seen.get(file)
  if (known !== undefined) return known
  seen.set(file, "unit")
  let source = ""
  try {
    source = withoutComments(readFileSync(file, "utf8"))
  } catch {
    return "unit"
  }
  const inE2e = relative(testRoot, file).startsWith("e2e/")
  let tier: Tier = inE2e ? "process" : "unit"
  for (const [candidate, pattern] of REACHES) {
    if (pattern.test(source) && rank(candidate) > rank(tier)) tier = candidate
  }
  for (const imported of localImports(file)) {
    const reached = tierOf(imported, seen)
    if (rank(reached) > rank(tier)) tier = reached
  }
  seen.set(file, tier)
  return tier
}

const testFiles = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === "node_modules" || entry.name === "fixtures" ? [] : testFiles(path)
    return entry.name.endsWith(".test.ts") ? [path] : []
  })

/** Every test file under test/, relative to the repository, by tier. */
export const filesByTier = (): Record<Tier, Array<string>> => {
  const byTier: Record<Tier, Array<string>> = { unit: [], service: [], endpoint: [], process: [], browser: [], runtime: [] }
  const seen = new Map<string, Tier>()
  for (const file of testFiles(testRoot)) byTier[tierOf(file, seen)].push(relative(dirname(testRoot), file))
  return byTier
}
