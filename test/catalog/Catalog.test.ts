import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as fs from "node:fs"
import { Catalog } from "../../catalog/index.js"
import * as Tool from "../../catalog/Tool.js"
import { renderToolsDoc } from "../../cli/ToolsDoc.js"

describe("tool catalog", () => {
  it.effect("every tool has a title and a description", () =>
    Effect.sync(() => {
      for (const tool of Catalog) {
        expect(tool.title.length, tool.name).toBeGreaterThan(0)
        expect(tool.description.length, tool.name).toBeGreaterThan(20)
      }
    }))

  it.effect("tool names are unique and match [A-Za-z0-9_.-]{1,128}", () =>
    Effect.sync(() => {
      const names = Catalog.map((tool) => tool.name)
      expect(new Set(names).size).toBe(names.length)
      for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_.-]{1,128}$/)
    }))

  it.effect("every input schema is a closed JSON Schema object", () =>
    Effect.sync(() => {
      for (const tool of Catalog) {
        expect(Tool.inputJsonSchema(tool), tool.name).toMatchObject({ type: "object", additionalProperties: false })
      }
    }))

  it.effect("every output schema is an object that also admits the error envelope, unless the result may be null", () =>
    Effect.sync(() => {
      for (const tool of Catalog) {
        const output: Schema.Schema.AnyNoContext = tool.output
        if (Schema.is(output)(null)) {
          expect(Tool.outputJsonSchema(tool), tool.name).toBeUndefined()
          continue
        }
        const schema = Tool.outputJsonSchema(tool)
        expect(schema, tool.name).toMatchObject({ type: "object", anyOf: expect.any(Array) })
        expect(JSON.stringify(schema)).toContain("\"error\"")
      }
    }))

  it.effect("docs/tools.md is generated from the catalog and up to date", () =>
    Effect.sync(() => {
      const committed = fs.readFileSync(new URL("../../docs/tools.md", import.meta.url), "utf8")
      expect(committed).toBe(renderToolsDoc())
      for (const tool of Catalog) expect(committed).toContain(`## ${tool.name}`)
    }))
})
