import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { unbundle } from "../../../catalog/events/Bundles.js"
import { NormalizedEvent } from "../../../catalog/events/NormalizedEvent.js"
import { normalizeCodexExecChunk } from "../../../src/threads/normalizers/CodexExec.js"
import { get, getNum, getStr, isIgnored, isValid, only } from "../../support/EventHelpers.js"
import { transcript } from "../../support/Transcripts.js"

type Event = NormalizedEvent

/** The fixture chunk by chunk: raw line, normalized event, its unbundled events. */
const run = (name: string) => {
  const steps = transcript(name).chunks.map((chunk) => {
    const event = normalizeCodexExecChunk(chunk.type, chunk.data)
    const line: unknown = JSON.parse(chunk.data)
    return { type: chunk.type, line, event, events: unbundle(event) }
  })
  const events = steps.flatMap((s) => s.events)
  const shown = events.filter((e) => !isIgnored(e))
  return { steps, raw: steps.map((s) => s.event), events, shown, kinds: shown.map((e) => e.kind) }
}
type Run = ReturnType<typeof run>

/** The events of the chunks of one raw type. */
const eventsOfType = (t: Run, type: string): ReadonlyArray<Event> => t.steps.filter((s) => s.type === type).flatMap((s) => s.events)
const linesOfType = (t: Run, type: string): ReadonlyArray<unknown> => t.steps.filter((s) => s.type === type).map((s) => s.line)

const expectToolsPaired = (events: ReadonlyArray<Event>) => {
  const inputs = events.flatMap((e, i) => (e.kind === "tool-input" ? [{ id: e.toolCallId, i }] : []))
  const results = events.flatMap((e, i) => (e.kind === "tool-output" || e.kind === "tool-error" ? [{ id: e.toolCallId, i }] : []))
  for (const r of results) expect(inputs.some((inp) => inp.id === r.id && inp.i < r.i), `earlier tool-input for ${r.id}`).toBe(true)
  for (const inp of inputs) expect(results.some((r) => r.id === inp.id && r.i > inp.i), `result for ${inp.id}`).toBe(true)
  expect(new Set(results.map((r) => r.id)).size).toBe(results.length)
  for (const e of only(events, "tool-input")) expect(() => JSON.parse(e.inputJson)).not.toThrow()
  for (const e of only(events, "tool-output")) expect(() => JSON.parse(e.outputJson)).not.toThrow()
}

const seq = (kinds: string): ReadonlyArray<string> => kinds.trim().split(/\s+/)

const fixtures: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["codex-exec-raw-hello", seq("metadata warning text context-window")],
  ["codex-exec-raw-retry", seq("metadata warning text context-window")],
  ["codex-exec-raw-error", seq("metadata warning warning metadata")],
  ["codex-exec-raw-tool", seq("metadata warning reasoning tool-input tool-output text context-window")],
  ["codex-exec-raw-resume", seq("metadata warning reasoning tool-input tool-output text context-window")],
  ["codex-exec-raw-slash-compact", seq("metadata warning reasoning tool-input tool-output text context-window")],
  ["codex-exec-raw-tool-error", seq("metadata warning reasoning tool-input tool-error text context-window")]
]

describe("Codex exec normalizer: fixtures", () => {
  for (const [name, kinds] of fixtures) {
    it.effect(`${name}: kind sequence, schema, no unknown, tools paired, session id, usage figures`, () =>
      Effect.sync(() => {
        const t = run(name)
        expect(t.kinds).toEqual(kinds)
        for (const e of t.raw) expect(isValid(e)).toBe(true)
        for (const e of t.events) expect(isValid(e)).toBe(true)
        expect(only(t.events, "unknown").filter((e) => e.reason !== "ignored")).toEqual([])
        expectToolsPaired(t.events)

        const threadId = getStr(linesOfType(t, "thread.started")[0], "thread_id")
        expect(threadId).toBeDefined()
        expect(only(t.events, "metadata")[0]?.sessionId).toBe(threadId)

        // turn.completed.usage: thread-cumulative, reported as is (OpenAI counts cached input inside input_tokens).
        const usages = linesOfType(t, "turn.completed").map((line) => get(line, "usage"))
        expect(only(eventsOfType(t, "turn.completed"), "context-window")).toEqual(
          usages.map((usage) => {
            const input = getNum(usage, "input_tokens") ?? 0
            const cached = getNum(usage, "cached_input_tokens") ?? 0
            return {
              kind: "context-window",
              usedTokens: input + (getNum(usage, "output_tokens") ?? 0),
              inputTokens: input - cached,
              outputTokens: getNum(usage, "output_tokens"),
              reasoningTokens: getNum(usage, "reasoning_output_tokens"),
              cacheReadTokens: cached,
              cacheCreationTokens: getNum(usage, "cache_write_input_tokens")
            }
          })
        )
        expect(only(t.events, "context-window")).toHaveLength(usages.length)
      }))
  }

  it.effect("turn.completed usage is thread-cumulative and exec reports it unchanged", () =>
    Effect.sync(() => {
      // tool → resume → slash-compact are three runs on one thread: each usage includes the earlier runs.
      const runs = ["codex-exec-raw-tool", "codex-exec-raw-resume", "codex-exec-raw-slash-compact"].map(run)
      const threads = runs.map((t) => getStr(linesOfType(t, "thread.started")[0], "thread_id"))
      expect(new Set(threads).size).toBe(1)
      const rawInputs = runs.map((t) => getNum(linesOfType(t, "turn.completed")[0], "usage", "input_tokens") ?? 0)
      const used = runs.map((t) => only(t.events, "context-window")[0]?.usedTokens ?? 0)
      const inputs = runs.map((t) => only(t.events, "context-window")[0]?.inputTokens ?? 0)
      // Each later run reports more than the first run's whole figure: nothing is turned into a per-turn delta.
      expect(rawInputs[1]).toBeGreaterThan(1.5 * (rawInputs[0] ?? 0))
      expect(rawInputs[2]).toBeGreaterThan(rawInputs[1] ?? 0)
      expect(used[1]).toBeGreaterThan(1.5 * (used[0] ?? 0))
      expect(used[2]).toBeGreaterThan(used[1] ?? 0)
      expect(inputs[2]).toBeGreaterThan(inputs[1] ?? 0)
    }))
})

