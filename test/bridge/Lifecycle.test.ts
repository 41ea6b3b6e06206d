import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import { MAX_MESSAGE_TEXT } from "../../catalog/domain/Thread.js"
import type { ProjectId } from "../../catalog/domain/Ids.js"
import {
  type Claim,
  claimThread,
  claude,
  complete,
  connectCli,
  createThread,
  type FakeCli,
  getThread,
  listMessages,
  numbered,
  runBatch,
  sendMessage,
  startBatch,
  threadRecord,
  upload
} from "../support/FakeCli.js"
import { TestServer } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"

/**
 * SPEC "Thread and message lifecycle in the CLI bridge", row by row, played by a fake CLI over
 * the bridge HTTP API while the thread is read back through the MCP thread tools.
 */

const noRateLimit = { rateLimit: Option.none() }

/** A project owner with a registered CLI, and a thread on it. */
const setup = (slug: string, content = "Please fix the build") =>
  Effect.gen(function*() {
    const owner = yield* seedOwner(slug)
    const cli = yield* connectCli(owner.key, owner.project.id)
    const thread = yield* createThread(owner.key, cli.target, content)
    return { ...owner, cli, thread }
  })

const ChunkRow = Schema.Struct({ seq: Schema.Number, type: Schema.String, data: Schema.String, kind: Schema.String })

const storedChunks = (messageId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql`
      SELECT seq, type, data, normalized_event->>'kind' AS kind FROM thread_chunks WHERE message_id = ${messageId} ORDER BY seq`
    return yield* Schema.decodeUnknown(Schema.Array(ChunkRow))(rows)
  }).pipe(Effect.orDie)

