import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck, Schema } from "effect"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { unbundle } from "../../../catalog/events/Bundles.js"
import { NormalizedEvent } from "../../../catalog/events/NormalizedEvent.js"
import { normalizeClaudeChunk } from "../../../src/threads/normalizers/ClaudeCode.js"

const fixtureDir = fileURLToPath(new URL("../../fixtures/claude/", import.meta.url))

const lines = (name: string): ReadonlyArray<string> =>
  readFileSync(`${fixtureDir}claude-raw-${name}.jsonl`, "utf8").split("\n").filter((l) => l.trim() !== "")

const lineType = (line: string): string => {
  try {
    const parsed: unknown = JSON.parse(line)
    const type = typeof parsed === "object" && parsed !== null ? (parsed as { type?: unknown }).type : undefined
    return typeof type === "string" ? type : "unknown"
  } catch {
    return "unknown"
  }
}

/** The whole transcript, one normalized event per line, bundles expanded. */
const transcript = (name: string) => {
  const raw = lines(name).map((line) => normalizeClaudeChunk(lineType(line), line))
  const events = raw.flatMap(unbundle)
  const shown = events.filter((e) => !(e.kind === "unknown" && e.reason === "ignored"))
  return { raw, events, shown, kinds: shown.map((e) => e.kind) }
}

type Event = NormalizedEvent
const only = <K extends Event["kind"]>(events: ReadonlyArray<Event>, kind: K) =>
  events.filter((e): e is Extract<Event, { kind: K }> => e.kind === kind)

const expectToolsPaired = (events: ReadonlyArray<Event>) => {
  const inputs = only(events, "tool-input")
  // The result's denial marks name calls already answered: they pair nothing.
  const results = events.filter(
    (e): e is Extract<Event, { kind: "tool-output" | "tool-error" }> =>
      e.kind === "tool-output" || (e.kind === "tool-error" && !(e.denied === true && e.message === "Denied"))
  )
  expect(results.map((r) => r.toolCallId).sort()).toEqual(inputs.map((i) => i.toolCallId).sort())
  for (const input of inputs) {
    expect(events.indexOf(input)).toBeLessThan(
      events.findIndex((e) => "toolCallId" in e && e !== input && e.toolCallId === input.toolCallId)
    )
    expect(() => JSON.parse(input.inputJson)).not.toThrow()
  }
}

const sessionOf = (name: string): string => {
  const first = lines(name).map((l) => JSON.parse(l) as { session_id?: string }).find((l) => l.session_id)
  return first?.session_id ?? ""
}

const isValid = Schema.is(NormalizedEvent)

const fixtures: ReadonlyArray<readonly [string, ReadonlyArray<Event["kind"]>]> = [
  ["hello", ["metadata", "text", "metadata", "context-window"]],
  ["api-error", ["metadata", "text", "metadata", "context-window", "warning"]],
  ["api-retry", ["metadata", "runtime-notice", "runtime-notice", "text", "metadata", "context-window"]],
  ["compact", ["runtime-notice", "runtime-notice", "metadata", "context-compaction", "runtime-notice", "metadata", "context-window"]],
  ["resume", ["metadata", "reasoning", "text", "tool-input", "tool-output", "text", "metadata", "context-window"]],
  ["tool-allowed", ["metadata", "reasoning", "text", "tool-input", "tool-output", "text", "metadata", "context-window"]],
  // A run's closing result names the calls refused their permission: each is a denied tool-error.
  ["tool-denied", ["metadata", "reasoning", "text", "tool-input", "tool-error", "text", "metadata", "context-window", "tool-error"]],
  ["stdio-askuser", ["runtime-notice", "metadata", "tool-input", "runtime-notice", "tool-output", "text", "metadata", "context-window"]],
  ["stdio-deny", [
    "runtime-notice",
    "metadata",
    "reasoning",
    "text",
    "tool-input",
    "runtime-notice",
    "tool-error",
    "text",
    "metadata",
    "context-window",
    "tool-error"
  ]],
  ["stdio-permission", [
    "runtime-notice",
    "metadata",
    "reasoning",
    "text",
    "tool-input",
    "runtime-notice",
    "tool-output",
    "text",
    "metadata",
    "context-window"
  ]],
  ["stdio-plan", [
    "runtime-notice",
    "metadata",
    "tool-input",
    "runtime-notice",
    "metadata",
    "tool-output",
    "text",
    "metadata",
    "context-window"
  ]],
  [
    "tool-error-partial",
    [
      "metadata",
      "context-window",
      "reasoning",
      "reasoning",
      "text",
      "text",
      "text",
      "tool-input",
      "tool-error",
      "context-window",
      "text",
      "text",
      "text",
      "metadata",
      "context-window"
    ]
  ]
]

