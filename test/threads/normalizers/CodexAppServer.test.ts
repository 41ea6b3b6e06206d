import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { unbundle } from "../../../catalog/events/Bundles.js"
import { NormalizedEvent } from "../../../catalog/events/NormalizedEvent.js"
import { normalizeCodexAppServerChunk } from "../../../src/threads/normalizers/CodexAppServer.js"
import { get, getNum, getStr, isIgnored, isValid, only } from "../../support/EventHelpers.js"
import { transcript } from "../../support/Transcripts.js"

type Event = NormalizedEvent

/** The fixture chunk by chunk (server→client messages): raw message, normalized event, its unbundled events. */
const run = (name: string) => {
  const steps = transcript(name).chunks.map((chunk) => {
    const event = normalizeCodexAppServerChunk(chunk.type, chunk.data)
    const message: unknown = JSON.parse(chunk.data)
    return { type: chunk.type, message, event, events: unbundle(event) }
  })
  const events = steps.flatMap((s) => s.events)
  const shown = events.filter((e) => !isIgnored(e))
  return { steps, raw: steps.map((s) => s.event), events, shown, kinds: shown.map((e) => e.kind) }
}
type Run = ReturnType<typeof run>
type Step = Run["steps"][number]

const stepsOfType = (t: Run, type: string): ReadonlyArray<Step> => t.steps.filter((s) => s.type === type)
const eventsOfType = (t: Run, type: string): ReadonlyArray<Event> => stepsOfType(t, type).flatMap((s) => s.events)
const itemSteps = (t: Run, type: string, itemType: string): ReadonlyArray<Step> =>
  stepsOfType(t, type).filter((s) => get(s.message, "params", "item", "type") === itemType)

const expectToolsPaired = (events: ReadonlyArray<Event>) => {
  const inputs = events.flatMap((e, i) => (e.kind === "tool-input" ? [{ id: e.toolCallId, i }] : []))
  const results = events.flatMap((e, i) => (e.kind === "tool-output" || e.kind === "tool-error" ? [{ id: e.toolCallId, i }] : []))
  for (const r of results) expect(inputs.some((inp) => inp.id === r.id && inp.i < r.i), `earlier tool-input for ${r.id}`).toBe(true)
  for (const inp of inputs) expect(results.some((r) => r.id === inp.id && r.i > inp.i), `result for ${inp.id}`).toBe(true)
  expect(new Set(results.map((r) => r.id)).size).toBe(results.length)
  for (const e of only(events, "tool-input")) expect(() => JSON.parse(e.inputJson)).not.toThrow()
  for (const e of only(events, "tool-output")) expect(() => JSON.parse(e.outputJson)).not.toThrow()
}

/** thread/start|resume response `result.thread.id`, or thread/started `params.thread.id`. */
const threadIdOf = (t: Run): string | undefined =>
  t.steps.map((s) => getStr(s.message, "result", "thread", "id") ?? getStr(s.message, "params", "thread", "id")).find((id) =>
    id !== undefined
  )

const turnStatuses = (t: Run): ReadonlyArray<unknown> =>
  only(eventsOfType(t, "turn/completed"), "metadata").map((
    m
  ) => (m.otherJson === undefined ? undefined : get(JSON.parse(m.otherJson), "turnStatus")))

const seq = (kinds: string): ReadonlyArray<string> => kinds.trim().split(/\s+/)

const fixtures: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  [
    "codex-appserver-raw-approval",
    seq(`warning metadata metadata warning reasoning reasoning runtime-notice tool-input runtime-notice tool-output context-window
         text text context-window metadata runtime-notice context-window context-window context-window context-compaction metadata`)
  ],
  ["codex-appserver-raw-error", seq("warning metadata metadata warning context-window runtime-notice warning metadata")],
  [
    "codex-appserver-raw-plan-askuser",
    seq("warning metadata metadata warning runtime-notice runtime-notice context-window text text context-window metadata")
  ],
  [
    "codex-appserver-raw-resume-askuser",
    seq("warning warning metadata context-window warning context-window text text context-window metadata")
  ],
  ["codex-appserver-raw-retry", seq("warning metadata metadata warning runtime-notice text text context-window metadata")]
]

