import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { bundle, unbundle } from "../../../catalog/events/Bundles.js"
import {
  applyEvent,
  type ComposedMessage,
  composeEvents,
  type Composition,
  emptyComposition,
  type MessagePart,
  messageText,
  MessageTextLimit,
  toMessage,
  type ToolPart
} from "../../../catalog/events/compose.js"
import { normalizeChunk } from "../../../src/threads/normalizers/normalize.js"
import type { NormalizedEvent } from "../../../catalog/events/NormalizedEvent.js"
import { transcript, transcriptNames } from "../../support/Transcripts.js"

type Event = NormalizedEvent

/** A fixture's events as stored: one per chunk, bundles left packed (the composer unpacks them). */
const eventsOf = (name: string): ReadonlyArray<Event> => {
  const { source, chunks } = transcript(name)
  return chunks.map((chunk) => normalizeChunk(source, chunk.type, chunk.data))
}

const composeFixture = (name: string): ComposedMessage => composeEvents(eventsOf(name))

const applyAll = (events: ReadonlyArray<Event>, state: Composition = emptyComposition): Composition => events.reduce(applyEvent, state)

const compose = (...events: ReadonlyArray<Event>): ComposedMessage => composeEvents(events)

const toolsOf = (message: ComposedMessage): ReadonlyArray<ToolPart> =>
  message.parts.filter((part): part is ToolPart => part.type === "tool")

const textsOf = (message: ComposedMessage, type: "text" | "reasoning"): ReadonlyArray<string> =>
  message.parts.flatMap((part) => (part.type === type ? [part.text] : []))

const typesOf = (message: ComposedMessage): ReadonlyArray<MessagePart["type"]> => message.parts.map((part) => part.type)

/** Text blocks of Claude's full `assistant` lines, in order. */
const ClaudeAssistantLine = Schema.parseJson(
  Schema.Struct({
    type: Schema.Literal("assistant"),
    message: Schema.Struct({
      content: Schema.Array(
        Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String), thinking: Schema.optional(Schema.String) })
      )
    })
  })
)
const decodeAssistantLine = Schema.decodeUnknownOption(ClaudeAssistantLine)
const claudeAssistantBlocks = (name: string, type: "text" | "thinking"): ReadonlyArray<string> =>
  transcript(name).chunks.flatMap((chunk) => {
    const line = decodeAssistantLine(chunk.data)
    if (line._tag === "None") return []
    return line.value.message.content.flatMap((block) => {
      const value = type === "text" ? block.text : block.thinking
      return block.type === type && value !== undefined ? [value] : []
    })
  })

