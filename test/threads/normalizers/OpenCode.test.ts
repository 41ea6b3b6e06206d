import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { unbundle } from "../../../catalog/events/Bundles.js"
import type { ChunkNormalizer } from "../../../src/threads/normalizers/LineNormalizer.js"
import { NormalizedEvent } from "../../../catalog/events/NormalizedEvent.js"
import { normalizeOpenCodeRunChunk, normalizeOpenCodeServerChunk } from "../../../src/threads/normalizers/OpenCode.js"
import { get, getNum, getStr, isIgnored, isValid, only } from "../../support/EventHelpers.js"
import { transcript } from "../../support/Transcripts.js"

type Event = NormalizedEvent

/** The fixture chunk by chunk: raw line, its message part (server `properties.part`, run `part`), normalized events. */
const run = (name: string) => {
  const { source, chunks } = transcript(name)
  const server = source.transport !== "run"
  const normalize: ChunkNormalizer = server ? normalizeOpenCodeServerChunk : normalizeOpenCodeRunChunk
  const steps = chunks.map((chunk, index) => {
    const event = normalize(chunk.type, chunk.data)
    const line: unknown = JSON.parse(chunk.data)
    const part = server ? get(line, "properties", "part") : get(line, "part")
    return { index, type: chunk.type, line, part, event, events: unbundle(event) }
  })
  const events = steps.flatMap((s) => s.events)
  const shown = events.filter((e) => !isIgnored(e))
  return { server, steps, raw: steps.map((s) => s.event), events, shown, kinds: shown.map((e) => e.kind) }
}
type Run = ReturnType<typeof run>
type Step = Run["steps"][number]

const stepsOfType = (t: Run, type: string): ReadonlyArray<Step> => t.steps.filter((s) => s.type === type)
const partSteps = (t: Run, partType: string): ReadonlyArray<Step> => t.steps.filter((s) => get(s.part, "type") === partType)

/**
 * Every result follows a tool-input with its id, every tool-input gets a result, one result per call.
 * The server re-sends a running tool part (e.g. around a permission), so a call may have several tool-inputs.
 */
const expectToolsPaired = (events: ReadonlyArray<Event>) => {
  const inputs = events.flatMap((e, i) => (e.kind === "tool-input" ? [{ id: e.toolCallId, i }] : []))
  const results = events.flatMap((e, i) => (e.kind === "tool-output" || e.kind === "tool-error" ? [{ id: e.toolCallId, i }] : []))
  for (const r of results) expect(inputs.some((inp) => inp.id === r.id && inp.i < r.i), `earlier tool-input for ${r.id}`).toBe(true)
  for (const inp of inputs) expect(results.some((r) => r.id === inp.id && r.i > inp.i), `result for ${inp.id}`).toBe(true)
  expect(new Set(results.map((r) => r.id)).size).toBe(results.length)
  for (const e of only(events, "tool-input")) expect(() => JSON.parse(e.inputJson)).not.toThrow()
  for (const e of only(events, "tool-output")) expect(() => JSON.parse(e.outputJson)).not.toThrow()
}

/** Every session id the raw lines carry (`sessionID` on run lines, `properties.sessionID` / `info.id` on server events). */
const rawSessionIds = (t: Run): ReadonlyArray<string> => {
  const ids = t.steps.flatMap((s) =>
    [
      getStr(s.line, "sessionID"),
      getStr(s.line, "properties", "sessionID"),
      s.type.startsWith("session.") ? getStr(s.line, "properties", "info", "id") : undefined
    ].filter(
      (id): id is string => id !== undefined
    )
  )
  return [...new Set(ids)]
}

const seq = (kinds: string): ReadonlyArray<string> => kinds.trim().split(/\s+/)

