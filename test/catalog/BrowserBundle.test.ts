import { describe, expect, it } from "@effect/vitest"
import * as esbuild from "esbuild"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/**
 * catalog/ is the contract that the server, the CLI and the browser all import: the tool
 * declarations, the domain Schemas and typed errors, the bridge's HttpApi, the normalized events
 * and their composer. Every module of it must bundle for a browser, pulling in nothing of the
 * server or the CLI and no Node built-in.
 */

const root = fileURLToPath(new URL("../..", import.meta.url))
const catalog = path.join(root, "catalog")

const modules = (dir: string): ReadonlyArray<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? modules(path.join(dir, entry.name)) : entry.name.endsWith(".ts") ? [path.join(dir, entry.name)] : []
  )

describe("the contract (catalog/) in a browser", () => {
  it("every module bundles for the browser platform, from the contract and pure libraries only", async () => {
    const entries = modules(catalog)
    expect(entries.length).toBeGreaterThan(30)
    const result = await esbuild.build({
      entryPoints: [...entries],
      bundle: true,
      platform: "browser",
      format: "esm",
      splitting: true,
      outdir: "out",
      write: false,
      metafile: true,
      logLevel: "silent"
    }).catch((error: unknown) => {
      // esbuild names each import a browser cannot resolve (node:fs, a server module's node built-ins).
      throw new Error(`the contract does not bundle for a browser:\n${String(error)}`)
    })
    const outside = Object.keys(result.metafile.inputs).filter((input) => !input.startsWith("catalog/") && !input.includes("node_modules/"))
    expect(outside, "modules of the server or the CLI in the contract's bundle").toEqual([])
  }, 60_000)
})