describe("compose: recorded transcripts", () => {
  it.effect("claude-raw-tool-allowed: tool completed with its output, texts in order, session from init and result", () =>
    Effect.sync(() => {
      const message = composeFixture("claude-raw-tool-allowed")
      expect(message.parts).toEqual([
        { type: "reasoning", text: "The user wants me to run a command. I will use Bash." },
        { type: "text", text: "I will run echo hi." },
        {
          type: "tool",
          toolCallId: "toolu_mock_2",
          toolName: "Bash",
          inputJson: JSON.stringify({ command: "echo hi", description: "Print hi" }),
          state: "completed",
          outputJson: JSON.stringify("hi")
        },
        { type: "text", text: "Tool finished. Output was: hi" }
      ])
      expect(message.session).toEqual({
        sessionId: "71c29256-6ff2-404e-8996-027757dbc75f",
        model: "claude-sonnet-4-5",
        costUsd: 0.0014850000000000002,
        durationMs: 265,
        numTurns: 2
      })
      expect(message.contextWindow).toMatchObject({ usedTokens: 295, limitTokens: 200000 })
      expect(messageText(message)).toEqual({ text: "I will run echo hi.\n\nTool finished. Output was: hi" })
    }))

  it.effect("claude-raw-tool-error-partial: deltas accumulate into drafts that the full assistant blocks replace", () =>
    Effect.sync(() => {
      const name = "claude-raw-tool-error-partial"
      const events = eventsOf(name)
      const fullTexts = claudeAssistantBlocks(name, "text")
      const fullThinking = claudeAssistantBlocks(name, "thinking")
      expect(fullTexts).toHaveLength(2)
      expect(fullThinking).toHaveLength(1)

      // Before each full block arrives, its deltas have accumulated into one draft part.
      const fullAt = events.findIndex((event) => event.kind === "text" && event.delta === undefined)
      expect(events[fullAt - 1]).toMatchObject({ kind: "text", delta: true, itemId: "block:1" })
      expect(textsOf(toMessage(applyAll(events.slice(0, fullAt))), "text")).toEqual([fullTexts[0]])

      const message = composeEvents(events)
      expect(typesOf(message)).toEqual(["reasoning", "text", "tool", "text"])
      expect(textsOf(message, "text")).toEqual(fullTexts)
      expect(textsOf(message, "reasoning")).toEqual(fullThinking)
      expect(messageText(message).text).toBe(fullTexts.join("\n\n"))
      // The second message's deltas reuse `block:0` (the first message's reasoning): they started a
      // new draft instead of extending the finished reasoning part.
      expect(toolsOf(message)).toEqual([expect.objectContaining({ toolCallId: "toolu_mock_3", state: "error" })])
      expect(toolsOf(message)[0]?.errorMessage).toContain("No such file or directory")
    }))

  it.effect("claude-raw-tool-denied: the denied tool part is in state error", () =>
    Effect.sync(() => {
      const message = composeFixture("claude-raw-tool-denied")
      const [tool] = toolsOf(message)
      expect(toolsOf(message)).toHaveLength(1)
      expect(tool).toMatchObject({ toolCallId: "toolu_mock_1", toolName: "Bash", state: "error" })
      expect(tool?.errorMessage).toContain("was blocked")
      expect(tool).not.toHaveProperty("outputJson")
    }))

  it.effect("codex-appserver-raw-approval: delta then completed is one part; tool completed; latest context window", () =>
    Effect.sync(() => {
      const events = eventsOf("codex-appserver-raw-approval")
      const flat = events.flatMap(unbundle)
      const completedText = flat.find((event) => event.kind === "text" && event.delta === undefined)
      const windows = flat.filter((event) => event.kind === "context-window")
      const lastWindow = windows[windows.length - 1]
      expect(windows.length).toBeGreaterThan(1)

      const message = composeEvents(events)
      expect(completedText).toBeDefined()
      expect(textsOf(message, "text")).toEqual([completedText?.kind === "text" ? completedText.text : "missing"])
      expect(textsOf(message, "reasoning")).toEqual(["**Planning** I will run echo hi with the shell tool."])
      expect(toolsOf(message)).toEqual([
        expect.objectContaining({ toolCallId: "call_mock_1", toolName: "commandExecution", state: "completed" })
      ])
      expect(JSON.parse(toolsOf(message)[0]?.outputJson ?? "null")).toMatchObject({ exitCode: 0 })
      expect(lastWindow).toBeDefined()
      expect({ kind: "context-window", ...message.contextWindow }).toEqual(lastWindow)
      expect(message.contextWindow?.usedTokens).toBe(6269)
      expect(typesOf(message)).toContain("compaction")
      expect(message.session).toMatchObject({ sessionId: "01a1fd6b-c34a-7682-9f99-1c3b42eb8516", model: "mock-model", durationMs: 50 })
    }))

  it.effect("codex-exec-raw-tool-error: the failed command is a tool part in state error", () =>
    Effect.sync(() => {
      const message = composeFixture("codex-exec-raw-tool-error")
      expect(typesOf(message)).toEqual(["warning", "reasoning", "tool", "text"])
      expect(toolsOf(message)).toEqual([
        {
          type: "tool",
          toolCallId: "item_2",
          toolName: "command_execution",
          inputJson: JSON.stringify({ command: "/bin/bash -lc 'ls /nonexistent-dir'" }),
          state: "error",
          errorMessage: "ls: cannot access '/nonexistent-dir': No such file or directory\n"
        }
      ])
    }))

  it.effect("opencode-serve-raw-permission: reasoning deltas land in the reasoning part; repeated tool-input gives one tool", () =>
    Effect.sync(() => {
      const events = eventsOf("opencode-serve-raw-permission")
      const flat = events.flatMap(unbundle)
      expect(flat.filter((event) => event.kind === "tool-input")).toHaveLength(2)

      const message = composeEvents(events)
      expect(typesOf(message)).toEqual(["reasoning", "text", "tool", "notice", "text"])
      expect(textsOf(message, "reasoning")).toEqual(["I should run echo hi via bash."])
      expect(textsOf(message, "text")).toEqual(["Running echo hi.", "Tool finished. Output was: (no output)"])
      expect(toolsOf(message)).toEqual([
        {
          type: "tool",
          toolCallId: "call_11",
          toolName: "bash",
          inputJson: JSON.stringify({ command: "touch made-by-opencode.txt", description: "Run command" }),
          state: "completed",
          outputJson: JSON.stringify({ output: "(no output)", exitCode: 0 })
        }
      ])

      // Mid-stream, the `text` delta naming the reasoning part's id extended the reasoning part.
      const firstDelta = events.findIndex((event) => event.kind === "text" && event.delta === true)
      const mid = toMessage(applyAll(events.slice(0, firstDelta + 1)))
      expect(mid.parts).toEqual([{ type: "reasoning", text: "I should run echo hi via bash." }])
    }))

  it.effect("opencode-serve-raw-deny-resume: the rejected tool is an error, texts and reasoning intact", () =>
    Effect.sync(() => {
      const message = composeFixture("opencode-serve-raw-deny-resume")
      expect(typesOf(message)).toEqual(["reasoning", "text", "tool", "notice", "text"])
      expect(textsOf(message, "reasoning")).toEqual(["I should run echo hi via bash."])
      expect(toolsOf(message)).toEqual([expect.objectContaining({ toolCallId: "call_3", toolName: "bash", state: "error" })])
      expect(toolsOf(message)[0]?.errorMessage).toContain("rejected permission")
      expect(messageText(message).text).toBe(
        "Running echo hi.\n\nTool finished. Output was: The user rejected permission to use this specific tool call with the following feedback: denied by bridge"
      )
      expect(message.session.sessionId).toBe("ses_e029342f1ffe73SQtCPPXWSKaf")
    }))

  it.effect("opencode-run-raw-tool-error-auto: the tool completed with exit code 2 in its output", () =>
    Effect.sync(() => {
      const message = composeFixture("opencode-run-raw-tool-error-auto")
      const tools = toolsOf(message)
      expect(tools).toHaveLength(1)
      expect(tools[0]).toMatchObject({ toolCallId: "call_16", toolName: "bash", state: "completed" })
      expect(JSON.parse(tools[0]?.outputJson ?? "null")).toMatchObject({ exitCode: 2 })
      expect(typesOf(message)).toEqual(["text", "tool", "text"])
    }))

  it.effect("gemini-RECONSTRUCTED-stream-json: two text parts separated by tools; an orphan error is its own tool part", () =>
    Effect.sync(() => {
      const message = composeFixture("gemini-RECONSTRUCTED-stream-json")
      expect(message.parts).toEqual([
        { type: "text", text: "I will run it." },
        {
          type: "tool",
          toolCallId: "run_shell_command-1",
          toolName: "run_shell_command",
          inputJson: JSON.stringify({ command: "echo hi" }),
          state: "completed",
          outputJson: JSON.stringify("hi")
        },
        { type: "tool", toolCallId: "read_file-2", toolName: "unknown", inputJson: "{}", state: "error", errorMessage: "File not found" },
        { type: "warning", message: "Loop detected, stopping execution" },
        { type: "text", text: "Done: hi" }
      ])
      expect(message.session).toEqual({ sessionId: "00000000-0000-0000-0000-000000000001", model: "gemini-2.5-pro", durationMs: 2100 })
      expect(messageText(message)).toEqual({ text: "I will run it.\n\nDone: hi" })
    }))

  it.effect("incremental: applyEvent one by one equals composeEvents, for every fixture, without touching earlier states", () =>
    Effect.sync(() => {
      expect(transcriptNames.length).toBeGreaterThan(20)
      for (const name of transcriptNames) {
        const events = eventsOf(name)
        const states: Array<Composition> = [emptyComposition]
        const snapshots: Array<ComposedMessage> = [toMessage(emptyComposition)]
        let state = emptyComposition
        for (const event of events) {
          const next = applyEvent(state, event)
          // A new state per event; a dropped `unknown` event leaves the state as it was (same object).
          if (event.kind === "unknown") expect(next).toBe(state)
          else expect(next).not.toBe(state)
          state = next
          states.push(state)
          snapshots.push(toMessage(state))
        }
        expect(toMessage(state), name).toEqual(composeEvents(events))
        // Every intermediate state still reads as it did when it was produced.
        states.forEach((earlier, index) => expect(toMessage(earlier), `${name} @${index}`).toEqual(snapshots[index]))
      }
    }))
})