describe("Claude Code normalizer: fixtures", () => {
  for (const [name, kinds] of fixtures) {
    it.effect(`${name}: event sequence, tool pairing, session, result figures`, () =>
      Effect.sync(() => {
        const t = transcript(name)
        expect(t.kinds).toEqual(kinds)
        for (const e of t.events) expect(isValid(e)).toBe(true)
        for (const e of t.raw) expect(isValid(e)).toBe(true)
        expect(only(t.events, "unknown").every((e) => e.reason === "ignored")).toBe(true)
        expectToolsPaired(t.events)

        const session = sessionOf(name)
        const metadata = only(t.events, "metadata")
        expect(metadata[0]?.sessionId).toBe(session)
        const resultLine = JSON.parse(lines(name).at(-1) ?? "{}") as {
          total_cost_usd: number
          duration_ms: number
          num_turns: number
          usage: { input_tokens: number; output_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number }
        }
        // The result line is a bundle: metadata + context-window (+ warning on error).
        const last = t.raw.at(-1)
        expect(last?.kind).toBe("metadata")
        const bundled = last === undefined ? [] : unbundle(last)
        expect(bundled[0]).toEqual({
          kind: "metadata",
          sessionId: session,
          costUsd: resultLine.total_cost_usd,
          durationMs: resultLine.duration_ms,
          numTurns: resultLine.num_turns
        })
        const window = only(bundled, "context-window")[0]
        expect(window?.inputTokens).toBe(resultLine.usage.input_tokens)
        expect(window?.outputTokens).toBe(resultLine.usage.output_tokens)
        expect(window?.cacheReadTokens).toBe(resultLine.usage.cache_read_input_tokens)
        expect(window?.cacheCreationTokens).toBe(resultLine.usage.cache_creation_input_tokens)
        expect(window?.usedTokens).toBe(
          resultLine.usage.input_tokens +
            resultLine.usage.output_tokens +
            resultLine.usage.cache_read_input_tokens +
            resultLine.usage.cache_creation_input_tokens
        )
      }))
  }

  it.effect("init gives session id and model; result window limit comes from modelUsage", () =>
    Effect.sync(() => {
      const t = transcript("hello")
      expect(t.events[0]).toEqual({ kind: "metadata", sessionId: sessionOf("hello"), model: "claude-sonnet-4-5" })
      expect(only(t.events, "context-window")[0]?.limitTokens).toBe(200000)
    }))

  it.effect("api-error: is_error under subtype success yields a warning carrying the result text", () =>
    Effect.sync(() => {
      const warnings = only(transcript("api-error").events, "warning")
      expect(warnings).toHaveLength(1)
      expect(warnings[0]?.message).toMatch(/^API error 400: Prompt is too long/)
    }))

  it.effect("api-retry: each retry is a runtime notice with attempt, delay and status", () =>
    Effect.sync(() => {
      const notices = only(transcript("api-retry").events, "runtime-notice")
      expect(notices.map((n) => [n.attempt, n.status])).toEqual([[1, 529], [2, 529]])
      for (const n of notices) expect(n.delayMs).toBeGreaterThan(0)
    }))

  it.effect("tool errors carry the tool's message; outputs are JSON of the content", () =>
    Effect.sync(() => {
      expect(only(transcript("tool-error-partial").events, "tool-error")[0]).toEqual({
        kind: "tool-error",
        toolCallId: "toolu_mock_3",
        message: "Exit code 2\nls: cannot access '/nonexistent-dir': No such file or directory"
      })
      expect(only(transcript("stdio-deny").events, "tool-error")[0]?.message).toBe("User denied via bridge")
      const output = only(transcript("tool-allowed").events, "tool-output")[0]
      expect(JSON.parse(output?.outputJson ?? "")).toBe("hi")
      const input = only(transcript("tool-allowed").events, "tool-input")[0]
      expect(input?.toolName).toBe("Bash")
    }))

  it.effect("compaction: compact_boundary gives trigger and pre-compaction tokens", () =>
    Effect.sync(() => {
      expect(only(transcript("compact").events, "context-compaction")).toEqual([
        { kind: "context-compaction", trigger: "manual", preTokens: 147 }
      ])
    }))

  it.effect("partial messages: deltas use the content-block index as a stable itemId and add up to the full text", () =>
    Effect.sync(() => {
      const t = transcript("tool-error-partial")
      const deltas = only(t.events, "text").filter((e) => e.itemId?.startsWith("block:"))
      expect(deltas.map((d) => d.itemId)).toEqual(["block:1", "block:1", "block:0", "block:0"])
      const full = only(t.events, "text").filter((e) => !e.itemId?.startsWith("block:"))
      expect(deltas.slice(0, 2).map((d) => d.text).join("")).toBe(full[0]?.text)
      expect(deltas.slice(2).map((d) => d.text).join("")).toBe(full[1]?.text)
      expect(only(t.events, "reasoning")[0]?.itemId).toBe("block:0")
    }))
})

