import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { claimThread, claude, complete, connectCli, createThread, listMessages, numbered, startBatch, upload } from "../support/FakeCli.js"
import { TestServer } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"

/** A CLI whose request reached the backend but whose answer was lost sends it again: no harm may follow. */
describe("retried CLI requests", () => {
  layer(TestServer())((it) => {
    it.effect("start-batch sent again before any output hands out the same batch", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("retry-start")
        const cli = yield* connectCli(key, project.id)
        const thread = yield* createThread(key, cli.target, "Do it")
        const claim = yield* claimThread(cli)
        const first = yield* startBatch(cli, claim)
        const again = yield* startBatch(cli, claim)
        expect(again.assistantMessageId).toBe(first.assistantMessageId)
        expect(again.messages.map((m) => m.messageId)).toEqual(first.messages.map((m) => m.messageId))
        yield* upload(cli, claim, first.assistantMessageId, numbered([claude.text("done")]))
        yield* complete(cli, claim, first.assistantMessageId)
        const messages = yield* listMessages(key, thread.threadId)
        expect(messages.map((m) => [m.role, m.status])).toEqual([["user", "completed"], ["assistant", "completed"]])
      }))

    it.effect("complete or fail sent again after the message ended the same way is accepted and changes nothing", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("retry-finish")
        const cli = yield* connectCli(key, project.id)
        const thread = yield* createThread(key, cli.target, "Do it")
        const claim = yield* claimThread(cli)
        const batch = yield* startBatch(cli, claim)
        yield* upload(cli, claim, batch.assistantMessageId, numbered([claude.text("answer")]))
        yield* complete(cli, claim, batch.assistantMessageId)
        yield* complete(cli, claim, batch.assistantMessageId)
        const failedInstead = yield* Effect.flip(cli.client.agent.fail({
          path: { threadId: thread.threadId },
          payload: { sessionId: cli.sessionId, epoch: claim.epoch, messageId: batch.assistantMessageId, errorMessage: "late" }
        }))
        expect(failedInstead._tag).toBe("InvalidArgument")
        expect((yield* listMessages(key, thread.threadId)).map((m) => [m.status, m.text])).toEqual([["completed", "Do it"], [
          "completed",
          "answer"
        ]])
      }))
  })
})