describe("compose: rules", () => {
  it.effect("rule 1: a bundle's events are applied in order, nested bundles too", () =>
    Effect.sync(() => {
      const packed = bundle([
        { kind: "text", text: "one", itemId: "a" },
        { kind: "metadata", sessionId: "s1", costUsd: 1 },
        bundle([
          { kind: "text", text: "two", itemId: "a" },
          { kind: "context-window", usedTokens: 10 }
        ]),
        { kind: "warning", message: "w" }
      ])
      expect(packed.kind).toBe("metadata")
      const message = compose(packed)
      expect(message.parts).toEqual([
        { type: "text", text: "two" },
        { type: "warning", message: "w" }
      ])
      expect(message.session).toEqual({ sessionId: "s1", costUsd: 1 })
      expect(message.contextWindow).toEqual({ usedTokens: 10 })
      expect(message.session).not.toHaveProperty("otherJson")
    }))

  it.effect("rule 2: unknown events are dropped", () =>
    Effect.sync(() => {
      const unknown: Event = { kind: "unknown", reason: "json-parse-error", rawType: "assistant", rawData: "{" }
      expect(compose(unknown)).toEqual({ parts: [], session: {} })
      expect(compose({ kind: "text", text: "a" }, unknown, { kind: "text", text: "b", delta: true })).toEqual(
        compose({ kind: "text", text: "a" }, { kind: "text", text: "b", delta: true })
      )
    }))

  it.effect("rule 3: a delta extends the part with its itemId, whatever that part's kind", () =>
    Effect.sync(() => {
      const message = compose(
        { kind: "reasoning", text: "", itemId: "r" },
        { kind: "text", text: "think", itemId: "r", delta: true },
        { kind: "text", text: "ing", itemId: "r", delta: true },
        { kind: "text", text: "Hel", itemId: "t", delta: true },
        { kind: "reasoning", text: " more", itemId: "r", delta: true },
        { kind: "text", text: "lo", itemId: "t", delta: true }
      )
      expect(message.parts).toEqual([
        { type: "reasoning", text: "thinking more" },
        { type: "text", text: "Hello" }
      ])
    }))

  it.effect("rule 3: a delta without itemId extends the last open draft of its kind, else starts a draft", () =>
    Effect.sync(() => {
      const message = compose(
        { kind: "text", text: "I will", delta: true },
        { kind: "text", text: " run it.", delta: true },
        { kind: "reasoning", text: "hmm", delta: true },
        { kind: "text", text: "After reasoning.", delta: true },
        { kind: "tool-input", toolCallId: "c1", toolName: "sh", inputJson: "{}" },
        { kind: "text", text: "Done", delta: true },
        { kind: "text", text: ": hi", delta: true }
      )
      expect(message.parts).toEqual([
        { type: "text", text: "I will run it." },
        { type: "reasoning", text: "hmm" },
        { type: "text", text: "After reasoning." },
        { type: "tool", toolCallId: "c1", toolName: "sh", inputJson: "{}", state: "running" },
        { type: "text", text: "Done: hi" }
      ])
      // A final part is not a draft: a delta after it starts a new part.
      expect(toMessage(applyAll([{ kind: "reasoning", text: "full" }, { kind: "reasoning", text: "next", delta: true }])).parts).toEqual([
        { type: "reasoning", text: "full" },
        { type: "reasoning", text: "next" }
      ])
    }))

  it.effect("rule 4: a full item replaces the part with its itemId", () =>
    Effect.sync(() => {
      const message = compose(
        { kind: "text", text: "Hel", itemId: "t", delta: true },
        { kind: "text", text: "lo", itemId: "t", delta: true },
        { kind: "text", text: "Hello, world.", itemId: "t" },
        { kind: "text", text: "Hello, world!", itemId: "t" }
      )
      expect(message.parts).toEqual([{ type: "text", text: "Hello, world!" }])
    }))

  it.effect("rule 4: a full item with a new id replaces the oldest open draft of its kind, then is final", () =>
    Effect.sync(() => {
      const state = applyAll([
        { kind: "text", text: "draft A", itemId: "block:0", delta: true },
        { kind: "reasoning", text: "draft R", itemId: "block:1", delta: true },
        { kind: "text", text: "draft B", itemId: "block:2", delta: true },
        { kind: "text", text: "Full A", itemId: "uuid-a" },
        { kind: "reasoning", text: "Full R", itemId: "uuid-r" }
      ])
      expect(toMessage(state).parts).toEqual([
        { type: "text", text: "Full A" },
        { type: "reasoning", text: "Full R" },
        { type: "text", text: "draft B" }
      ])
      const after = toMessage(
        applyAll(
          [
            { kind: "text", text: "Full B", itemId: "uuid-b" },
            // No draft left: the next full item is appended.
            { kind: "text", text: "Full C", itemId: "uuid-c" },
            // The replaced draft's id is free again (Claude reuses `block:N` in the next message).
            { kind: "text", text: "next", itemId: "block:0", delta: true },
            // The full item's id still names its part.
            { kind: "reasoning", text: "Full R, revised", itemId: "uuid-r" }
          ],
          state
        )
      )
      expect(after.parts).toEqual([
        { type: "text", text: "Full A" },
        { type: "reasoning", text: "Full R, revised" },
        { type: "text", text: "Full B\n\nFull C\n\nnext" }
      ])
    }))

  it.effect("rule 4: a full item with no part and no open draft is appended as a final part", () =>
    Effect.sync(() => {
      const message = compose(
        { kind: "reasoning", text: "r", delta: true },
        { kind: "text", text: "t1" },
        { kind: "text", text: "t2", itemId: "x" }
      )
      expect(message.parts).toEqual([
        { type: "reasoning", text: "r" },
        { type: "text", text: "t1\n\nt2" }
      ])
    }))

  it.effect("rule 5: tool-input starts a running call; a repeated tool-input updates it in place", () =>
    Effect.sync(() => {
      const running = compose(
        { kind: "tool-input", toolCallId: "c1", toolName: "bash", inputJson: "{}" },
        { kind: "tool-input", toolCallId: "c1", toolName: "bash", inputJson: "{\"command\":\"ls\"}" }
      )
      expect(running.parts).toEqual([{
        type: "tool",
        toolCallId: "c1",
        toolName: "bash",
        inputJson: "{\"command\":\"ls\"}",
        state: "running"
      }])
      const completed = compose(
        { kind: "tool-input", toolCallId: "c1", toolName: "bash", inputJson: "{}" },
        { kind: "tool-input", toolCallId: "c2", toolName: "read", inputJson: "{}" },
        { kind: "tool-output", toolCallId: "c1", outputJson: "\"ok\"" },
        { kind: "tool-error", toolCallId: "c2", message: "nope" },
        { kind: "tool-input", toolCallId: "c1", toolName: "bash", inputJson: "{\"command\":\"ls\"}" }
      )
      expect(completed.parts).toEqual([
        { type: "tool", toolCallId: "c1", toolName: "bash", inputJson: "{\"command\":\"ls\"}", state: "completed", outputJson: "\"ok\"" },
        { type: "tool", toolCallId: "c2", toolName: "read", inputJson: "{}", state: "error", errorMessage: "nope" }
      ])
    }))

  it.effect("rule 5: an orphan tool-output or tool-error creates an unknown tool part", () =>
    Effect.sync(() => {
      const message = compose(
        { kind: "tool-output", toolCallId: "o1", outputJson: "42" },
        { kind: "tool-error", toolCallId: "o2", message: "boom" },
        { kind: "tool-input", toolCallId: "o1", toolName: "calc", inputJson: "{\"x\":1}" }
      )
      expect(message.parts).toEqual([
        { type: "tool", toolCallId: "o1", toolName: "calc", inputJson: "{\"x\":1}", state: "completed", outputJson: "42" },
        { type: "tool", toolCallId: "o2", toolName: "unknown", inputJson: "{}", state: "error", errorMessage: "boom" }
      ])
    }))

  it.effect("rule 6: notices, warnings and compactions become parts with only their present fields", () =>
    Effect.sync(() => {
      const message = compose(
        { kind: "runtime-notice", message: "API retry", attempt: 1, delayMs: 500, status: 529 },
        { kind: "runtime-notice", message: "Compacting" },
        { kind: "warning", message: "careful" },
        { kind: "context-compaction", trigger: "auto", preTokens: 1000 },
        { kind: "context-compaction" }
      )
      expect(message.parts).toEqual([
        { type: "notice", message: "API retry", attempt: 1, delayMs: 500, status: 529 },
        { type: "notice", message: "Compacting" },
        { type: "warning", message: "careful" },
        { type: "compaction", trigger: "auto", preTokens: 1000 },
        { type: "compaction" }
      ])
      expect(Object.keys(message.parts[1] ?? {})).toEqual(["type", "message"])
      expect(Object.keys(message.parts[4] ?? {})).toEqual(["type"])
    }))

  it.effect("rule 6: the latest context-window replaces the previous one", () =>
    Effect.sync(() => {
      const message = compose(
        { kind: "context-window", usedTokens: 10, limitTokens: 100, cacheReadTokens: 5 },
        { kind: "text", text: "hi" },
        { kind: "context-window", usedTokens: 20 }
      )
      expect(message.contextWindow).toEqual({ usedTokens: 20 })
      expect(Object.keys(message.contextWindow ?? {})).toEqual(["usedTokens"])
      expect(compose({ kind: "text", text: "hi" })).not.toHaveProperty("contextWindow")
    }))

  it.effect("rule 6: metadata merges its defined fields into the session, later values win; otherJson is ignored but a failed turnStatus", () =>
    Effect.sync(() => {
      const message = compose(
        { kind: "metadata", sessionId: "s1", model: "m1" },
        { kind: "metadata", otherJson: "{\"permissionMode\":\"plan\"}" },
        { kind: "metadata", model: "m2", costUsd: 0.5, durationMs: 100 },
        { kind: "metadata", costUsd: 0.75, numTurns: 3 }
      )
      expect(message.session).toEqual({ sessionId: "s1", model: "m2", costUsd: 0.75, durationMs: 100, numTurns: 3 })
      expect(message.parts).toEqual([])
      expect(compose({ kind: "metadata", otherJson: "{\"turnStatus\":\"completed\"}" }).session).toEqual({})
    }))

  it.effect("rule 6: a turnStatus of failed marks the turn failed, with its error when it has one", () =>
    Effect.sync(() => {
      expect(compose({ kind: "metadata", otherJson: "{\"turnStatus\":\"failed\"}" }).session).toEqual({ turnFailed: {} })
      expect(compose({ kind: "metadata", otherJson: "{\"turnStatus\":\"failed\",\"error\":null}" }).session).toEqual({ turnFailed: {} })
      expect(
        compose(
          { kind: "metadata", sessionId: "s1" },
          { kind: "metadata", otherJson: "{\"turnStatus\":\"failed\",\"error\":\"Compaction failed: not enough messages\"}" }
        ).session
      ).toEqual({ sessionId: "s1", turnFailed: { error: "Compaction failed: not enough messages" } })
      expect(compose({ kind: "metadata", otherJson: "not json" }).session).toEqual({})
    }))

  it.effect("rule 3: a denied tool-error marks the call denied; one after the call's own error keeps that error's message", () =>
    Effect.sync(() => {
      const codex = compose(
        { kind: "tool-input", toolCallId: "c1", toolName: "commandExecution", inputJson: "{}" },
        { kind: "tool-error", toolCallId: "c1", message: "Command declined", denied: true }
      )
      expect(codex.parts).toEqual([{
        type: "tool",
        toolCallId: "c1",
        toolName: "commandExecution",
        inputJson: "{}",
        state: "error",
        errorMessage: "Command declined",
        denied: true
      }])
      // Claude: the refusal's message is the tool result; its closing result names the refused calls.
      const claude = compose(
        { kind: "tool-input", toolCallId: "t1", toolName: "Bash", inputJson: "{}" },
        { kind: "tool-error", toolCallId: "t1", message: "Write it under docs/ instead" },
        { kind: "text", text: "Understood." },
        { kind: "tool-error", toolCallId: "t1", message: "Denied", denied: true }
      )
      expect(claude.parts[0]).toEqual({
        type: "tool",
        toolCallId: "t1",
        toolName: "Bash",
        inputJson: "{}",
        state: "error",
        errorMessage: "Write it under docs/ instead",
        denied: true
      })
      // A plain error is not a denial.
      expect(
        compose(
          { kind: "tool-input", toolCallId: "t2", toolName: "Bash", inputJson: "{}" },
          { kind: "tool-error", toolCallId: "t2", message: "Exit code 2" }
        ).parts[0]
      ).not.toHaveProperty("denied")
    }))

  it.effect("rule 3: the recorded denials compose to denied calls: Claude's stdio Deny and OpenCode's rejected permission", () =>
    Effect.sync(() => {
      const claude = composeFixture("claude-raw-stdio-deny").parts.filter((part) => part.type === "tool")
      expect(claude).toEqual([
        expect.objectContaining({ toolName: "Bash", state: "error", errorMessage: "User denied via bridge", denied: true })
      ])
      const opencode = composeFixture("opencode-serve-raw-deny-resume").parts.filter((part) => part.type === "tool")
      expect(opencode).toContainEqual(expect.objectContaining({ state: "error", denied: true }))
      expect(composeFixture("claude-raw-tool-allowed").parts.filter((part) => part.type === "tool" && part.denied === true)).toEqual([])
    }))

  it.effect("rule 7: consecutive text parts are merged with a blank line, empty texts add no separator", () =>
    Effect.sync(() => {
      const message = compose(
        { kind: "text", text: "one", itemId: "1" },
        { kind: "text", text: "", itemId: "2" },
        { kind: "text", text: "two", itemId: "3" },
        { kind: "reasoning", text: "r" },
        { kind: "text", text: "three", itemId: "4" },
        { kind: "text", text: "four", itemId: "5" }
      )
      expect(message.parts).toEqual([
        { type: "text", text: "one\n\ntwo" },
        { type: "reasoning", text: "r" },
        { type: "text", text: "three\n\nfour" }
      ])
      // Merging is a view: the merged parts still take their own updates.
      const state = applyAll([
        { kind: "text", text: "a", itemId: "1" },
        { kind: "text", text: "b", itemId: "2" },
        { kind: "text", text: "A", itemId: "1" }
      ])
      expect(toMessage(state).parts).toEqual([{ type: "text", text: "A\n\nb" }])
    }))

  it.effect("applyEvent is immutable: the previous state is unchanged", () =>
    Effect.sync(() => {
      const before = applyAll([
        { kind: "text", text: "a", itemId: "1", delta: true },
        { kind: "tool-input", toolCallId: "c", toolName: "t", inputJson: "{}" },
        { kind: "metadata", sessionId: "s" }
      ])
      const snapshot = toMessage(before)
      const after = applyAll(
        [
          { kind: "text", text: "b", itemId: "1", delta: true },
          { kind: "tool-output", toolCallId: "c", outputJson: "1" },
          { kind: "metadata", sessionId: "s2" },
          { kind: "context-window", usedTokens: 1 }
        ],
        before
      )
      expect(toMessage(before)).toEqual(snapshot)
      expect(toMessage(after)).toEqual({
        parts: [
          { type: "text", text: "ab" },
          { type: "tool", toolCallId: "c", toolName: "t", inputJson: "{}", state: "completed", outputJson: "1" }
        ],
        session: { sessionId: "s2" },
        contextWindow: { usedTokens: 1 }
      })
    }))
})

