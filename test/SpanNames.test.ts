import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { basename, join, relative } from "node:path"

const root = join(import.meta.dirname, "..")

const sources = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === "generated" ? [] : sources(path)
    return entry.name.endsWith(".ts") ? [path] : []
  })

describe("traces read like the code", () => {
  it("a traced method's span is named after its file: <Module>.<method>", () => {
    const misnamed = sources(join(root, "src")).flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(/Effect\.fn\("([^"]+)"/g)]
        .map((match) => match[1] ?? "")
        .filter((span) => span.split(".")[0] !== basename(file, ".ts"))
        .map((span) => `${relative(root, file)}: ${span}`)
    )
    expect(misnamed).toEqual([])
  })
})