describe("Codex app-server normalizer: fixtures", () => {
  for (const [name, kinds] of fixtures) {
    it.effect(`${name}: kind sequence, schema, no unknown, tools paired, session id, token usage from last`, () =>
      Effect.sync(() => {
        const t = run(name)
        expect(t.kinds).toEqual(kinds)
        for (const e of t.raw) expect(isValid(e)).toBe(true)
        for (const e of t.events) expect(isValid(e)).toBe(true)
        expect(only(t.events, "unknown").filter((e) => e.reason !== "ignored")).toEqual([])
        expectToolsPaired(t.events)

        const threadId = threadIdOf(t)
        expect(threadId).toBeDefined()
        const metadata = only(t.events, "metadata")
        expect(metadata[0]?.sessionId).toBe(threadId)
        for (const m of metadata) if (m.sessionId !== undefined) expect(m.sessionId).toBe(threadId)

        // thread/tokenUsage/updated: `last` is the live context size, `total` is cumulative; the limit is modelContextWindow.
        const usages = stepsOfType(t, "thread/tokenUsage/updated").map((s) => get(s.message, "params", "tokenUsage"))
        expect(usages.length).toBeGreaterThan(0)
        expect(only(eventsOfType(t, "thread/tokenUsage/updated"), "context-window")).toEqual(
          usages.map((usage) => {
            const last = get(usage, "last")
            const input = getNum(last, "inputTokens") ?? 0
            const cached = getNum(last, "cachedInputTokens") ?? 0
            return {
              kind: "context-window",
              usedTokens: getNum(last, "totalTokens"),
              limitTokens: getNum(usage, "modelContextWindow"),
              inputTokens: input - cached,
              outputTokens: getNum(last, "outputTokens"),
              reasoningTokens: getNum(last, "reasoningOutputTokens"),
              cacheReadTokens: cached,
              cacheCreationTokens: getNum(last, "cacheWriteInputTokens")
            }
          })
        )
        expect(only(t.events, "context-window")).toHaveLength(usages.length)

        // Every turn/completed gives a metadata with the turn's duration.
        expect(only(eventsOfType(t, "turn/completed"), "metadata").map((m) => m.durationMs)).toEqual(
          stepsOfType(t, "turn/completed").map((s) => getNum(s.message, "params", "turn", "durationMs"))
        )
      }))
  }

  it.effect("the meter follows tokenUsage.last, not the cumulative total", () =>
    Effect.sync(() => {
      const t = run("codex-appserver-raw-approval")
      const updates = stepsOfType(t, "thread/tokenUsage/updated")
      const diverging = updates.filter(
        (s) =>
          getNum(s.message, "params", "tokenUsage", "total", "totalTokens") !==
            getNum(s.message, "params", "tokenUsage", "last", "totalTokens")
      )
      expect(diverging.length).toBeGreaterThan(0)
      for (const s of diverging) {
        const window = only(s.events, "context-window")[0]
        expect(window?.usedTokens).toBe(getNum(s.message, "params", "tokenUsage", "last", "totalTokens"))
        expect(window?.usedTokens).not.toBe(getNum(s.message, "params", "tokenUsage", "total", "totalTokens"))
      }
    }))
})

