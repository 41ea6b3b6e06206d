import { describe, expect, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { TestServer } from "../support/TestServer.js"
import {
  chunks,
  claim,
  complete,
  createTask,
  createWorkflowRun,
  disconnect,
  drain,
  failsWith,
  getOrdinary,
  hasField,
  last,
  listMessages,
  missingThreadId,
  ownerWithCli,
  runToCompletion,
  runToFailure,
  secondProject,
  sendMessage,
  share,
  softDelete,
  spawn,
  startBatch,
  startStreaming,
  teammate,
  threadOn,
  upload
} from "../support/ThreadFixtures.js"

const noRateLimit = { rateLimit: Option.none() }

describe("thread messages", () => {
  layer(TestServer(noRateLimit))((it) => {
    // ---- list_thread_messages --------------------------------------------------------------

    it.effect("list_thread_messages: by default the 10 most recent messages, returned oldest first", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("messages-window")
        const thread = yield* threadOn(owner.key, owner.cli, { content: "m0" })
        yield* Effect.forEach(Array.from({ length: 11 }, (_, i) => i + 1), (i) =>
          sendMessage(owner.key, { threadId: thread.threadId, content: `m${i}` }), { concurrency: 1 })
        const texts = (messages: ReadonlyArray<{ readonly text: string }>) =>
          messages.map((m) =>
            m.text
          )
        const byDefault = yield* listMessages(owner.key, thread.threadId)
        expect(texts(byDefault)).toEqual(["m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9", "m10", "m11"])
        expect(texts(yield* listMessages(owner.key, thread.threadId, 3))).toEqual(["m9", "m10", "m11"])
        expect(texts(yield* listMessages(owner.key, thread.threadId, 20))).toEqual(Array.from({ length: 12 }, (_, i) => `m${i}`))
        const times = byDefault.map((m) => Date.parse(m.createdAt))
        expect(times).toEqual([...times].sort((a, b) => a - b))
        for (const message of byDefault) {
          expect(message).toMatchObject({ role: "user", status: "pending" })
          expect(message.messageId).toMatch(/^msg_[0-9a-f]{32}$/)
        }
      }))

    it.effect("list_thread_messages: limit is an integer from 1 to 20", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("messages-limit")
        const thread = yield* threadOn(owner.key, owner.cli)
        for (const limit of [21, 0, -1, 2.5, "5"]) {
          yield* failsWith(owner.key, "list_thread_messages", { threadId: thread.threadId, limit }, {
            code: "invalid_argument",
            mentions: "limit"
          })
        }
        expect(yield* listMessages(owner.key, thread.threadId, 1)).toHaveLength(1)
        expect(yield* listMessages(owner.key, thread.threadId, 20)).toHaveLength(1)
      }))

    it.effect("list_thread_messages: a container ID (group or workflow run) is an error", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("messages-container")
        const origin = yield* threadOn(owner.key, owner.cli)
        const groupId = (yield* spawn(owner.key, origin.threadId)).parentThreadId ?? ""
        const run = yield* createWorkflowRun(owner.cli, owner.project.id, "A run")
        for (const threadId of [groupId, run.threadId]) {
          yield* failsWith(owner.key, "list_thread_messages", { threadId }, { code: "invalid_argument", mentions: "threadId" })
        }
      }))

    it.effect("list_thread_messages: an unreadable thread gives an empty list, not an error", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("messages-unreadable")
        const mate = yield* teammate(owner, "mate")
        const theirs = yield* threadOn(mate.key, mate.cli, { content: "private notes" })
        const deleted = yield* threadOn(owner.key, owner.cli)
        yield* softDelete(deleted.threadId)
        const task = yield* createTask(owner.key, owner.project.id, "A task")
        for (const threadId of [missingThreadId, "typo", theirs.threadId, deleted.threadId, task.taskId]) {
          expect(yield* listMessages(owner.key, threadId), threadId).toEqual([])
        }
        // Shared, it is readable.
        yield* share(mate.cli, theirs.threadId)
        expect((yield* listMessages(owner.key, theirs.threadId)).map((m) => m.text)).toEqual(["private notes"])
      }))

    it.effect("list_thread_messages: message text is the agent's text output only (no reasoning, tool calls or tool output)", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("messages-text-only")
        const thread = yield* threadOn(owner.key, owner.cli, { content: "What is in the file?" })
        yield* runToCompletion(owner.cli, thread.threadId, [
          chunks.reasoning("SECRET_REASONING about the file"),
          chunks.text("Let me look."),
          chunks.toolUse("toolu_1", "Bash", { command: "cat SECRET_INPUT.txt" }),
          chunks.toolResult("toolu_1", "SECRET_TOOL_OUTPUT"),
          chunks.text("All done.")
        ])
        const [question, answer, ...rest] = yield* listMessages(owner.key, thread.threadId)
        expect(rest).toEqual([])
        expect(question).toMatchObject({ role: "user", status: "completed", text: "What is in the file?" })
        expect(answer).toMatchObject({ role: "assistant", status: "completed" })
        const text = answer?.text ?? ""
        expect(text.replace(/\s+/g, " ")).toBe("Let me look. All done.")
        for (const secret of ["SECRET", "Bash", "toolu_1", "cat "]) expect(text).not.toContain(secret)
        expect(hasField(answer, "truncated")).toBe(false)
        expect(hasField(answer, "errorMessage")).toBe(false)
      }))

    it.effect("list_thread_messages: a message that only ran tools has empty text, not an error", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("messages-tools-only")
        const thread = yield* threadOn(owner.key, owner.cli, { content: "Run the tests" })
        yield* runToCompletion(owner.cli, thread.threadId, [
          chunks.toolUse("toolu_1", "Bash", { command: "npm test" }),
          chunks.toolResult("toolu_1", "42 passing")
        ])
        const answer = last(yield* listMessages(owner.key, thread.threadId), "messages")
        expect(answer).toMatchObject({ role: "assistant", status: "completed", text: "" })
        expect(hasField(answer, "truncated")).toBe(false)
        expect(hasField(answer, "errorMessage")).toBe(false)
      }))

    it.effect("list_thread_messages: truncated: true marks a message cut at about 4000 characters, and is absent otherwise", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("messages-truncated")
        const longPrompt = `${"p".repeat(4500)}END`
        const thread = yield* threadOn(owner.key, owner.cli, { content: longPrompt })
        const longAnswer = "a".repeat(3000)
        yield* runToCompletion(owner.cli, thread.threadId, [chunks.text(longAnswer), chunks.text("b".repeat(3000))])
        yield* sendMessage(owner.key, { threadId: thread.threadId, content: "short" })

        const [prompt, answer, short] = yield* listMessages(owner.key, thread.threadId)
        for (const cut of [prompt, answer]) {
          expect(cut?.truncated).toBe(true)
          expect(cut?.text.length ?? 0).toBeLessThanOrEqual(4000)
          expect(cut?.text.length ?? 0).toBeGreaterThanOrEqual(3900)
        }
        expect(prompt?.text.startsWith("pppp")).toBe(true)
        expect(prompt?.text).not.toContain("END")
        expect(answer?.text.startsWith(longAnswer)).toBe(true)
        expect(short?.text).toBe("short")
        expect(hasField(short, "truncated")).toBe(false)

        // Exactly at the cap nothing is cut.
        const exact = yield* threadOn(owner.key, owner.cli, { content: "x".repeat(4000) })
        const [whole] = yield* listMessages(owner.key, exact.threadId)
        expect(whole?.text).toHaveLength(4000)
        expect(hasField(whole, "truncated")).toBe(false)
      }))

    it.effect("list_thread_messages: status streaming means text is what has arrived so far", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("messages-streaming")
        const thread = yield* threadOn(owner.key, owner.cli, { content: "Explain" })
        const run = yield* startStreaming(owner.cli, thread.threadId, [chunks.reasoning("hmm"), chunks.text("The first part.")])
        const streaming = last(yield* listMessages(owner.key, thread.threadId), "messages")
        expect(streaming).toMatchObject({
          messageId: run.assistantMessageId,
          role: "assistant",
          status: "streaming",
          text: "The first part."
        })

        yield* upload(owner.cli, thread.threadId, run.epoch, run.assistantMessageId, [chunks.text("The second part.")], 2)
        const more = last(yield* listMessages(owner.key, thread.threadId), "messages")
        expect(more.status).toBe("streaming")
        expect(more.text.replace(/\s+/g, " ")).toBe("The first part. The second part.")

        yield* complete(owner.cli, thread.threadId, run.epoch, run.assistantMessageId)
        const done = last(yield* listMessages(owner.key, thread.threadId), "messages")
        expect(done.status).toBe("completed")
        expect(done.text).toBe(more.text)
      }))

    it.effect("list_thread_messages: a failed run keeps its text and carries errorMessage", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("messages-failed")
        const thread = yield* threadOn(owner.key, owner.cli)
        yield* runToFailure(owner.cli, thread.threadId, [chunks.text("Partial answer")], "The runtime crashed")
        const answer = last(yield* listMessages(owner.key, thread.threadId), "messages")
        expect(answer).toMatchObject({ role: "assistant", status: "failed", text: "Partial answer", errorMessage: "The runtime crashed" })
        expect((yield* getOrdinary(owner.key, thread.threadId)).status).toBe("failed")
      }))

    it.effect("list_thread_messages: sentBy is present when another thread's agent queued the message", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("messages-sent-by")
        const sender = yield* threadOn(owner.key, owner.cli, { content: "Coordinate the release" })
        const receiver = yield* threadOn(owner.key, owner.cli, { content: "Write the changelog" })
        yield* sendMessage(owner.key, { threadId: receiver.threadId, content: "Changelog is due by noon", sourceThreadId: sender.threadId })
        yield* sendMessage(owner.key, { threadId: receiver.threadId, content: "From a person" })
        const [initial, fromAgent, fromPerson] = yield* listMessages(owner.key, receiver.threadId)
        expect(hasField(initial, "sentBy")).toBe(false)
        expect(fromAgent).toMatchObject({
          text: "Changelog is due by noon",
          sentBy: { threadId: sender.threadId, title: "Coordinate the release" }
        })
        expect(hasField(fromPerson, "sentBy")).toBe(false)
        // The sender's own timeline is unchanged.
        expect((yield* listMessages(owner.key, sender.threadId)).map((m) => m.text)).toEqual(["Coordinate the release"])
        // The CLI is told who sent it.
        const claimed = yield* claim(owner.cli, receiver.threadId)
        const batch = yield* startBatch(owner.cli, receiver.threadId, claimed.epoch)
        expect(batch.messages.map((m) => m.sentByThreadId)).toEqual([null, sender.threadId, null])
      }))

    // ---- send_thread_message ---------------------------------------------------------------

    it.effect("send_thread_message to an own idle thread queues a user message and makes the thread pending", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("send-idle")
        const thread = yield* threadOn(owner.key, owner.cli)
        yield* runToCompletion(owner.cli, thread.threadId, [chunks.text("First answer")])
        expect(yield* getOrdinary(owner.key, thread.threadId)).toMatchObject({
          status: "idle",
          processingState: "idle",
          hasPendingUserMessages: false
        })

        const sent = yield* sendMessage(owner.key, { threadId: thread.threadId, content: "A follow-up" })
        expect(sent).toMatchObject({ threadId: thread.threadId, status: "pending", hasPendingUserMessages: true })
        expect(sent.messageId).toMatch(/^msg_[0-9a-f]{32}$/)
        expect(yield* getOrdinary(owner.key, thread.threadId)).toMatchObject({
          status: "pending",
          processingState: "pending",
          hasPendingUserMessages: true
        })
        const latest = last(yield* listMessages(owner.key, thread.threadId), "messages")
        expect(latest).toMatchObject({ messageId: sent.messageId, role: "user", status: "pending", text: "A follow-up" })

        // The CLI picks it up as a fresh turn.
        const claimed = yield* claim(owner.cli, thread.threadId)
        const batch = yield* startBatch(owner.cli, thread.threadId, claimed.epoch)
        expect(batch.messages.map((m) => m.content)).toEqual(["A follow-up"])
      }))

    it.effect("send_thread_message to a busy (claimed or streaming) thread is not an error: status stays running", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("send-busy")
        const thread = yield* threadOn(owner.key, owner.cli, { content: "m0" })
        const claimed = yield* claim(owner.cli, thread.threadId)
        const whileClaimed = yield* sendMessage(owner.key, { threadId: thread.threadId, content: "m1" })
        expect(whileClaimed).toMatchObject({ status: "running", hasPendingUserMessages: true })
        expect(yield* getOrdinary(owner.key, thread.threadId)).toMatchObject({ status: "running", processingState: "claimed" })

        const first = yield* startBatch(owner.cli, thread.threadId, claimed.epoch)
        expect(first.messages.map((m) => m.content)).toEqual(["m0", "m1"])
        expect((yield* getOrdinary(owner.key, thread.threadId)).hasPendingUserMessages).toBe(false)

        const whileStreaming = yield* sendMessage(owner.key, { threadId: thread.threadId, content: "m2" })
        expect(whileStreaming).toMatchObject({ status: "running", hasPendingUserMessages: true })
        expect(yield* getOrdinary(owner.key, thread.threadId)).toMatchObject({
          status: "running",
          processingState: "streaming",
          hasPendingUserMessages: true
        })

        // It waits for the next turn under the same claim.
        yield* complete(owner.cli, thread.threadId, claimed.epoch, first.assistantMessageId)
        const next = yield* startBatch(owner.cli, thread.threadId, claimed.epoch)
        expect(next.messages.map((m) => m.content)).toEqual(["m2"])
        yield* complete(owner.cli, thread.threadId, claimed.epoch, next.assistantMessageId)
        yield* drain(owner.cli, thread.threadId, claimed.epoch)
        expect((yield* getOrdinary(owner.key, thread.threadId)).status).toBe("idle")
      }))

    it.effect("send_thread_message to an offline target is not an error: the message waits for the CLI", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("send-offline")
        const thread = yield* threadOn(owner.key, owner.cli)
        yield* runToCompletion(owner.cli, thread.threadId, [chunks.text("ok")])
        yield* disconnect(owner.cli)
        const sent = yield* sendMessage(owner.key, { threadId: thread.threadId, content: "While you were away" })
        expect(sent).toMatchObject({ status: "pending", hasPendingUserMessages: true })
        expect(yield* getOrdinary(owner.key, thread.threadId)).toMatchObject({
          status: "pending",
          hasPendingUserMessages: true,
          targetOnline: false
        })
      }))

    it.effect("send_thread_message: a group or workflow run can neither receive nor send", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("send-container")
        const origin = yield* threadOn(owner.key, owner.cli)
        const groupId = (yield* spawn(owner.key, origin.threadId)).parentThreadId ?? ""
        const run = yield* createWorkflowRun(owner.cli, owner.project.id, "A run")
        for (const containerId of [groupId, run.threadId]) {
          yield* failsWith(owner.key, "send_thread_message", { threadId: containerId, content: "hello" }, {
            code: "invalid_argument",
            mentions: "threadId"
          })
          yield* failsWith(owner.key, "send_thread_message", { threadId: origin.threadId, content: "hello", sourceThreadId: containerId }, {
            code: "invalid_argument",
            mentions: "sourceThreadId"
          })
        }
        expect(yield* listMessages(owner.key, origin.threadId)).toHaveLength(1)
      }))

    it.effect("send_thread_message: someone else's thread, even a shared one, is not found as target or source", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("send-foreign")
        const mate = yield* teammate(owner, "mate")
        const theirs = yield* threadOn(mate.key, mate.cli, { content: "theirs" })
        const mine = yield* threadOn(owner.key, owner.cli, { content: "mine" })
        for (const shared of [false, true]) {
          if (shared) yield* share(mate.cli, theirs.threadId)
          yield* failsWith(owner.key, "send_thread_message", { threadId: theirs.threadId, content: "hi" }, {
            code: "not_found",
            mentions: "threadId"
          })
          yield* failsWith(owner.key, "send_thread_message", { threadId: mine.threadId, content: "hi", sourceThreadId: theirs.threadId }, {
            code: "not_found",
            mentions: "sourceThreadId"
          })
        }
        yield* failsWith(owner.key, "send_thread_message", { threadId: missingThreadId, content: "hi" }, {
          code: "not_found",
          mentions: "threadId"
        })
        const deleted = yield* threadOn(owner.key, owner.cli)
        yield* softDelete(deleted.threadId)
        yield* failsWith(owner.key, "send_thread_message", { threadId: deleted.threadId, content: "hi" }, {
          code: "not_found",
          mentions: "threadId"
        })

        expect((yield* listMessages(mate.key, theirs.threadId)).map((m) => m.text)).toEqual(["theirs"])
        expect((yield* listMessages(owner.key, mine.threadId)).map((m) => m.text)).toEqual(["mine"])
      }))

    it.effect("send_thread_message: the source must be in the same project as the target", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("send-span")
        const side = yield* secondProject(owner, "SIDE")
        const here = yield* threadOn(owner.key, owner.cli, { content: "here" })
        const there = yield* threadOn(owner.key, side.cli, { content: "there" })
        const error = yield* failsWith(owner.key, "send_thread_message", {
          threadId: here.threadId,
          content: "hi",
          sourceThreadId: there.threadId
        }, {
          code: "forbidden",
          mentions: "project"
        })
        expect(error.message).toContain("sourceThreadId")
        expect((yield* listMessages(owner.key, here.threadId)).map((m) => m.text)).toEqual(["here"])
        // Within a project it works.
        const neighbour = yield* threadOn(owner.key, owner.cli, { content: "neighbour" })
        const sent = yield* sendMessage(owner.key, { threadId: here.threadId, content: "hi", sourceThreadId: neighbour.threadId })
        expect(sent.hasPendingUserMessages).toBe(true)
      }))

    it.effect("send_thread_message: with runtimeCommand, content must start with /", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("send-command")
        const thread = yield* threadOn(owner.key, owner.cli, { cliType: "opencode" })
        yield* runToCompletion(owner.cli, thread.threadId, [])
        for (const content of ["compact", " /compact"]) {
          yield* failsWith(owner.key, "send_thread_message", { threadId: thread.threadId, content, runtimeCommand: true }, {
            code: "invalid_argument",
            mentions: "runtimeCommand"
          })
        }
        expect((yield* getOrdinary(owner.key, thread.threadId)).hasPendingUserMessages).toBe(false)
        // Sending is how a command reaches runtimes that refuse one on create_thread.
        yield* sendMessage(owner.key, { threadId: thread.threadId, content: "/compact", runtimeCommand: true })
        const claimed = yield* claim(owner.cli, thread.threadId)
        const batch = yield* startBatch(owner.cli, thread.threadId, claimed.epoch)
        expect(batch.messages.map((m) => ({ content: m.content, runtimeCommand: m.runtimeCommand }))).toEqual([
          { content: "/compact", runtimeCommand: true }
        ])
      }))

    it.effect("send_thread_message: threadId and content are required, content not blank", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("send-args")
        const thread = yield* threadOn(owner.key, owner.cli)
        yield* failsWith(owner.key, "send_thread_message", { threadId: thread.threadId }, { code: "invalid_argument", mentions: "content" })
        yield* failsWith(owner.key, "send_thread_message", { threadId: thread.threadId, content: " \n\t" }, {
          code: "invalid_argument",
          mentions: "content"
        })
        yield* failsWith(owner.key, "send_thread_message", { content: "hi" }, { code: "invalid_argument", mentions: "threadId" })
        expect(yield* listMessages(owner.key, thread.threadId)).toHaveLength(1)
      }))
  })
})
