import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { unbundle } from "../../../catalog/events/Bundles.js"
import { normalizeGeminiChunk } from "../../../src/threads/normalizers/Gemini.js"
import { get, getNum, getStr, isIgnored, isValid, only } from "../../support/EventHelpers.js"
import { transcript } from "../../support/Transcripts.js"

const fixture = "gemini-RECONSTRUCTED-stream-json"

/** The fixture chunk by chunk: raw line, normalized event, its unbundled events. */
const run = (name: string) => {
  const steps = transcript(name).chunks.map((chunk) => {
    const event = normalizeGeminiChunk(chunk.type, chunk.data)
    const line: unknown = JSON.parse(chunk.data)
    return { type: chunk.type, line, event, events: unbundle(event) }
  })
  const events = steps.flatMap((s) => s.events)
  const shown = events.filter((e) => !isIgnored(e))
  return { steps, raw: steps.map((s) => s.event), events, shown, kinds: shown.map((e) => e.kind) }
}
type Run = ReturnType<typeof run>

const stepsOfType = (t: Run, type: string) => t.steps.filter((s) => s.type === type)

describe("Gemini normalizer: fixture", () => {
  it.effect(`${fixture}: kind sequence, schema, no unknown, tools paired, session id, result figures`, () =>
    Effect.sync(() => {
      const t = run(fixture)
      expect(t.kinds).toEqual([
        "metadata",
        "text",
        "tool-input",
        "tool-output",
        "tool-error",
        "warning",
        "text",
        "metadata",
        "context-window"
      ])
      for (const e of t.raw) expect(isValid(e)).toBe(true)
      for (const e of t.events) expect(isValid(e)).toBe(true)
      expect(only(t.events, "unknown").filter((e) => e.reason !== "ignored")).toEqual([])

      // Tool pairing. The reconstructed transcript has a tool_result (read_file-2) with no tool_use line;
      // only results whose call has a tool_use line can be paired, and each such call gets exactly one.
      const used = new Set(stepsOfType(t, "tool_use").map((s) => getStr(s.line, "tool_id")))
      const inputs = t.events.flatMap((e, i) => (e.kind === "tool-input" ? [{ id: e.toolCallId, i }] : []))
      const results = t.events.flatMap((e, i) => (e.kind === "tool-output" || e.kind === "tool-error" ? [{ id: e.toolCallId, i }] : []))
      expect(inputs.map((inp) => inp.id)).toEqual([...used])
      for (const r of results.filter((r) => used.has(r.id))) expect(inputs.some((inp) => inp.id === r.id && inp.i < r.i)).toBe(true)
      for (const inp of inputs) expect(results.filter((r) => r.id === inp.id && r.i > inp.i)).toHaveLength(1)
      expect(results.filter((r) => !used.has(r.id)).map((r) => r.id)).toEqual(["read_file-2"])

      const sessionId = getStr(stepsOfType(t, "init")[0]?.line, "session_id")
      expect(sessionId).toBeDefined()
      expect(only(t.events, "metadata")[0]).toEqual({
        kind: "metadata",
        sessionId,
        model: getStr(stepsOfType(t, "init")[0]?.line, "model")
      })

      const result = stepsOfType(t, "result")[0]
      expect(get(result?.line, "status")).toBe("success")
      expect(result?.event.kind).toBe("metadata")
      expect(result?.events).toEqual([
        { kind: "metadata", durationMs: getNum(result?.line, "stats", "duration_ms") },
        {
          kind: "context-window",
          usedTokens: getNum(result?.line, "stats", "total_tokens"),
          inputTokens: getNum(result?.line, "stats", "input_tokens"),
          outputTokens: getNum(result?.line, "stats", "output_tokens")
        }
      ])
    }))
})

describe("Gemini normalizer: runtime rules", () => {
  it.effect("assistant message pieces are text deltas; the user's prompt gives no text", () =>
    Effect.sync(() => {
      const t = run(fixture)
      const messages = stepsOfType(t, "message")
      const assistant = messages.filter((s) => get(s.line, "role") === "assistant")
      expect(only(t.events, "text")).toEqual(assistant.map((s) => ({ kind: "text", text: getStr(s.line, "content"), delta: true })))
      const prompts = messages.filter((s) => get(s.line, "role") === "user").map((s) => getStr(s.line, "content"))
      expect(prompts).toHaveLength(1)
      expect(only(t.events, "text").some((e) => prompts.includes(e.text))).toBe(false)
      // A message without `delta` is whole.
      expect(normalizeGeminiChunk("message", `{"type":"message","role":"assistant","content":"all"}`)).toEqual({
        kind: "text",
        text: "all"
      })
    }))

  it.effect("tool_use is tool-input; tool_result success is tool-output, status error a tool-error with the error message", () =>
    Effect.sync(() => {
      const t = run(fixture)
      const use = stepsOfType(t, "tool_use")[0]
      expect(use?.events).toEqual([
        {
          kind: "tool-input",
          toolCallId: getStr(use?.line, "tool_id"),
          toolName: getStr(use?.line, "tool_name"),
          inputJson: JSON.stringify(get(use?.line, "parameters"))
        }
      ])
      const [ok, failed] = stepsOfType(t, "tool_result")
      expect(ok?.events).toEqual([{
        kind: "tool-output",
        toolCallId: getStr(ok?.line, "tool_id"),
        outputJson: JSON.stringify(get(ok?.line, "output"))
      }])
      expect(failed?.events).toEqual([{
        kind: "tool-error",
        toolCallId: getStr(failed?.line, "tool_id"),
        message: getStr(failed?.line, "error", "message")
      }])
    }))

  it.effect("an error line is a warning; a result that is not success adds a warning to the result bundle", () =>
    Effect.sync(() => {
      const t = run(fixture)
      expect(stepsOfType(t, "error").flatMap((s) => s.events)).toEqual([{
        kind: "warning",
        message: getStr(stepsOfType(t, "error")[0]?.line, "message")
      }])
      const failed = normalizeGeminiChunk(
        "result",
        JSON.stringify({
          type: "result",
          status: "error",
          error: { type: "FatalTurnLimitedError", message: "turn limit" },
          stats: { input_tokens: 5, output_tokens: 2 }
        })
      )
      expect(unbundle(failed)).toEqual([
        { kind: "metadata" },
        { kind: "context-window", usedTokens: 7, inputTokens: 5, outputTokens: 2 },
        { kind: "warning", message: "turn limit" }
      ])
      expect(unbundle(normalizeGeminiChunk("result", `{"type":"result","status":"cancelled"}`)).at(-1)).toEqual({
        kind: "warning",
        message: "Run ended with status cancelled"
      })
    }))

  it.effect("unknown types and shapes are unknown, never a throw", () =>
    Effect.sync(() => {
      expect(normalizeGeminiChunk("thought", "{}")).toMatchObject({ kind: "unknown", reason: "unrecognized-type" })
      expect(normalizeGeminiChunk("tool_use", `{"tool_id":1}`)).toMatchObject({ kind: "unknown", reason: "unexpected-shape" })
      expect(normalizeGeminiChunk("init", "[]")).toMatchObject({ kind: "unknown", reason: "unexpected-shape" })
      expect(normalizeGeminiChunk("init", "{")).toEqual({ kind: "unknown", reason: "json-parse-error", rawType: "init", rawData: "{" })
    }))
})