describe("Claude Code normalizer: rules", () => {
  it.effect("a permission request's notice carries the full command, question, plan or tool input", () =>
    Effect.sync(() => {
      const notice = (name: string) =>
        only(transcript(name).events, "runtime-notice").find((e) => /^(Permission requested|Question)/.test(e.message))?.message
      expect(notice("stdio-permission")).toBe("Permission requested: Bash: touch made-by-claude2.txt")
      expect(notice("stdio-askuser")).toBe("Question: Which color do you prefer?")
      expect(notice("stdio-plan")).toBe("Permission requested: ExitPlanMode: 1. Run echo hi\n2. Report")
      const edit = {
        type: "control_request",
        request_id: "r",
        request: { subtype: "can_use_tool", tool_name: "Edit", input: { file_path: "a.ts", old_string: "x", new_string: "y" } }
      }
      expect(normalizeClaudeChunk("control_request", JSON.stringify(edit))).toEqual({
        kind: "runtime-notice",
        message: `Permission requested: Edit: ${JSON.stringify(edit.request.input)}`
      })
    }))

  it.effect("a retry's delay is never negative: -5e-324 (which rounds to -0, written 0 by JSON) and -20 ms are 0", () =>
    Effect.sync(() => {
      for (const delay of [-5e-324, -20]) {
        const event = normalizeClaudeChunk(
          "system",
          JSON.stringify({ type: "system", subtype: "api_retry", attempt: 1, retry_delay_ms: delay, error: "overloaded" })
        )
        expect(event).toMatchObject({ kind: "runtime-notice", delayMs: 0 })
        expect(Object.is(event.kind === "runtime-notice" ? event.delayMs : undefined, 0)).toBe(true)
      }
    }))

  it.effect("malformed JSON is unknown/json-parse-error keeping the raw type and data", () =>
    Effect.sync(() => {
      expect(normalizeClaudeChunk("assistant", "{not json")).toEqual({
        kind: "unknown",
        reason: "json-parse-error",
        rawType: "assistant",
        rawData: "{not json"
      })
    }))

  it.effect("unexpected shapes and types are unknown, never a throw", () =>
    Effect.sync(() => {
      expect(normalizeClaudeChunk("assistant", `{"type":"assistant","message":{"content":"x"}}`)).toMatchObject({
        kind: "unknown",
        reason: "unexpected-shape"
      })
      expect(normalizeClaudeChunk("user", "[1,2]")).toMatchObject({ kind: "unknown", reason: "unexpected-shape" })
      expect(normalizeClaudeChunk("mystery", "{}")).toMatchObject({ kind: "unknown", reason: "unrecognized-type" })
    }))

  it.effect("one event is returned directly; an assistant chunk with only thinking is reasoning", () =>
    Effect.sync(() => {
      const data = JSON.stringify({
        type: "assistant",
        uuid: "u1",
        message: { id: "m1", content: [{ type: "thinking", thinking: "hmm", signature: "s" }] }
      })
      expect(normalizeClaudeChunk("assistant", data)).toEqual({ kind: "reasoning", text: "hmm", itemId: "u1" })
    }))

  it.effect("several blocks in one chunk become a bundle that unbundles in order", () =>
    Effect.sync(() => {
      const data = JSON.stringify({
        type: "assistant",
        message: {
          id: "m1",
          content: [
            { type: "text", text: "a" },
            { type: "tool_use", id: "t1", name: "Bash", input: { command: "ls" } }
          ]
        }
      })
      const event = normalizeClaudeChunk("assistant", data)
      expect(event.kind).toBe("metadata")
      expect(unbundle(event)).toEqual([
        { kind: "text", text: "a", itemId: "m1:0" },
        { kind: "tool-input", toolCallId: "t1", toolName: "Bash", inputJson: `{"command":"ls"}` }
      ])
    }))

  it.effect("normalizing the same chunk twice gives equal results", () =>
    Effect.sync(() => {
      for (const [name] of fixtures) {
        for (const line of lines(name)) {
          expect(normalizeClaudeChunk(lineType(line), line)).toEqual(normalizeClaudeChunk(lineType(line), line))
        }
      }
    }))

  it.effect("arbitrary strings and JSON never throw and always decode", () =>
    Effect.sync(() => {
      const types = FastCheck.constantFrom(
        "assistant",
        "user",
        "system",
        "result",
        "stream_event",
        "control_request",
        "control_response",
        "x"
      )
      const data = FastCheck.oneof(
        FastCheck.string(),
        FastCheck.json(),
        FastCheck.record({
          type: FastCheck.string(),
          subtype: FastCheck.constantFrom("init", "api_retry", "status", "compact_boundary", "success"),
          message: FastCheck.record({ content: FastCheck.oneof(FastCheck.string(), FastCheck.array(FastCheck.jsonValue())) }),
          event: FastCheck.jsonValue(),
          usage: FastCheck.jsonValue(),
          is_error: FastCheck.boolean()
        }).map((o) => JSON.stringify(o))
      )
      FastCheck.assert(
        FastCheck.property(types, data, (type, raw) => {
          const event = normalizeClaudeChunk(type, raw)
          return isValid(event) && unbundle(event).every(isValid)
        }),
        { numRuns: 200 }
      )
    }))
})