// Server: a text/reasoning part is announced empty, then streamed by deltas, then sent whole.
const fixtures: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["opencode-run-raw-hello", seq("metadata text context-window")],
  ["opencode-run-raw-tool-ask", seq("metadata text tool-input tool-error context-window")],
  ["opencode-run-raw-tool-error-auto", seq("metadata text tool-input tool-output context-window metadata text context-window")],
  [
    "opencode-serve-raw-command",
    seq(`metadata metadata metadata reasoning text reasoning text text tool-input text runtime-notice tool-input tool-input tool-output
         context-window metadata metadata text text text context-window metadata runtime-notice metadata`)
  ],
  [
    "opencode-serve-raw-compact",
    seq(`metadata metadata reasoning text reasoning text text tool-input text runtime-notice tool-input tool-output context-window metadata
         metadata text text text context-window metadata metadata context-compaction text text text context-window metadata metadata`)
  ],
  [
    "opencode-serve-raw-deny-resume",
    seq(`metadata metadata reasoning text reasoning text text tool-input text runtime-notice tool-error context-window metadata metadata
         text text text context-window metadata metadata`)
  ],
  ["opencode-serve-raw-error", seq("metadata metadata metadata warning")],
  [
    "opencode-serve-raw-permission",
    seq(`metadata metadata metadata reasoning text reasoning text text tool-input text runtime-notice tool-input tool-output context-window
         metadata metadata text text text context-window metadata metadata`)
  ],
  [
    "opencode-serve-raw-question",
    seq(
      "metadata metadata metadata runtime-notice tool-input tool-output context-window metadata metadata text text text context-window metadata metadata"
    )
  ],
  [
    "opencode-serve-raw-retry",
    seq("metadata metadata metadata runtime-notice runtime-notice text text text context-window metadata metadata")
  ]
]
const serverFixtures = fixtures.map(([name]) => name).filter((name) => name.startsWith("opencode-serve-"))

describe("OpenCode normalizer: fixtures", () => {
  for (const [name, kinds] of fixtures) {
    it.effect(`${name}: kind sequence, schema, no unknown, tools paired, session id, step-finish tokens`, () =>
      Effect.sync(() => {
        const t = run(name)
        expect(t.kinds).toEqual(kinds)
        for (const e of t.raw) expect(isValid(e)).toBe(true)
        for (const e of t.events) expect(isValid(e)).toBe(true)
        expect(only(t.events, "unknown").filter((e) => e.reason !== "ignored")).toEqual([])
        expectToolsPaired(t.events)

        const sessions = rawSessionIds(t)
        expect(sessions).toHaveLength(1)
        const metadata = only(t.events, "metadata")
        expect(metadata[0]?.sessionId).toBe(sessions[0])
        for (const m of metadata) if (m.sessionId !== undefined) expect(m.sessionId).toBe(sessions[0])

        // Step tokens are per model call: the live context size, total as reported.
        const finishes = partSteps(t, "step-finish")
        expect(only(t.events, "context-window")).toEqual(
          finishes.map((s) => ({
            kind: "context-window",
            usedTokens: getNum(s.part, "tokens", "total"),
            inputTokens: getNum(s.part, "tokens", "input"),
            outputTokens: getNum(s.part, "tokens", "output"),
            reasoningTokens: getNum(s.part, "tokens", "reasoning"),
            cacheReadTokens: getNum(s.part, "tokens", "cache", "read"),
            cacheCreationTokens: getNum(s.part, "tokens", "cache", "write")
          }))
        )
      }))
  }

  it.effect("server: a finished assistant message gives its model, cost and duration", () =>
    Effect.sync(() => {
      for (const name of serverFixtures) {
        const t = run(name)
        const finished = stepsOfType(t, "message.updated").filter(
          (s) =>
            get(s.line, "properties", "info", "role") === "assistant" &&
            getNum(s.line, "properties", "info", "time", "completed") !== undefined
        )
        expect(finished.flatMap((s) => s.events)).toEqual(
          finished.map((s) => {
            const info = get(s.line, "properties", "info")
            return {
              kind: "metadata",
              model: `${getStr(info, "providerID")}/${getStr(info, "modelID")}`,
              costUsd: getNum(info, "cost"),
              durationMs: (getNum(info, "time", "completed") ?? 0) - (getNum(info, "time", "created") ?? 0)
            }
          })
        )
      }
    }))
})

