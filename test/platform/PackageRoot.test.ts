import { afterAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { isSource, packageRoot } from "../../src/platform/PackageRoot.js"

/** An installed package: its package.json, the per-module build and the CLI's bundle at their own depths. */
const installed = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "trellis-package-root-")))
const moduleAt = (relative: string) => {
  const file = path.join(installed, relative)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, "")
  return pathToFileURL(file).href
}
fs.writeFileSync(path.join(installed, "package.json"), "{}")

afterAll(() => fs.rmSync(installed, { recursive: true, force: true }))

describe("the package root", () => {
  it("is the nearest folder with a package.json, from a module at any depth", () => {
    expect(packageRoot(moduleAt("dist/src/platform/sql/ClusterImage.js"))).toBe(installed)
    expect(packageRoot(moduleAt("dist/bundle/chunk-ABC.js"))).toBe(installed)
    expect(packageRoot(moduleAt("src/platform/http/WebApp.ts"))).toBe(installed)
  })

  it("is this checkout for this module", () => {
    expect(fs.existsSync(path.join(packageRoot(import.meta.url), "package.json"))).toBe(true)
    expect(packageRoot(import.meta.url)).toBe(path.resolve(path.dirname(new URL(import.meta.url).pathname), "../.."))
  })

  it("a TypeScript module is the source; a JavaScript one is the build", () => {
    expect(isSource(moduleAt("src/platform/PackageRoot.ts"))).toBe(true)
    expect(isSource(moduleAt("dist/bundle/main.js"))).toBe(false)
  })
})
