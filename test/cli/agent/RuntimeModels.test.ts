import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { CLAUDE_ALIASES, parseOpenCodeModels, withModels } from "../../../cli/agent/RuntimeModels.js"

/** Fake runtime binaries (node scripts) in a directory put first on PATH while `effect` runs. */
const withFakeBinaries = <A, E, R>(binaries: Record<string, string>, effect: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const bin = mkdtempSync(join(tmpdir(), "trellis-fake-bin-"))
      for (const [name, source] of Object.entries(binaries)) {
        writeFileSync(join(bin, name), `#!/usr/bin/env node\n${source}\n`)
        chmodSync(join(bin, name), 0o755)
      }
      const saved = process.env["PATH"]
      process.env["PATH"] = `${bin}:${saved ?? ""}`
      return saved
    }),
    () => effect,
    (saved) =>
      Effect.sync(() => {
        process.env["PATH"] = saved
      })
  )

/** A `codex app-server` that answers initialize and model/list on stdin, and stays up until stdin ends. */
const fakeCodex = `
const rl = require("node:readline").createInterface({ input: process.stdin })
rl.on("line", (line) => {
  const request = JSON.parse(line)
  if (request.method === "initialize") console.log(JSON.stringify({ id: request.id, result: { userAgent: "fake" } }))
  if (request.method === "model/list") console.log(JSON.stringify({ id: request.id, result: { nextCursor: null, data: [
    { id: "gpt-a", model: "gpt-a", hidden: false, supportedReasoningEfforts: [{ reasoningEffort: "low", description: "" }, { reasoningEffort: "high", description: "" }] },
    { id: "gpt-b", model: "gpt-b", hidden: false, supportedReasoningEfforts: [] }
  ] } }))
})`

/** An `opencode models --verbose` listing: a name line, then the model's details as indented JSON. */
const openCodeListing = [
  "mock/mock-model",
  JSON.stringify({ id: "mock-model", providerID: "mock", variants: { low: {}, high: {} } }, null, 2),
  "opencode/big-pickle",
  JSON.stringify({ id: "big-pickle", providerID: "opencode", variants: {} }, null, 2)
].join("\n")

const fakeOpenCode = `process.stdout.write(${JSON.stringify(`${openCodeListing}\n`)})`

/** A runtime that never answers. */
const hanging = "setInterval(() => {}, 60_000)"

const detected = [
  { type: "claude", version: "2.1.197" },
  { type: "codex", version: "0.169.0" },
  { type: "opencode", version: "1.18.33" },
  { type: "gemini", version: "0.1.0" }
] as const

describe("the models each runtime lists at registration", () => {
  it.effect("Codex's come from its app-server's model/list, with their reasoning efforts", () =>
    withFakeBinaries({ codex: fakeCodex }, withModels([detected[1]])).pipe(
      Effect.map((clis) => {
        expect(clis).toEqual([{
          type: "codex",
          version: "0.169.0",
          cliModels: [{ model: "gpt-a", efforts: ["low", "high"] }, { model: "gpt-b" }]
        }])
      }),
      Effect.provide(NodeContext.layer)
    ))

  it.effect("OpenCode's come from `opencode models --verbose`; a model's variants are its efforts", () =>
    withFakeBinaries({ opencode: fakeOpenCode }, withModels([detected[2]])).pipe(
      Effect.map((clis) => {
        expect(clis[0]?.cliModels).toEqual([{ model: "mock/mock-model", efforts: ["low", "high"] }, { model: "opencode/big-pickle" }])
      }),
      Effect.provide(NodeContext.layer)
    ))

  it.effect("Claude Code, which cannot list its models, is sent its documented aliases; a runtime without a listing is sent as detected", () =>
    withModels([detected[0], detected[3]]).pipe(
      Effect.map((clis) => {
        expect(clis).toEqual([{ ...detected[0], cliModels: CLAUDE_ALIASES }, detected[3]])
      }),
      Effect.provide(NodeContext.layer)
    ))

  it.live("a runtime that does not answer in time registers without models, and no later than the bound", () =>
    withFakeBinaries({ codex: hanging, opencode: hanging }, Effect.timed(withModels([detected[1], detected[2]], Duration.millis(500))))
      .pipe(
        Effect.map(([elapsed, clis]) => {
          expect(clis).toEqual([detected[1], detected[2]])
          expect(Duration.toMillis(elapsed)).toBeLessThan(5_000)
        }),
        Effect.provide(NodeContext.layer)
      ))

  it("a listing line that is not a `provider/model` name, or details that are not JSON, add no efforts", () => {
    expect(parseOpenCodeModels("some banner\nmock/a\nnot json\nmock/b\n")).toEqual([{ model: "mock/a" }, { model: "mock/b" }])
  })
})
