import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

/**
 * docs/architecture.md: imports run one way (catalog/ ← src/ ← cli/, and cli/agent/ → catalog/
 * only) and form no cycle. Type-only imports count: a cycle of types is still two modules that
 * cannot be understood apart. The generated Codex protocol types are left out.
 */

const root = fileURLToPath(new URL("..", import.meta.url))

const modules = (dir: string): ReadonlyArray<string> =>
  fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === "codex-protocol" ? [] : modules(file)
    return entry.name.endsWith(".ts") ? [file] : []
  })

const files = ["catalog", "src", "cli"].flatMap(modules)
const known = new Set(files)
/** Each module's imports of other modules here, as TypeScript's preprocessor reads them. */
const graph = new Map(files.map((file) => [
  file,
  ts.preProcessFile(fs.readFileSync(path.join(root, file), "utf8"), true, true).importedFiles
    .filter((imported) => imported.fileName.startsWith("."))
    .map((imported) => path.normalize(path.join(path.dirname(file), imported.fileName)).replace(/\.js$/, ".ts"))
    .filter((target) => known.has(target))
]))

const layerOf = (file: string) => (file.startsWith("catalog/") ? "catalog" : file.startsWith("cli/agent/") ? "agent" : file.startsWith("src/") ? "src" : "cli")
const allowed: Record<string, ReadonlyArray<string>> = { catalog: ["catalog"], agent: ["agent", "catalog"], src: ["src", "catalog"], cli: ["cli", "agent", "src", "catalog"] }

/** The strongly connected components of more than one module (Tarjan). */
const cycles = (): ReadonlyArray<ReadonlyArray<string>> => {
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
  for (const file of files) if (!index.has(file)) visit(file)
  return found
}

describe("the import graph", () => {
  it("every import runs towards the contract: catalog/ imports only itself, cli/agent/ nothing of src/", () => {
    expect(files.length).toBeGreaterThan(150)
    const against = [...graph].flatMap(([file, targets]) =>
      targets.filter((target) => !(allowed[layerOf(file)] ?? []).includes(layerOf(target))).map((target) => `${file} → ${target}`))
    expect(against).toEqual([])
  })

  it("no module imports itself back through others, type imports included", () => {
    expect(cycles()).toEqual([])
  })
})