describe("compose: messageText", () => {
  it.effect("messageText: the agent's text only, no reasoning, tools or notices", () =>
    Effect.sync(() => {
      const events: ReadonlyArray<Event> = [
        { kind: "reasoning", text: "secret thoughts" },
        { kind: "text", text: "Hello." },
        { kind: "tool-input", toolCallId: "c", toolName: "sh", inputJson: "{\"command\":\"cat x\"}" },
        { kind: "tool-output", toolCallId: "c", outputJson: "\"tool output\"" },
        { kind: "runtime-notice", message: "retrying" },
        { kind: "warning", message: "warned" },
        { kind: "text", text: "Bye." }
      ]
      const result = messageText(events)
      expect(result).toEqual({ text: "Hello.\n\nBye." })
      expect(messageText(composeEvents(events))).toEqual(result)
      expect(messageText([{ kind: "tool-input", toolCallId: "c", toolName: "sh", inputJson: "{}" }])).toEqual({ text: "" })
    }))

  it.effect("messageText: capped at MessageTextLimit with truncated: true", () =>
    Effect.sync(() => {
      expect(MessageTextLimit).toBe(4000)
      const long = messageText([{ kind: "text", text: "a".repeat(3000) }, {
        kind: "tool-input",
        toolCallId: "c",
        toolName: "t",
        inputJson: "{}"
      }, { kind: "text", text: "b".repeat(3000) }])
      expect(long.truncated).toBe(true)
      expect(long.text).toHaveLength(MessageTextLimit)
      expect(long.text).toBe(`${"a".repeat(3000)}\n\n${"b".repeat(998)}`)
      expect(long.text.endsWith("…")).toBe(false)
    }))

  it.effect("messageText: no truncated field when nothing was cut", () =>
    Effect.sync(() => {
      const exact = messageText([{ kind: "text", text: "x".repeat(MessageTextLimit) }])
      expect(exact.text).toHaveLength(MessageTextLimit)
      expect(exact).not.toHaveProperty("truncated")
      expect(messageText([{ kind: "text", text: "short" }])).toEqual({ text: "short" })
    }))

  it.effect("messageText: a surrogate pair at the limit is not split", () =>
    Effect.sync(() => {
      const emoji = "\u{1F600}"
      const straddling = messageText([{ kind: "text", text: `${"a".repeat(MessageTextLimit - 1)}${emoji}b` }])
      expect(straddling).toEqual({ text: "a".repeat(MessageTextLimit - 1), truncated: true })
      const inside = messageText([{ kind: "text", text: `${"a".repeat(MessageTextLimit - 2)}${emoji}bbb` }])
      expect(inside).toEqual({ text: `${"a".repeat(MessageTextLimit - 2)}${emoji}`, truncated: true })
      expect(inside.text).toHaveLength(MessageTextLimit)
    }))

  it.effect("messageText: an empty composition gives an empty text", () =>
    Effect.sync(() => {
      expect(messageText(toMessage(emptyComposition))).toEqual({ text: "" })
      expect(messageText([])).toEqual({ text: "" })
    }))
})
