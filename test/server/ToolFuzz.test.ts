import { describe, expect, layer } from "@effect/vitest"
import { Arbitrary, Effect, FastCheck, Option, Schema, SchemaAST } from "effect"
import { Catalog } from "../../catalog/index.js"
import type * as Tool from "../../catalog/Tool.js"
import { rawRequest, TestServer } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"

/** Fixed so a failure replays; small enough for the normal suite on both databases. */
const SEED = 22
const SAMPLES_PER_TOOL = 3

const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")

/** Cursors in the server's format but of another list, truncated, or holding the wrong types. */
const foreignCursors = [
  cursorOf({ list: "list_task_lists", after: ["a0", "list_0192d7c6a1b27c3e8f0a1b2c3d4e5f60"] }),
  cursorOf({ list: "list_threads", after: ["1e400", "thread_x"] }),
  cursorOf({ list: "search_tasks", after: [1e308, 7] }),
  cursorOf(["a0", "list_0192d7c6a1b27c3e8f0a1b2c3d4e5f60"]),
  cursorOf(["2026-02-31 00:00:00+00", "thread_x"]),
  cursorOf({ list: "list_threads", after: ["9999999999999999", "x"] }).slice(0, 12),
  "\ud800"
]

/** Stands for `{"a":{"a":…}}` nested `depth` deep, spliced in as text (JSON.stringify would overflow). */
const deep = (depth: number) => `@@deep${depth}@@`
const spliceDeep = (body: string) =>
  body.replace(/"@@deep(\d+)@@"/g, (_, depth: string) => `${"{\"a\":".repeat(Number(depth))}1${"}".repeat(Number(depth))}`)

const mapStrings = (value: unknown, f: (text: string) => string): unknown =>
  typeof value === "string"
    ? f(value)
    : Array.isArray(value)
    ? value.map((item) => mapStrings(item, f))
    : typeof value === "object" && value !== null
    ? Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item, f)]))
    : value

/** A value of another JSON type than `value`. */
const wrongType = (value: unknown): unknown =>
  typeof value === "string"
    ? 42
    : typeof value === "number"
    ? "42"
    : Array.isArray(value)
    ? { 0: "x" }
    : typeof value === "object"
    ? ["x"]
    : "x"

/** The variant with the sample's own (valid) projectId, so it reaches the handler and the database. */
const withProject = (variant: unknown, args: Record<string, unknown>): unknown =>
  "projectId" in args ? { ...Object(variant), projectId: args["projectId"] } : variant

/** The tool's required arguments: a sample cut to them (and projectId) gets past lookups of optional refs. */
const requiredFields = (tool: Tool.Any): ReadonlyArray<string> =>
  SchemaAST.isTypeLiteral(tool.input.ast)
    ? tool.input.ast.propertySignatures.filter((field) => !field.isOptional).map((field) => String(field.name))
    : []

/** Hostile variants of one well-typed argument object. */
const mutations = (tool: Tool.Any, args: Record<string, unknown>): ReadonlyArray<unknown> => {
  const fields = Object.keys(tool.input.fields)
  return [
    args,
    withProject(mapStrings(args, (text) => `${text}\ud800`), args),
    withProject(mapStrings(args, (text) => `x\udfff${text}y`), args),
    ...fields.map((field) => ({ ...args, [field]: wrongType(args[field]) })),
    ...fields.map((field) => ({ ...args, [field]: deep(40) })),
    ...fields.map((field) => ({ ...args, [field]: deep(5_000) })),
    ...(fields.includes("cursor") ? foreignCursors.map((cursor) => ({ ...args, cursor })) : [])
  ]
}

/** Well-typed arguments from the tool's own Schema, on the wire (encoded); none if it has no Arbitrary. */
const samples = (tool: Tool.Any, projectId: string): ReadonlyArray<Record<string, unknown>> => {
  const encode = Schema.encodeUnknownOption(tool.input)
  return FastCheck.sample(Arbitrary.make(tool.input), { seed: SEED, numRuns: SAMPLES_PER_TOOL }).flatMap((value) =>
    Option.match(encode(value), {
      onNone: () => [],
      onSome: (wire) => {
        const args: Record<string, unknown> = { ...Object(wire) }
        // The seeded project, so a call gets past access checks to the handler and the database.
        if ("projectId" in tool.input.fields) args["projectId"] = projectId
        const required = new Set([...requiredFields(tool), "projectId"])
        return [args, Object.fromEntries(Object.entries(args).filter(([field]) => required.has(field)))]
      }
    })
  )
}

describe("tool fuzz: no generated or hostile argument of a tool is an internal error", () => {
  layer(TestServer({ rateLimit: Option.none() }))((it) => {
    for (const tool of Catalog) {
      it.effect(tool.name, () =>
        Effect.gen(function*() {
          const { key, project } = yield* seedOwner(`fuzz-${tool.name.replaceAll("_", "-")}`)
          const internal: Array<string> = []
          let calls = 0
          for (const args of samples(tool, project.id)) {
            for (const variant of mutations(tool, args)) {
              calls++
              const body = spliceDeep(
                JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool.name, arguments: variant } })
              )
              const res = yield* rawRequest({ body, headers: { authorization: `Bearer ${key}` } })
              const code: unknown = Reflect.get(Object(Reflect.get(Object(res.json), "error")), "code")
              if (res.status >= 500 || code === -32603) internal.push(`${body.slice(0, 300)} -> ${res.text.slice(0, 200)}`)
            }
          }
          expect(calls).toBeGreaterThan(0)
          expect(internal).toEqual([])
        }))
    }
  })
})
