import { describe, expect, it } from "@effect/vitest"
import { Effect, Ref, Stream } from "effect"
import { type BatchInput, resumeOrStartFresh, RuntimeFailed, type RuntimeOutput, SessionGone } from "../../../cli/agent/runtimes/Runtime.js"
import { CLI_WARNING_TYPE } from "../../../catalog/bridge/AgentApi.js"

/**
 * Issue 7, resume safety, for every runtime: the thread's runtime session is resumed; one the
 * runtime no longer has, or none on a thread that already has a conversation, becomes a fresh
 * session told the earlier messages, with a `warning` saying so.
 */

const earlier = [
  { role: "user", text: "Fix the build" },
  { role: "assistant", text: "Fixed: the lockfile was stale" }
]

/** A batch input whose history read is counted, and a fake runtime that records what it was asked to run. */
const harness = (
  options: { readonly runtimeSessionId: string | null; readonly history: typeof earlier; readonly firstIsCommand?: boolean }
) =>
  Effect.gen(function*() {
    const historyReads = yield* Ref.make(0)
    const runs = yield* Ref.make<ReadonlyArray<BatchInput>>([])
    const input: BatchInput = {
      threadId: "thread-1",
      cwd: "/tmp",
      messages: [
        {
          messageId: "m1",
          content: options.firstIsCommand === true ? "/compact" : "And add a test",
          runtimeCommand: options.firstIsCommand === true
        },
        { messageId: "m2", content: "Thanks", runtimeCommand: false }
      ],
      runtimeSessionId: options.runtimeSessionId,
      model: null,
      effort: null,
      mode: null,
      agentPrompt: null,
      mcp: { url: "http://127.0.0.1:1/api/mcp", apiKey: "trellis_test" },
      history: Effect.as(Ref.update(historyReads, (n) => n + 1), options.history),
      ask: () => Effect.succeed({ _tag: "Expired" }),
      stopRequested: Effect.never
    }
    const line = (data: string): RuntimeOutput => ({ _tag: "Line", line: { type: "text", data } })
    /** Has no session "gone-session"; any other resumes or starts fine. */
    const run = (batch: BatchInput): Stream.Stream<RuntimeOutput, RuntimeFailed | SessionGone> =>
      Stream.unwrap(Effect.gen(function*() {
        yield* Ref.update(runs, (all) => [...all, batch])
        return batch.runtimeSessionId === "gone-session"
          ? Stream.fail(new SessionGone({ sessionId: "gone-session" }))
          : Stream.make(line(`ran in ${batch.runtimeSessionId ?? "a new session"}`))
      }))
    const outputs = yield* Stream.runCollect(resumeOrStartFresh("claude", input, run))
    const lines = [...outputs].flatMap((output) => (output._tag === "Line" ? [output.line] : []))
    return { lines, runs: yield* Ref.get(runs), historyReads: yield* Ref.get(historyReads) }
  })

describe("resume safety (every runtime)", () => {
  it.effect("a session the runtime still has is resumed, and the history is not read", () =>
    Effect.gen(function*() {
      const { historyReads, lines, runs } = yield* harness({ runtimeSessionId: "live-session", history: earlier })
      expect(runs.map((r) => r.runtimeSessionId)).toEqual(["live-session"])
      expect(lines.map((l) => l.data)).toEqual(["ran in live-session"])
      expect(historyReads).toBe(0)
    }))

  it.effect("a session the runtime no longer has starts a fresh one whose first prompt tells the conversation so far, and a warning says so", () =>
    Effect.gen(function*() {
      const { lines, runs } = yield* harness({ runtimeSessionId: "gone-session", history: earlier })
      expect(runs.map((r) => r.runtimeSessionId)).toEqual(["gone-session", null])
      const fresh = runs[1]?.messages ?? []
      expect(fresh.map((m) => m.messageId)).toEqual(["m1", "m2"])
      expect(fresh[0]?.content).toContain("User: Fix the build")
      expect(fresh[0]?.content).toContain("Assistant: Fixed: the lockfile was stale")
      expect(fresh[0]?.content.endsWith("And add a test")).toBe(true)
      expect(lines[0]?.type).toBe(CLI_WARNING_TYPE)
      expect(JSON.parse(lines[0]?.data ?? "{}").message).toBe(
        "claude no longer has session gone-session; started a fresh claude session with the thread's 2 earlier messages summarised"
      )
      expect(lines.slice(1).map((l) => l.data)).toEqual(["ran in a new session"])
    }))

  it.effect("a thread with a conversation but no session (started fresh) gets the conversation in a new session, with a warning", () =>
    Effect.gen(function*() {
      const { lines, runs } = yield* harness({ runtimeSessionId: null, history: earlier })
      expect(runs.map((r) => r.runtimeSessionId)).toEqual([null])
      expect(runs[0]?.messages[0]?.content).toContain("The conversation so far")
      expect(JSON.parse(lines[0]?.data ?? "{}").message).toContain("This thread has no runtime session to resume")
    }))

  it.effect("a new thread starts a plain new session: no summary, no warning", () =>
    Effect.gen(function*() {
      const { lines, runs } = yield* harness({ runtimeSessionId: null, history: [] })
      expect(runs[0]?.messages.map((m) => m.content)).toEqual(["And add a test", "Thanks"])
      expect(lines.map((l) => l.data)).toEqual(["ran in a new session"])
    }))

  it.effect("before a runtime command the summary is a message of its own: the command stays the whole text", () =>
    Effect.gen(function*() {
      const { runs } = yield* harness({ runtimeSessionId: "gone-session", history: earlier, firstIsCommand: true })
      const fresh = runs[1]?.messages ?? []
      expect(fresh.map((m) => [m.runtimeCommand, m.content.startsWith("The previous session")])).toEqual([[false, true], [true, false], [
        false,
        false
      ]])
      expect(fresh[1]?.content).toBe("/compact")
    }))

  it.effect("a new session that is itself reported gone fails the batch instead of looping", () =>
    Effect.gen(function*() {
      const input = {
        threadId: "t",
        cwd: "/tmp",
        messages: [],
        runtimeSessionId: "gone-session",
        model: null,
        effort: null,
        mode: null,
        agentPrompt: null,
        mcp: { url: "", apiKey: "" },
        history: Effect.succeed(earlier),
        ask: () => Effect.succeed({ _tag: "Expired" } as const),
        stopRequested: Effect.never
      }
      const failure = yield* Effect.flip(Stream.runDrain(resumeOrStartFresh("codex", input, (batch) =>
        Stream.fail(new SessionGone({ sessionId: batch.runtimeSessionId ?? "new" })))))
      expect(failure).toBeInstanceOf(RuntimeFailed)
      expect(failure.message).toBe("codex lost the new session new")
    }))
})
