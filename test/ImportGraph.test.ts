import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

/**
 * docs/architecture.md: imports run one way (catalog/ ← src/platform/ ← src/<feature>/ ←
 * src/server/ ← cli/, cli/agent/ → catalog/ only, and web/ → catalog/ only) and form no cycle. Type-only imports count:
 * a cycle of types is still two modules that cannot be understood apart. Generated code
 * (cli/agent/runtimes/generated/) is left out.
 */

const root = fileURLToPath(new URL("..", import.meta.url))

const modules = (dir: string): ReadonlyArray<string> =>
  fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === "generated" ? [] : modules(file)
    return /\.tsx?$/.test(entry.name) ? [file] : []
  })

const files = ["catalog", "src", "cli", "web"].flatMap(modules)
const known = new Set(files)
/** The module an import names: `./x.js` is `x.ts` (or `x.tsx`); web/ also imports without an extension. */
const resolve = (target: string): string | undefined => {
  const stem = target.replace(/\.js$/, "")
  return [target, `${stem}.ts`, `${stem}.tsx`].find((candidate) => known.has(candidate))
}

/** Each module's imports of other modules here, as TypeScript's preprocessor reads them. */
const imports = (file: string) =>
  ts.preProcessFile(fs.readFileSync(path.join(root, file), "utf8"), true, true).importedFiles.map((imported) => imported.fileName)
const graph = new Map(files.map((file) => [
  file,
  imports(file)
    .filter((name) => name.startsWith("."))
    .flatMap((name) => resolve(path.normalize(path.join(path.dirname(file), name))) ?? [])
]))

/** The feature folders of src/: each holds its services, tool handlers and routes. */
const features = [
  "orgs",
  "projects",
  "lists-labels",
  "tasks",
  "artifacts",
  "agents",
  "prompts",
  "skills",
  "threads",
  "bridge",
  "machines",
  "review"
]

const layerOf = (file: string): string => {
  if (file.startsWith("catalog/")) return "catalog"
  if (file.startsWith("cli/agent/")) return "agent"
  if (file.startsWith("cli/")) return "cli"
  if (file.startsWith("web/")) return "web"
  if (file.startsWith("src/platform/")) return "platform"
  if (file.startsWith("src/server/") || file === "src/index.ts") return "server"
  return features.some((feature) => file.startsWith(`src/${feature}/`)) ? "feature" : `unfiled (${file})`
}
const allowed: Record<string, ReadonlyArray<string>> = {
  catalog: ["catalog"],
  platform: ["platform", "catalog"],
  feature: ["feature", "platform", "catalog"],
  server: ["server", "feature", "platform", "catalog"],
  agent: ["agent", "catalog"],
  web: ["web", "catalog"],
  cli: ["cli", "agent", "server", "feature", "platform", "catalog"]
}

/** The folders' graph: a folder imports another when one of its modules imports one of the other's. */
const folderGraph = new Map<string, ReadonlyArray<string>>()
for (const [file, targets] of graph) {
  const from = path.dirname(file)
  const to = targets.map((target) => path.dirname(target)).filter((folder) => folder !== from)
  folderGraph.set(from, [...new Set([...(folderGraph.get(from) ?? []), ...to])])
}

/** The strongly connected components of more than one node (Tarjan). */
const cycles = (graph: ReadonlyMap<string, ReadonlyArray<string>>): ReadonlyArray<ReadonlyArray<string>> => {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const found: Array<Array<string>> = []
  const visit = (file: string): void => {
    index.set(file, next)
    low.set(file, next++)
    stack.push(file)
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target)
        low.set(file, Math.min(low.get(file) ?? 0, low.get(target) ?? 0))
      } else if (stack.includes(target)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(target) ?? 0))
      }
    }
    if (low.get(file) !== index.get(file)) return
    const component: Array<string> = []
    for (let top = stack.pop(); top !== undefined; top = top === file ? undefined : stack.pop()) component.push(top)
    if (component.length > 1) found.push(component.sort())
  }
  for (const node of graph.keys()) if (!index.has(node)) visit(node)
  return found
}

describe("the import graph", () => {
  it("every module of src/ lives in platform/, server/ or a feature folder", () => {
    expect(files.filter((file) => layerOf(file).startsWith("unfiled"))).toEqual([])
  })

  it("every import runs towards the contract: features → platform → catalog, server/ above them, cli/agent/ on catalog/ only", () => {
    expect(files.length).toBeGreaterThan(150)
    const against = [...graph].flatMap(([file, targets]) =>
      targets.filter((target) => !(allowed[layerOf(file)] ?? []).includes(layerOf(target))).map((target) => `${file} → ${target}`)
    )
    expect(against).toEqual([])
  })

  it("web/ imports only web/, catalog/ and packages: no Node built-in, no file outside the two", () => {
    const web = files.filter((file) => file.startsWith("web/src/"))
    expect(web.length).toBeGreaterThan(5)
    const against = web.flatMap((file) =>
      imports(file)
        .filter((name) => {
          if (name.startsWith("node:")) return true
          const target = path.normalize(path.join(path.dirname(file), name))
          return name.startsWith(".") && !target.startsWith("web/") && !target.startsWith("catalog/")
        })
        .map((name) => `${file} → ${name}`)
    )
    expect(against).toEqual([])
  })

  it("no module imports itself back through others, type imports included", () => {
    expect(cycles(graph)).toEqual([])
  })

  it("no two folders import each other, directly or through others", () => {
    expect(folderGraph.size).toBeGreaterThan(20)
    expect(cycles(folderGraph)).toEqual([])
  })

  it("no module imports the package by its own name", () => {
    const name: unknown = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).name
    expect(typeof name).toBe("string")
    const against = files.flatMap((file) =>
      imports(file).filter((imported) => imported === name || imported.startsWith(`${String(name)}/`)).map((imported) =>
        `${file} → ${imported}`
      )
    )
    expect(against).toEqual([])
  })
})