describe("OpenCode normalizer: runtime rules", () => {
  it.effect("a hard API error (session.error) is the warning 'APIError: mock: bad request (400)'", () =>
    Effect.sync(() => {
      const t = run("opencode-serve-raw-error")
      const error = stepsOfType(t, "session.error")
      expect(getNum(error[0]?.line, "properties", "error", "data", "statusCode")).toBe(400)
      expect(error.flatMap((s) => s.events)).toEqual([{ kind: "warning", message: "APIError: mock: bad request (400)" }])
      expect(only(t.events, "warning")).toHaveLength(1)
    }))

  it.effect("API retries (session.status retry) are runtime notices with attempts 1 and 2", () =>
    Effect.sync(() => {
      const t = run("opencode-serve-raw-retry")
      const retries = stepsOfType(t, "session.status").filter((s) => get(s.line, "properties", "status", "type") === "retry")
      expect(retries.map((s) => getNum(s.line, "properties", "status", "attempt"))).toEqual([1, 2])
      expect(only(t.events, "runtime-notice")).toEqual(
        retries.map((s) => ({
          kind: "runtime-notice",
          message: `API retry: ${getStr(s.line, "properties", "status", "message")}`,
          attempt: getNum(s.line, "properties", "status", "attempt")
        }))
      )
      expect(only(t.events, "warning")).toEqual([])
    }))

  it.effect("bash exiting non-zero is a tool-output carrying exitCode 2, not a tool-error", () =>
    Effect.sync(() => {
      const t = run("opencode-run-raw-tool-error-auto")
      const tool = partSteps(t, "tool")
      expect(tool).toHaveLength(1)
      expect(get(tool[0]?.part, "state", "status")).toBe("completed")
      expect(get(tool[0]?.part, "state", "metadata", "exit")).toBe(2)
      expect(only(t.events, "tool-error")).toEqual([])
      const output = only(t.events, "tool-output")
      expect(output.map((o) => o.toolCallId)).toEqual([getStr(tool[0]?.part, "callID")])
      expect(JSON.parse(output[0]?.outputJson ?? "null")).toEqual({ output: getStr(tool[0]?.part, "state", "output"), exitCode: 2 })
    }))

  it.effect("a rejected permission is a denied tool-error with the rejection message", () =>
    Effect.sync(() => {
      for (const name of ["opencode-serve-raw-deny-resume", "opencode-run-raw-tool-ask"]) {
        const t = run(name)
        const failed = partSteps(t, "tool").filter((s) => get(s.part, "state", "status") === "error")
        expect(failed).toHaveLength(1)
        const message = getStr(failed[0]?.part, "state", "error")
        expect(message).toMatch(/^The user rejected permission/)
        expect(only(t.events, "tool-error")).toEqual([{
          kind: "tool-error",
          toolCallId: getStr(failed[0]?.part, "callID"),
          message,
          denied: true
        }])
        expect(only(t.events, "tool-output")).toEqual([])
      }
      expect(only(run("opencode-serve-raw-deny-resume").events, "tool-error")[0]?.message).toMatch(/feedback: denied by bridge$/)
    }))

  it.effect("run: a finished tool part gives its input and its result together", () =>
    Effect.sync(() => {
      const t = run("opencode-run-raw-tool-ask")
      const tool = stepsOfType(t, "tool_use")
      expect(tool).toHaveLength(1)
      expect(tool[0]?.event.kind).toBe("metadata")
      expect(tool[0]?.events.map((e) => e.kind)).toEqual(["tool-input", "tool-error"])
      expect(tool[0]?.events[0]).toEqual({
        kind: "tool-input",
        toolCallId: getStr(tool[0]?.part, "callID"),
        toolName: getStr(tool[0]?.part, "tool"),
        inputJson: JSON.stringify(get(tool[0]?.part, "state", "input"))
      })
    }))

  it.effect("server: a tool part gives tool-input while running (repeatable) and one result when done", () =>
    Effect.sync(() => {
      const t = run("opencode-serve-raw-permission")
      const tool = partSteps(t, "tool")
      const statuses = tool.map((s) => get(s.part, "state", "status"))
      expect(statuses.filter((s) => s === "running").length).toBeGreaterThan(1)
      for (const s of tool) {
        const status = get(s.part, "state", "status")
        const expected = status === "pending" ? [] : status === "running" ? ["tool-input"] : ["tool-output"]
        expect(s.events.filter((e) => !isIgnored(e)).map((e) => e.kind)).toEqual(expected)
      }
      const ids = new Set(only(t.events, "tool-input").map((e) => e.toolCallId))
      expect([...ids]).toEqual([getStr(tool[0]?.part, "callID")])
    }))

  it.effect("message.part.delta carries delta:true and the partID of an earlier part event, and the deltas add up to the final text", () =>
    Effect.sync(() => {
      let checked = 0
      for (const name of serverFixtures) {
        const t = run(name)
        const deltas = stepsOfType(t, "message.part.delta")
        for (const d of deltas) {
          const partId = getStr(d.line, "properties", "partID")
          expect(d.events).toHaveLength(1)
          const event = d.events[0]
          expect(event !== undefined && (event.kind === "text" || event.kind === "reasoning") ? [event.delta, event.itemId] : undefined)
            .toEqual([true, partId])
          const announced = t.steps
            .filter((s) => s.type === "message.part.updated" && s.index < d.index)
            .flatMap((s) => s.events)
            .some((e) => (e.kind === "text" || e.kind === "reasoning") && e.itemId === partId && e.delta === undefined)
          expect(announced, `part ${partId} announced before its delta`).toBe(true)
        }
        for (const partId of new Set(deltas.map((d) => getStr(d.line, "properties", "partID")))) {
          const joined = deltas
            .filter((d) => getStr(d.line, "properties", "partID") === partId)
            .map((d) => getStr(d.line, "properties", "delta"))
            .join("")
          const finalRawText = t.steps.filter((s) => getStr(s.part, "id") === partId).map((s) => getStr(s.part, "text")).at(-1)
          expect(joined).toBe(finalRawText)
          const finalEvent = t.events.filter((e) =>
            (e.kind === "text" || e.kind === "reasoning") && e.itemId === partId && e.delta === undefined
          ).at(-1)
          expect(finalEvent !== undefined && (finalEvent.kind === "text" || finalEvent.kind === "reasoning") ? finalEvent.text : undefined)
            .toBe(joined)
          checked++
        }
      }
      expect(checked).toBeGreaterThanOrEqual(10)
    }))

  it.effect("the user's own prompt parts (no time) give no text event", () =>
    Effect.sync(() => {
      for (const name of serverFixtures) {
        const t = run(name)
        const userParts = partSteps(t, "text").filter((s) => get(s.part, "time") === undefined)
        expect(userParts.length, `${name} has a prompt part`).toBeGreaterThan(0)
        for (const s of userParts) {
          const prompt = getStr(s.part, "text")
          expect(prompt).toBeTruthy()
          expect(s.events.every(isIgnored)).toBe(true)
          expect(only(t.events, "text").some((e) => e.text === prompt)).toBe(false)
        }
      }
    }))

  it.effect("permission requests are notices 'Permission requested: bash (<command>)'", () =>
    Effect.sync(() => {
      for (
        const name of [
          "opencode-serve-raw-permission",
          "opencode-serve-raw-deny-resume",
          "opencode-serve-raw-compact",
          "opencode-serve-raw-command"
        ]
      ) {
        const t = run(name)
        const asked = stepsOfType(t, "permission.asked")
        expect(asked).toHaveLength(1)
        const command = getStr(asked[0]?.line, "properties", "metadata", "command")
        expect(get(asked[0]?.line, "properties", "permission")).toBe("bash")
        expect(asked[0]?.events).toEqual([{ kind: "runtime-notice", message: `Permission requested: bash (${command})` }])
      }
    }))

  it.effect("a question is the notice 'Question: Which color?' and the question tool's answer its output", () =>
    Effect.sync(() => {
      const t = run("opencode-serve-raw-question")
      const asked = stepsOfType(t, "question.asked")
      expect(get(asked[0]?.line, "properties", "questions", 0, "question")).toBe("Which color?")
      expect(asked.flatMap((s) => s.events)).toEqual([{ kind: "runtime-notice", message: "Question: Which color?" }])
      const done = partSteps(t, "tool").filter((s) => get(s.part, "state", "status") === "completed")
      expect(only(t.events, "tool-output")).toEqual([
        {
          kind: "tool-output",
          toolCallId: getStr(done[0]?.part, "callID"),
          outputJson: JSON.stringify(getStr(done[0]?.part, "state", "output"))
        }
      ])
    }))

  it.effect("/compact gives exactly one context-compaction, with trigger manual", () =>
    Effect.sync(() => {
      const t = run("opencode-serve-raw-compact")
      const parts = partSteps(t, "compaction")
      expect(parts.map((s) => get(s.part, "auto"))).toEqual([false])
      expect(only(t.events, "context-compaction")).toEqual([{ kind: "context-compaction", trigger: "manual" }])
      expect(stepsOfType(t, "session.compacted").flatMap((s) => s.events).every(isIgnored)).toBe(true)
    }))

  it.effect("a project command is the notice 'Command /<name> executed'", () =>
    Effect.sync(() => {
      const t = run("opencode-serve-raw-command")
      const executed = stepsOfType(t, "command.executed")
      expect(executed.flatMap((s) => s.events)).toEqual([
        { kind: "runtime-notice", message: `Command /${getStr(executed[0]?.line, "properties", "name")} executed` }
      ])
    }))

  it.effect("run: step_start gives the session id, so a later run can resume it", () =>
    Effect.sync(() => {
      const t = run("opencode-run-raw-tool-error-auto")
      const starts = stepsOfType(t, "step_start")
      expect(starts).toHaveLength(2)
      for (const s of starts) expect(s.events).toEqual([{ kind: "metadata", sessionId: getStr(s.line, "sessionID") }])
      expect(normalizeOpenCodeRunChunk("step_start", `{"type":"step_start","part":{"type":"step-start"}}`)).toMatchObject({
        reason: "ignored"
      })
    }))

  it.effect("synthetic parts and events: retry part, auto compaction, synthetic text, unknown types", () =>
    Effect.sync(() => {
      const part = (p: Record<string, unknown>) =>
        normalizeOpenCodeServerChunk("message.part.updated", JSON.stringify({ properties: { part: p } }))
      expect(part({ id: "p1", type: "compaction", auto: true })).toEqual({ kind: "context-compaction", trigger: "auto" })
      expect(part({ id: "p2", type: "retry", attempt: 3, error: { name: "APIError", data: { message: "overloaded", statusCode: 529 } } }))
        .toEqual({
          kind: "runtime-notice",
          message: "Retrying: APIError: overloaded (529)",
          attempt: 3
        })
      expect(part({ id: "p3", type: "text", text: "injected", synthetic: true, time: { start: 1 } })).toMatchObject({ reason: "ignored" })
      expect(part({ id: "p4", type: "tool", callID: "c", tool: "bash", state: { status: "weird" } })).toMatchObject({
        reason: "unexpected-shape"
      })
      expect(part({ id: "p5", type: "hologram" })).toMatchObject({ reason: "unrecognized-type" })
      expect(part({ id: "p6" })).toMatchObject({ reason: "unexpected-shape" })
      expect(normalizeOpenCodeServerChunk("message.part.delta", `{"properties":{"partID":"p","field":"metadata","delta":"x"}}`))
        .toMatchObject({
          reason: "ignored"
        })
      expect(normalizeOpenCodeServerChunk("brand.new.event", `{"properties":{}}`)).toMatchObject({ reason: "unrecognized-type" })
      expect(normalizeOpenCodeRunChunk("error", `{"type":"error","error":{"name":"ProviderAuthError","data":{"message":"no key"}}}`))
        .toEqual({
          kind: "warning",
          message: "ProviderAuthError: no key"
        })
      expect(normalizeOpenCodeRunChunk("mystery", "{}")).toMatchObject({ reason: "unrecognized-type" })
    }))
})