describe("Codex exec normalizer: runtime rules", () => {
  it.effect("a fatal error is a warning with the error text, and turn.failed a metadata with turnStatus failed", () =>
    Effect.sync(() => {
      const t = run("codex-exec-raw-error")
      const message = getStr(linesOfType(t, "error")[0], "message")
      expect(message).toMatch(/context window/)
      expect(eventsOfType(t, "error")).toEqual([{ kind: "warning", message }])
      const failed = only(eventsOfType(t, "turn.failed"), "metadata")
      expect(failed).toHaveLength(1)
      expect(JSON.parse(failed[0]?.otherJson ?? "{}")).toEqual({
        turnStatus: "failed",
        error: getStr(linesOfType(t, "turn.failed")[0], "error", "message")
      })
      expect(only(t.events, "context-window")).toEqual([])
    }))

  it.effect("the unknown-model error item is a warning, not a failure", () =>
    Effect.sync(() => {
      for (const name of ["codex-exec-raw-hello", "codex-exec-raw-tool", "codex-exec-raw-retry"]) {
        const t = run(name)
        const errorItems = t.steps.filter((s) => s.type === "item.completed" && get(s.line, "item", "type") === "error")
        expect(errorItems).toHaveLength(1)
        const message = getStr(errorItems[0]?.line, "item", "message")
        expect(message).toMatch(/^Model metadata for `mock-model` not found/)
        expect(errorItems[0]?.events).toEqual([{ kind: "warning", message }])
        expect(only(t.events, "metadata").filter((m) => m.otherJson?.includes("turnStatus"))).toEqual([])
        expect(only(t.events, "context-window")).toHaveLength(1)
      }
    }))

  it.effect("exec retries silently: codex-exec-raw-retry has no runtime notice", () =>
    Effect.sync(() => {
      const t = run("codex-exec-raw-retry")
      expect(only(t.events, "runtime-notice")).toEqual([])
      expect(only(t.events, "warning").map((w) => w.message)).toEqual([
        getStr(t.steps.find((s) => get(s.line, "item", "type") === "error")?.line, "item", "message")
      ])
      expect(only(t.events, "text").map((e) => e.text)).toEqual([
        getStr(t.steps.find((s) => get(s.line, "item", "type") === "agent_message")?.line, "item", "text")
      ])
    }))

  it.effect("a command with status failed / exit code 2 is a tool-error carrying its output", () =>
    Effect.sync(() => {
      const t = run("codex-exec-raw-tool-error")
      const completed = t.steps.find((s) => s.type === "item.completed" && get(s.line, "item", "type") === "command_execution")
      expect(get(completed?.line, "item", "status")).toBe("failed")
      expect(get(completed?.line, "item", "exit_code")).toBe(2)
      expect(completed?.events).toEqual([
        {
          kind: "tool-error",
          toolCallId: getStr(completed?.line, "item", "id"),
          message: getStr(completed?.line, "item", "aggregated_output")
        }
      ])
      expect(only(t.events, "tool-output")).toEqual([])
    }))

  it.effect("a successful command is tool-input on start and tool-output with output and exit code on completion", () =>
    Effect.sync(() => {
      const t = run("codex-exec-raw-tool")
      const started = t.steps.find((s) => s.type === "item.started")
      const completed = t.steps.find((s) => s.type === "item.completed" && get(s.line, "item", "type") === "command_execution")
      const id = getStr(started?.line, "item", "id")
      expect(started?.events).toEqual([
        {
          kind: "tool-input",
          toolCallId: id,
          toolName: "command_execution",
          inputJson: JSON.stringify({ command: get(started?.line, "item", "command") })
        }
      ])
      const output = only(completed?.events ?? [], "tool-output")[0]
      expect(output?.toolCallId).toBe(id)
      expect(JSON.parse(output?.outputJson ?? "null")).toEqual({
        output: get(completed?.line, "item", "aggregated_output"),
        exitCode: get(completed?.line, "item", "exit_code")
      })
    }))

  it.effect("agent messages and reasoning are whole items carrying the item id", () =>
    Effect.sync(() => {
      const t = run("codex-exec-raw-resume")
      const itemsOf = (type: string) => t.steps.filter((s) => s.type === "item.completed" && get(s.line, "item", "type") === type)
      expect(only(t.events, "text")).toEqual(
        itemsOf("agent_message").map((s) => ({ kind: "text", text: getStr(s.line, "item", "text"), itemId: getStr(s.line, "item", "id") }))
      )
      expect(only(t.events, "reasoning")).toEqual(
        itemsOf("reasoning").map((s) => ({ kind: "reasoning", text: getStr(s.line, "item", "text"), itemId: getStr(s.line, "item", "id") }))
      )
      for (const e of [...only(t.events, "text"), ...only(t.events, "reasoning")]) expect(e.delta).toBeUndefined()
    }))

  it.effect("exec does not run slash commands: /compact gives no compaction", () =>
    Effect.sync(() => {
      expect(only(run("codex-exec-raw-slash-compact").events, "context-compaction")).toEqual([])
    }))

  it.effect("turn.started and the start of text items are ignored, keeping the raw chunk", () =>
    Effect.sync(() => {
      const data = `{"type":"turn.started"}`
      expect(normalizeCodexExecChunk("turn.started", data)).toEqual({
        kind: "unknown",
        reason: "ignored",
        rawType: "turn.started",
        rawData: data
      })
      const item = `{"type":"item.started","item":{"id":"item_1","type":"agent_message","text":""}}`
      expect(normalizeCodexExecChunk("item.started", item)).toMatchObject({ kind: "unknown", reason: "ignored" })
    }))

  it.effect("documented items: mcp tool calls, failed file changes, web search and todo lists", () =>
    Effect.sync(() => {
      const chunk = (type: string, item: Record<string, unknown>) => normalizeCodexExecChunk(type, JSON.stringify({ type, item }))
      const mcp = { id: "m1", type: "mcp_tool_call", server: "docs", tool: "search", arguments: { q: "x" }, status: "in_progress" }
      expect(chunk("item.started", mcp)).toEqual({ kind: "tool-input", toolCallId: "m1", toolName: "docs.search", inputJson: `{"q":"x"}` })
      expect(chunk("item.completed", { ...mcp, status: "failed", error: { message: "boom" } })).toEqual({
        kind: "tool-error",
        toolCallId: "m1",
        message: "boom"
      })
      expect(chunk("item.completed", { ...mcp, status: "completed", result: { content: [] } })).toEqual({
        kind: "tool-output",
        toolCallId: "m1",
        outputJson: `{"content":[]}`
      })
      expect(chunk("item.completed", { id: "f1", type: "file_change", changes: [], status: "failed" })).toMatchObject({
        kind: "tool-error",
        toolCallId: "f1"
      })
      expect(chunk("item.started", { id: "w1", type: "web_search", query: "effect" })).toMatchObject({
        kind: "tool-input",
        toolName: "web_search"
      })
      const todo = chunk("item.completed", { id: "t1", type: "todo_list", items: [{ text: "a", completed: false }] })
      expect(todo.kind === "metadata" ? JSON.parse(todo.otherJson ?? "{}") : undefined).toEqual({
        todoList: [{ text: "a", completed: false }]
      })
    }))

  it.effect("unknown line and item types are unrecognized; an item without a type is an unexpected shape", () =>
    Effect.sync(() => {
      expect(normalizeCodexExecChunk("thread.mystery", "{}")).toMatchObject({ kind: "unknown", reason: "unrecognized-type" })
      expect(normalizeCodexExecChunk("item.completed", `{"item":{"id":"x","type":"hologram"}}`)).toMatchObject({
        kind: "unknown",
        reason: "unrecognized-type"
      })
      expect(normalizeCodexExecChunk("item.completed", `{"item":{"id":"x"}}`)).toMatchObject({
        kind: "unknown",
        reason: "unexpected-shape"
      })
      expect(normalizeCodexExecChunk("item.completed", `{"item":{"id":"x","type":"agent_message","text":7}}`)).toMatchObject({
        kind: "unknown",
        reason: "unexpected-shape"
      })
      expect(normalizeCodexExecChunk("thread.started", "not json")).toEqual({
        kind: "unknown",
        reason: "json-parse-error",
        rawType: "thread.started",
        rawData: "not json"
      })
    }))
})