describe("thread and message lifecycle in the CLI bridge", () => {
  layer(TestServer(noRateLimit))((it) => {
    it.effect("a user message creates a pending thread holding only that message, with hasPendingUserMessages set", () =>
      Effect.gen(function*() {
        const { key, thread } = yield* setup("life-create", "Write the release notes")
        expect(thread).toMatchObject({ kind: "thread", status: "pending", processingState: "pending", hasPendingUserMessages: true })
        expect(yield* getThread(key, thread.threadId)).toMatchObject({
          status: "pending",
          processingState: "pending",
          hasPendingUserMessages: true,
          queueHeldAt: null,
          targetOnline: true
        })
        const messages = yield* listMessages(key, thread.threadId)
        expect(messages).toHaveLength(1)
        expect(messages[0]).toMatchObject({ role: "user", status: "pending", text: "Write the release notes" })
        const record = yield* threadRecord(thread.threadId)
        expect(record).toMatchObject({ claimedBySessionId: null, activeAssistantMessageId: null, hasPendingUserMessages: true })
      }))

    it.effect("a thread for an offline profile stays queued and is claimed once its CLI connects", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("life-offline")
        const first = yield* connectCli(key, project.id)
        yield* first.client.agent.disconnect({ payload: { sessionId: first.sessionId } })
        const thread = yield* createThread(key, first.target, "Run while I sleep")
        expect(thread).toMatchObject({ status: "pending", targetOnline: false, hasPendingUserMessages: true })
        const again = yield* connectCli(key, project.id, { profileId: first.profile.profileId })
        expect(again.target).toEqual(first.target)
        expect((yield* getThread(key, thread.threadId)).targetOnline).toBe(true)
        const claimed = yield* claimThread(again)
        expect(claimed.threadId).toBe(thread.threadId)
      }))

    it.effect("claiming a pending thread records the claiming session, the claim time and a lease; no other claim takes it", () =>
      Effect.gen(function*() {
        const { key, cli, thread } = yield* setup("life-claim")
        const before = Date.now()
        const claim = yield* claimThread(cli)
        const after = Date.now()
        expect(claim).toMatchObject({ threadId: thread.threadId, cliType: "claude", pathId: cli.target.pathId, path: "/home/dev/project" })
        expect(claim.epoch).toBeGreaterThanOrEqual(1)
        const lease = Date.parse(claim.leaseExpiresAt)
        expect(lease).toBeGreaterThanOrEqual(before + cli.timings.claimLeaseMs - 2_000)
        expect(lease).toBeLessThanOrEqual(after + cli.timings.claimLeaseMs + 2_000)

        expect(yield* getThread(key, thread.threadId)).toMatchObject({ status: "running", processingState: "claimed" })
        const record = yield* threadRecord(thread.threadId)
        expect(record.claimedBySessionId).toBe(cli.sessionId)
        expect(record.claimEpoch).toBe(claim.epoch)
        expect(record.claimedAt?.getTime()).toBeGreaterThanOrEqual(before - 2_000)
        expect(record.claimedAt?.getTime()).toBeLessThanOrEqual(after + 2_000)
        expect(record.claimLeaseExpiresAt?.toISOString()).toBe(claim.leaseExpiresAt)

        // Held by this session: neither a targeted nor an untargeted claim gets it again.
        expect((yield* cli.client.agent.claim({ payload: { sessionId: cli.sessionId, threadId: thread.threadId } })).thread).toBeNull()
        expect((yield* cli.client.agent.claim({ payload: { sessionId: cli.sessionId } })).thread).toBeNull()
        expect((yield* threadRecord(thread.threadId)).claimEpoch).toBe(claim.epoch)
      }))

    it.effect("starting a batch creates exactly one assistant envelope and returns the unprocessed user messages", () =>
      Effect.gen(function*() {
        const { key, cli, thread } = yield* setup("life-batch", "First question")
        yield* sendMessage(key, thread.threadId, "Second question")
        const users = yield* listMessages(key, thread.threadId)
        expect(users.map((m) => [m.role, m.text])).toEqual([["user", "First question"], ["user", "Second question"]])

        const claim = yield* claimThread(cli)
        const batch = yield* startBatch(cli, claim)
        expect(batch.messages.map((m) => m.content)).toEqual(["First question", "Second question"])
        expect(batch.messages.map((m) => m.messageId)).toEqual(users.map((m) => m.messageId))

        const messages = yield* listMessages(key, thread.threadId)
        const assistants = messages.filter((m) => m.role === "assistant")
        expect(assistants).toHaveLength(1)
        expect(assistants[0]).toMatchObject({ messageId: batch.assistantMessageId, status: "streaming", text: "" })
        expect(messages).toHaveLength(3)
        expect(yield* getThread(key, thread.threadId)).toMatchObject({
          status: "running",
          processingState: "streaming",
          hasPendingUserMessages: false
        })
        expect((yield* threadRecord(thread.threadId)).activeAssistantMessageId).toBe(batch.assistantMessageId)
      }))

    it.effect("each runtime line is stored as a raw chunk with its normalized event; message text comes from text events only", () =>
      Effect.gen(function*() {
        const { key, cli, thread } = yield* setup("life-chunks")
        const claim = yield* claimThread(cli)
        const batch = yield* startBatch(cli, claim)
        const lines = [
          claude.init(),
          claude.thinking("SECRET-REASONING about the build"),
          claude.text("Let me look at the build."),
          claude.toolUse("toolu_1", "Bash", { command: "npm run build-TOOL-INPUT" }),
          claude.toolResult("toolu_1", "TOOL-OUTPUT: build ok"),
          claude.text("The build passes now."),
          claude.result("The build passes now.")
        ]
        const chunks = numbered(lines)
        expect(yield* upload(cli, claim, batch.assistantMessageId, chunks)).toEqual({ accepted: 7, duplicates: 0 })

        const stored = yield* storedChunks(batch.assistantMessageId)
        expect(stored.map(({ seq, type, data }) => ({ seq, type, data }))).toEqual(chunks)
        expect(stored.map((c) => c.kind)).toEqual(["metadata", "reasoning", "text", "tool-input", "tool-output", "text", "metadata"])

        for (const phase of ["streaming", "completed"] as const) {
          if (phase === "completed") yield* complete(cli, claim, batch.assistantMessageId)
          const answer = (yield* listMessages(key, thread.threadId)).find((m) => m.role === "assistant")
          expect(answer?.status).toBe(phase)
          expect(answer?.text).toContain("Let me look at the build.")
          expect(answer?.text).toContain("The build passes now.")
          expect(answer?.text.indexOf("Let me look")).toBeLessThan(answer?.text.indexOf("The build passes") ?? -1)
          for (const hidden of ["SECRET-REASONING", "TOOL-INPUT", "TOOL-OUTPUT", "toolu_1", "Bash"]) {
            expect(answer?.text).not.toContain(hidden)
          }
        }
      }))

    it.effect("a successful batch completes the assistant message and returns the thread to claimed (running)", () =>
      Effect.gen(function*() {
        const { key, cli, thread } = yield* setup("life-success")
        const claim = yield* claimThread(cli)
        const batch = yield* runBatch(cli, claim, ["Fixed: the import path was wrong."])
        if (batch.drained) return expect.fail("expected a batch")

        const messages = yield* listMessages(key, thread.threadId)
        expect(messages.map((m) => m.role)).toEqual(["user", "assistant"])
        expect(messages[1]).toMatchObject({
          messageId: batch.assistantMessageId,
          status: "completed",
          text: "Fixed: the import path was wrong."
        })
        expect(messages[1]?.errorMessage).toBeUndefined()
        expect(yield* getThread(key, thread.threadId)).toMatchObject({ status: "running", processingState: "claimed" })
        const record = yield* threadRecord(thread.threadId)
        expect(record).toMatchObject({ claimedBySessionId: cli.sessionId, claimEpoch: claim.epoch, activeAssistantMessageId: null })
      }))

    it.effect("a failed batch marks the assistant message failed with its error, and the thread failed", () =>
      Effect.gen(function*() {
        const { key, cli, thread } = yield* setup("life-fail")
        const claim = yield* claimThread(cli)
        const batch = yield* startBatch(cli, claim)
        yield* upload(cli, claim, batch.assistantMessageId, numbered([claude.init(), claude.text("Starting on it")]))
        yield* cli.client.agent.fail({
          path: { threadId: thread.threadId },
          payload: {
            sessionId: cli.sessionId,
            epoch: claim.epoch,
            messageId: batch.assistantMessageId,
            errorMessage: "claude exited with code 1"
          }
        })
        const answer = (yield* listMessages(key, thread.threadId)).find((m) => m.role === "assistant")
        expect(answer).toMatchObject({
          messageId: batch.assistantMessageId,
          status: "failed",
          errorMessage: "claude exited with code 1",
          text: "Starting on it"
        })
        expect(yield* getThread(key, thread.threadId)).toMatchObject({ status: "failed", processingState: "claimed" })
        expect((yield* threadRecord(thread.threadId)).activeAssistantMessageId).toBeNull()
      }))

    it.effect("retry requeues the failed batch's user messages, removes the failed answer and makes the thread pending", () =>
      Effect.gen(function*() {
        const { key, cli, thread } = yield* setup("life-retry", "Do the thing")
        yield* sendMessage(key, thread.threadId, "And the other thing")
        const claim = yield* claimThread(cli)
        const failed = yield* startBatch(cli, claim)
        yield* upload(cli, claim, failed.assistantMessageId, numbered([claude.text("FAILED-ATTEMPT text")]))
        yield* cli.client.agent.fail({
          path: { threadId: thread.threadId },
          payload: { sessionId: cli.sessionId, epoch: claim.epoch, messageId: failed.assistantMessageId, errorMessage: "API error 529" }
        })
        // The CLI asks for more work: none waits, so the claim ends with the thread failed.
        expect(yield* runBatch(cli, claim, [])).toEqual({ drained: true })
        expect(yield* getThread(key, thread.threadId)).toMatchObject({ status: "failed", hasPendingUserMessages: false })

        const retried = yield* cli.client.threads.retry({ path: { threadId: thread.threadId } })
        expect(retried).toMatchObject({
          threadId: thread.threadId,
          status: "pending",
          processingState: "pending",
          hasPendingUserMessages: true
        })
        const requeued = yield* listMessages(key, thread.threadId)
        expect(requeued.map((m) => [m.role, m.text])).toEqual([["user", "Do the thing"], ["user", "And the other thing"]])
        expect(requeued.map((m) => m.messageId)).toEqual(failed.messages.map((m) => m.messageId))

        const again = yield* claimThread(cli)
        expect(again.epoch).toBeGreaterThan(claim.epoch)
        const batch = yield* runBatch(cli, again, ["Both done."])
        if (batch.drained) return expect.fail("expected the requeued messages")
        expect(batch.messages.map((m) => m.messageId)).toEqual(failed.messages.map((m) => m.messageId))
        const final = yield* listMessages(key, thread.threadId)
        expect(final.map((m) => [m.role, m.status === "completed" || m.role === "user", m.text])).toEqual([
          ["user", true, "Do the thing"],
          ["user", true, "And the other thing"],
          ["assistant", true, "Both done."]
        ])
        expect(final.some((m) => m.messageId === failed.assistantMessageId || m.text.includes("FAILED-ATTEMPT"))).toBe(false)
        expect(yield* storedChunks(failed.assistantMessageId)).toEqual([])
      }))

    it.effect("retry while the CLI still holds the claim requeues the messages into that claim's next batch", () =>
      Effect.gen(function*() {
        const { key, cli, thread } = yield* setup("life-retry-claimed", "Try once more")
        const claim = yield* claimThread(cli)
        const failed = yield* startBatch(cli, claim)
        yield* cli.client.agent.fail({
          path: { threadId: thread.threadId },
          payload: { sessionId: cli.sessionId, epoch: claim.epoch, messageId: failed.assistantMessageId, errorMessage: "rate limited" }
        })
        const retried = yield* cli.client.threads.retry({ path: { threadId: thread.threadId } })
        expect(retried).toMatchObject({ hasPendingUserMessages: true })
        expect((yield* listMessages(key, thread.threadId)).map((m) => m.role)).toEqual(["user"])
        const batch = yield* startBatch(cli, claim)
        expect(batch.messages.map((m) => m.messageId)).toEqual(failed.messages.map((m) => m.messageId))
        yield* upload(cli, claim, batch.assistantMessageId, numbered([claude.text("Second try worked.")]))
        yield* complete(cli, claim, batch.assistantMessageId)
        expect((yield* listMessages(key, thread.threadId)).map((m) => [m.role, m.text])).toEqual([
          ["user", "Try once more"],
          ["assistant", "Second try worked."]
        ])
        expect(yield* getThread(key, thread.threadId)).toMatchObject({ status: "running", processingState: "claimed" })
      }))

    it.effect("every path that abandons a streaming batch fails its answer and clears activeAssistantMessageId", () =>
      Effect.gen(function*() {
        interface Streaming {
          readonly key: string
          readonly projectId: ProjectId
          readonly cli: FakeCli
          readonly claim: Claim
        }
        // Each path's reason is the failed answer's errorMessage (src/bridge/ClaimLeases.ts, AgentSessions.ts).
        const abandon = {
          release: {
            reason: "The CLI released the thread mid-run",
            end: ({ claim, cli }: Streaming) =>
              cli.client.agent.release({ path: { threadId: claim.threadId }, payload: { sessionId: cli.sessionId, epoch: claim.epoch } })
          },
          disconnect: {
            reason: "The CLI session ended (disconnected)",
            end: ({ cli }: Streaming) => cli.client.agent.disconnect({ payload: { sessionId: cli.sessionId } })
          },
          "force re-register": {
            reason: "The CLI session ended (replaced)",
            end: ({ cli, key, projectId }: Streaming) => connectCli(key, projectId, { profileId: cli.profile.profileId, force: true })
          }
        }
        for (const [path, { end, reason }] of Object.entries(abandon)) {
          const { key, project, cli, thread } = yield* setup(`life-abandon-${path.replaceAll(" ", "-")}`)
          const claim = yield* claimThread(cli)
          const batch = yield* startBatch(cli, claim)
          yield* upload(cli, claim, batch.assistantMessageId, numbered([claude.text(`partial before ${path}`)]))
          yield* end({ key, projectId: project.id, cli, claim })
          const record = yield* threadRecord(thread.threadId)
          // Nothing waits (the batch's user message failed with it): the thread rests idle.
          expect({ path, ...record }).toMatchObject({
            path,
            activeAssistantMessageId: null,
            claimedBySessionId: null,
            processingState: "idle",
            hasPendingUserMessages: false
          })
          const messages = yield* listMessages(key, thread.threadId)
          expect({ path, messages: messages.map((m) => [m.role, m.status, m.text, m.errorMessage ?? null]) }).toEqual({
            path,
            messages: [["user", "failed", "Please fix the build", null], ["assistant", "failed", `partial before ${path}`, reason]]
          })
          expect({ path, status: (yield* getThread(key, thread.threadId)).status }).toEqual({ path, status: "failed" })
        }
      }))

    it.effect("a new batch while an unfinished one has output fails the old answer with its user messages; the new batch is the active one", () =>
      Effect.gen(function*() {
        const { key, cli, thread } = yield* setup("life-new-batch", "First request")
        const claim = yield* claimThread(cli)
        const first = yield* startBatch(cli, claim)
        yield* upload(cli, claim, first.assistantMessageId, numbered([claude.text("half an answer")]))
        const waiting = yield* sendMessage(key, thread.threadId, "Second request")

        // The CLI lost track of the first batch (a crashed worker) and asks for the next one.
        const second = yield* startBatch(cli, claim)
        expect(second.messages.map((m) => m.messageId)).toEqual([waiting.messageId])
        expect(second.assistantMessageId).not.toBe(first.assistantMessageId)
        expect(yield* threadRecord(thread.threadId)).toMatchObject({
          claimedBySessionId: cli.sessionId,
          claimEpoch: claim.epoch,
          activeAssistantMessageId: second.assistantMessageId,
          processingState: "streaming"
        })
        const messages = yield* listMessages(key, thread.threadId)
        expect(messages.map((m) => [m.role, m.status, m.text, m.errorMessage ?? null])).toEqual([
          ["user", "failed", "First request", null],
          ["assistant", "failed", "half an answer", "The CLI started a new batch without finishing this one"],
          ["user", "streaming", "Second request", null],
          ["assistant", "streaming", "", null]
        ])
      }))

    it.effect("a new batch while an unfinished one has output and nothing else waits fails the old answer, releases the claim and clears activeAssistantMessageId", () =>
      Effect.gen(function*() {
        const { key, cli, thread } = yield* setup("life-new-batch-drained", "Only request")
        const claim = yield* claimThread(cli)
        const first = yield* startBatch(cli, claim)
        yield* upload(cli, claim, first.assistantMessageId, numbered([claude.text("half an answer")]))

        expect(yield* runBatch(cli, claim, [])).toEqual({ drained: true })
        expect(yield* threadRecord(thread.threadId)).toMatchObject({
          claimedBySessionId: null,
          activeAssistantMessageId: null,
          processingState: "idle"
        })
        expect((yield* listMessages(key, thread.threadId)).map((m) => [m.role, m.status, m.errorMessage ?? null])).toEqual([
          ["user", "failed", null],
          ["assistant", "failed", "The CLI started a new batch without finishing this one"]
        ])
        expect((yield* getThread(key, thread.threadId)).status).toBe("failed")
      }))

    it.effect("retry is refused when the thread's latest run did not fail", () =>
      Effect.gen(function*() {
        const { cli, thread } = yield* setup("life-retry-ok")
        const claim = yield* claimThread(cli)
        yield* runBatch(cli, claim, ["All good."])
        const error = yield* Effect.flip(cli.client.threads.retry({ path: { threadId: thread.threadId } }))
        expect(error._tag).toBe("Conflict")
      }))

    it.effect("user messages sent while a batch streams are not in it; they come as the next batch under the same claim", () =>
      Effect.gen(function*() {
        const { key, cli, thread } = yield* setup("life-midrun", "Start the migration")
        const claim = yield* claimThread(cli)
        const first = yield* startBatch(cli, claim)
        expect(first.messages.map((m) => m.content)).toEqual(["Start the migration"])
        yield* upload(cli, claim, first.assistantMessageId, numbered([claude.text("Migrating…")]))

        const sent = yield* sendMessage(key, thread.threadId, "Also update the docs")
        expect(sent.hasPendingUserMessages).toBe(true)
        expect(yield* getThread(key, thread.threadId)).toMatchObject({
          status: "running",
          processingState: "streaming",
          hasPendingUserMessages: true
        })
        yield* complete(cli, claim, first.assistantMessageId)
        expect((yield* threadRecord(thread.threadId)).claimEpoch).toBe(claim.epoch)

        const second = yield* startBatch(cli, claim)
        expect(second.messages.map((m) => m.content)).toEqual(["Also update the docs"])
        expect(second.messages.map((m) => m.messageId)).toEqual([sent.messageId])
        expect(second.assistantMessageId).not.toBe(first.assistantMessageId)
        yield* upload(cli, claim, second.assistantMessageId, numbered([claude.text("Docs updated.")]))
        yield* complete(cli, claim, second.assistantMessageId)
        expect((yield* listMessages(key, thread.threadId)).map((m) => [m.role, m.text])).toEqual([
          ["user", "Start the migration"],
          ["assistant", "Migrating…"],
          ["user", "Also update the docs"],
          ["assistant", "Docs updated."]
        ])
      }))

    it.effect("when the queue drains the thread goes idle, the claim is released and activeAssistantMessageId is cleared", () =>
      Effect.gen(function*() {
        const { key, cli, thread } = yield* setup("life-drain")
        const claim = yield* claimThread(cli)
        yield* runBatch(cli, claim, ["Done."])
        expect(yield* runBatch(cli, claim, ["never sent"])).toEqual({ drained: true })

        expect(yield* getThread(key, thread.threadId)).toMatchObject({
          status: "idle",
          processingState: "idle",
          hasPendingUserMessages: false
        })
        expect(yield* threadRecord(thread.threadId)).toMatchObject({
          claimedBySessionId: null,
          claimedAt: null,
          claimLeaseExpiresAt: null,
          activeAssistantMessageId: null,
          hasPendingUserMessages: false
        })
        expect((yield* cli.client.agent.claim({ payload: { sessionId: cli.sessionId } })).thread).toBeNull()
        const renewed = yield* Effect.flip(cli.client.agent.renew({
          path: { threadId: thread.threadId },
          payload: { sessionId: cli.sessionId, epoch: claim.epoch }
        }))
        expect(renewed._tag).toBe("ClaimLost")

        // A message to the idle thread makes it pending and claimable again, under a newer epoch.
        const sent = yield* sendMessage(key, thread.threadId, "One more thing")
        expect(sent).toMatchObject({ status: "pending", hasPendingUserMessages: true })
        const next = yield* claimThread(cli)
        expect(next.threadId).toBe(thread.threadId)
        expect(next.epoch).toBeGreaterThan(claim.epoch)
      }))

    it.effect("a streaming message's text is what has arrived so far, with status streaming", () =>
      Effect.gen(function*() {
        const { key, cli, thread } = yield* setup("life-streaming")
        const claim = yield* claimThread(cli)
        const batch = yield* startBatch(cli, claim)
        const latest = Effect.map(listMessages(key, thread.threadId), (messages) => messages.at(-1))

        yield* upload(cli, claim, batch.assistantMessageId, numbered([claude.init(), claude.text("First part.")]))
        expect(yield* latest).toMatchObject({ role: "assistant", status: "streaming", text: "First part." })

        yield* upload(cli, claim, batch.assistantMessageId, numbered([claude.toolUse("t1", "Read", {}), claude.text("Second part.")], 2))
        const more = yield* latest
        expect(more?.status).toBe("streaming")
        expect(more?.text).toContain("First part.")
        expect(more?.text).toContain("Second part.")
        expect(more?.truncated).toBeUndefined()

        yield* complete(cli, claim, batch.assistantMessageId)
        const done = yield* latest
        expect(done?.status).toBe("completed")
        expect(done?.text).toBe(more?.text)
      }))

    it.effect("message text is capped at about 4000 characters and marked truncated: true", () =>
      Effect.gen(function*() {
        const longPrompt = "p".repeat(2_500) + "q".repeat(2_500)
        const { key, cli, thread } = yield* setup("life-cap", longPrompt)
        const claim = yield* claimThread(cli)
        const batch = yield* startBatch(cli, claim)
        const longAnswer = "a".repeat(3_000) + "b".repeat(3_000)
        yield* upload(cli, claim, batch.assistantMessageId, numbered([claude.text(longAnswer)]))

        const check = Effect.gen(function*() {
          const [prompt, answer] = yield* listMessages(key, thread.threadId)
          expect(prompt?.truncated).toBe(true)
          expect(prompt?.text.length).toBeLessThanOrEqual(MAX_MESSAGE_TEXT)
          expect(prompt?.text.length).toBeGreaterThan(MAX_MESSAGE_TEXT - 100)
          expect(longPrompt.startsWith(prompt?.text ?? "-")).toBe(true)
          expect(answer?.truncated).toBe(true)
          expect(answer?.text.length).toBeLessThanOrEqual(MAX_MESSAGE_TEXT)
          expect(answer?.text.length).toBeGreaterThan(MAX_MESSAGE_TEXT - 100)
          expect(longAnswer.startsWith(answer?.text ?? "-")).toBe(true)
          return answer?.status
        })
        expect(yield* check).toBe("streaming")
        yield* complete(cli, claim, batch.assistantMessageId)
        expect(yield* check).toBe("completed")

        // A message that fits is not marked.
        yield* sendMessage(key, thread.threadId, "short")
        const last = (yield* listMessages(key, thread.threadId)).at(-1)
        expect(last).toMatchObject({ text: "short" })
        expect(last?.truncated).toBeUndefined()
      }))

    it.effect("a held queue cannot be claimed until the hold is released", () =>
      Effect.gen(function*() {
        const { key, cli, thread } = yield* setup("life-hold")
        const held = yield* cli.client.threads.setQueueHeld({ path: { threadId: thread.threadId }, payload: { held: true } })
        expect(held).toMatchObject({ threadId: thread.threadId, hasPendingUserMessages: true })
        expect(held.kind === "thread" ? held.queueHeldAt : null).not.toBeNull()
        expect((yield* getThread(key, thread.threadId)).queueHeldAt).not.toBeNull()

        expect((yield* cli.client.agent.claim({ payload: { sessionId: cli.sessionId } })).thread).toBeNull()
        expect((yield* cli.client.agent.claim({ payload: { sessionId: cli.sessionId, threadId: thread.threadId } })).thread).toBeNull()
        expect((yield* threadRecord(thread.threadId)).claimedBySessionId).toBeNull()

        const released = yield* cli.client.threads.setQueueHeld({ path: { threadId: thread.threadId }, payload: { held: false } })
        expect(released.kind === "thread" ? released.queueHeldAt : "not a thread").toBeNull()
        const claim = yield* claimThread(cli)
        expect(claim.threadId).toBe(thread.threadId)
      }))
  })
})