describe("Codex app-server normalizer: runtime rules", () => {
  it.effect("a fatal error (willRetry false) is a warning and turn/completed a metadata with turnStatus failed", () =>
    Effect.sync(() => {
      const t = run("codex-appserver-raw-error")
      const errors = stepsOfType(t, "error")
      expect(errors.map((s) => get(s.message, "params", "willRetry"))).toEqual([false])
      const message = getStr(errors[0]?.message, "params", "error", "message")
      expect(message).toMatch(/context window/)
      expect(errors[0]?.events).toEqual([{ kind: "warning", message }])
      const completed = stepsOfType(t, "turn/completed")
      expect(get(completed[0]?.message, "params", "turn", "status")).toBe("failed")
      expect(completed[0]?.events).toEqual([
        {
          kind: "metadata",
          durationMs: getNum(completed[0]?.message, "params", "turn", "durationMs"),
          otherJson: JSON.stringify({ turnStatus: "failed", error: getStr(completed[0]?.message, "params", "turn", "error", "message") })
        }
      ])
      // The status change to systemError is a notice; the error itself is the run's one warning about it.
      expect(only(t.events, "runtime-notice")).toEqual([{ kind: "runtime-notice", message: "Codex reported a system error" }])
      expect(only(t.events, "warning").filter((w) => w.message === message)).toHaveLength(1)
    }))

  it.effect("the unknown-model warning notification is a warning, not a failure", () =>
    Effect.sync(() => {
      for (
        const name of [
          "codex-appserver-raw-approval",
          "codex-appserver-raw-retry",
          "codex-appserver-raw-plan-askuser",
          "codex-appserver-raw-resume-askuser"
        ]
      ) {
        const t = run(name)
        const warnings = stepsOfType(t, "warning")
        expect(warnings).toHaveLength(1)
        const message = getStr(warnings[0]?.message, "params", "message")
        expect(message).toMatch(/^Model metadata for `mock-model` not found/)
        expect(warnings[0]?.events).toEqual([{ kind: "warning", message }])
        expect(turnStatuses(t).every((s) => s === undefined)).toBe(true)
      }
    }))

  it.effect("an error with willRetry true is a runtime-notice with attempt 1 and status 503", () =>
    Effect.sync(() => {
      const t = run("codex-appserver-raw-retry")
      const errors = stepsOfType(t, "error")
      expect(errors.map((s) => get(s.message, "params", "willRetry"))).toEqual([true])
      expect(only(t.events, "runtime-notice")).toEqual([
        { kind: "runtime-notice", message: getStr(errors[0]?.message, "params", "error", "message"), attempt: 1, status: 503 }
      ])
      expect(get(errors[0]?.message, "params", "error", "codexErrorInfo", "responseStreamDisconnected", "httpStatusCode")).toBe(503)
      expect(only(t.events, "warning").some((w) => w.message.startsWith("Reconnecting"))).toBe(false)
      expect(turnStatuses(t)).toEqual([undefined])
    }))

  it.effect("agent message and reasoning summary deltas carry the completed item's id and add up to its text", () =>
    Effect.sync(() => {
      const deltaMethods = { "item/agentMessage/delta": "text", "item/reasoning/summaryTextDelta": "reasoning" } as const
      let checked = 0
      for (const [name] of fixtures) {
        const t = run(name)
        for (const [method, kind] of Object.entries(deltaMethods)) {
          const deltaSteps = stepsOfType(t, method)
          for (const s of deltaSteps) {
            expect(s.events).toEqual([{
              kind,
              text: getStr(s.message, "params", "delta"),
              itemId: getStr(s.message, "params", "itemId"),
              delta: true
            }])
          }
          const itemIds = new Set(deltaSteps.map((s) => getStr(s.message, "params", "itemId")))
          for (const itemId of itemIds) {
            const completed = stepsOfType(t, "item/completed").filter((s) => get(s.message, "params", "item", "id") === itemId)
            expect(completed).toHaveLength(1)
            const rawItem = get(completed[0]?.message, "params", "item")
            const rawText = kind === "text" ? getStr(rawItem, "text") : [get(rawItem, "summary")].flat().join("\n\n")
            const joined = deltaSteps
              .filter((s) => getStr(s.message, "params", "itemId") === itemId)
              .map((s) => getStr(s.message, "params", "delta"))
              .join("")
            expect(joined).toBe(rawText)
            expect(completed[0]?.events).toEqual([{ kind, text: joined, itemId }])
            checked++
          }
        }
      }
      expect(checked).toBeGreaterThanOrEqual(5)
    }))

  it.effect("a command approval request is a notice naming the command; the approved command runs as a tool call", () =>
    Effect.sync(() => {
      const t = run("codex-appserver-raw-approval")
      const request = stepsOfType(t, "item/commandExecution/requestApproval")
      expect(request).toHaveLength(1)
      const command = getStr(request[0]?.message, "params", "command")
      expect(request[0]?.events).toEqual([{ kind: "runtime-notice", message: `Approval requested: ${command}` }])
      const input = only(t.events, "tool-input")
      expect(input.map((i) => i.toolCallId)).toEqual([getStr(request[0]?.message, "params", "itemId")])
      expect(JSON.parse(input[0]?.inputJson ?? "{}")).toMatchObject({ command })
      const completed = itemSteps(t, "item/completed", "commandExecution")[0]
      const output = only(completed?.events ?? [], "tool-output")[0]
      expect(JSON.parse(output?.outputJson ?? "{}")).toEqual({
        // `touch` prints nothing: aggregatedOutput is null, the output an empty string.
        output: getStr(completed?.message, "params", "item", "aggregatedOutput") ?? "",
        exitCode: get(completed?.message, "params", "item", "exitCode"),
        durationMs: get(completed?.message, "params", "item", "durationMs")
      })
    }))

  it.effect("thread/compact/start gives one context-compaction, from the contextCompaction item", () =>
    Effect.sync(() => {
      const t = run("codex-appserver-raw-approval")
      expect(only(t.events, "context-compaction")).toHaveLength(1)
      expect(itemSteps(t, "item/completed", "contextCompaction").flatMap((s) => s.events)).toEqual([{ kind: "context-compaction" }])
      expect(itemSteps(t, "item/started", "contextCompaction").flatMap((s) => s.events)).toEqual([
        { kind: "runtime-notice", message: "Compacting context" }
      ])
      // thread/compacted, if sent, is not a second compaction.
      expect(eventsOfType(t, "thread/compacted").every(isIgnored)).toBe(true)
    }))

  it.effect("a requestUserInput question is a notice with the question text", () =>
    Effect.sync(() => {
      const t = run("codex-appserver-raw-plan-askuser")
      const request = stepsOfType(t, "item/tool/requestUserInput")
      expect(get(request[0]?.message, "params", "questions", 0, "question")).toBe("Which color do you prefer?")
      expect(request.flatMap((s) => s.events)).toEqual([{ kind: "runtime-notice", message: "Question: Which color do you prefer?" }])
      expect(only(t.events, "runtime-notice").map((n) => n.message)).toContain("Question: Which color do you prefer?")
    }))

  it.effect("resume: thread/resume response gives the resumed thread id", () =>
    Effect.sync(() => {
      const t = run("codex-appserver-raw-resume-askuser")
      const resumed = stepsOfType(t, "thread/resume")
      expect(resumed).toHaveLength(1)
      expect(resumed[0]?.events).toEqual([
        {
          kind: "metadata",
          sessionId: getStr(resumed[0]?.message, "result", "thread", "id"),
          model: getStr(resumed[0]?.message, "result", "model")
        }
      ])
      // Same thread as the approval capture, which it resumes.
      expect(threadIdOf(t)).toBe(threadIdOf(run("codex-appserver-raw-approval")))
    }))

  it.effect("synthetic messages: failed responses, declined commands, status flags, unknown methods", () =>
    Effect.sync(() => {
      const chunk = (type: string, message: Record<string, unknown>) => normalizeCodexAppServerChunk(type, JSON.stringify(message))
      expect(chunk("turn/start", { id: 3, error: { code: -32600, message: "bad turn" } })).toEqual({
        kind: "warning",
        message: "turn/start failed: bad turn"
      })
      expect(chunk("initialize", { id: 1, result: {} })).toMatchObject({ kind: "unknown", reason: "ignored" })
      const declined = {
        method: "item/completed",
        params: { item: { id: "c1", type: "commandExecution", status: "declined", aggregatedOutput: null } }
      }
      expect(chunk("item/completed", declined)).toEqual({ kind: "tool-error", toolCallId: "c1", message: "Command declined", denied: true })
      const nonZero = {
        method: "item/completed",
        params: { item: { id: "c2", type: "commandExecution", status: "completed", exitCode: 1, aggregatedOutput: "" } }
      }
      expect(chunk("item/completed", nonZero)).toEqual({
        kind: "tool-error",
        toolCallId: "c2",
        message: "Command completed with exit code 1"
      })
      expect(chunk("item/fileChange/requestApproval", { id: 9, method: "item/fileChange/requestApproval", params: {} })).toEqual({
        kind: "runtime-notice",
        message: "Approval requested: file change"
      })
      expect(chunk("thread/status/changed", { method: "thread/status/changed", params: { status: { type: "idle" } } })).toMatchObject({
        reason: "ignored"
      })
      expect(chunk("some/newNotification", { method: "some/newNotification", params: {} })).toMatchObject({ reason: "unrecognized-type" })
      expect(chunk("some/newRequest", { id: 4, method: "some/newRequest", params: {} })).toMatchObject({ reason: "unrecognized-type" })
      expect(chunk("item/started", { method: "item/started", params: { item: { id: "x" } } })).toMatchObject({ reason: "unexpected-shape" })
      expect(chunk("item/agentMessage/delta", { method: "item/agentMessage/delta", params: { itemId: "m", delta: 5 } })).toMatchObject({
        reason: "unexpected-shape"
      })
    }))
})
