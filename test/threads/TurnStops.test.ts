import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { CLI_STOPPED_TYPE } from "../../catalog/bridge/AgentApi.js"
import { normalizeChunk } from "../../src/threads/normalizers/normalize.js"
import { composeEvents } from "../../catalog/events/compose.js"
import { bridgeClient, registerCli } from "../support/FakeCli.js"
import { callTool, TestServer } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"

/** A registered CLI holding one claimed thread with a streaming batch. */
const streamingThread = (slug: string) =>
  Effect.gen(function*() {
    const owner = yield* seedOwner(slug)
    const cli = yield* bridgeClient(owner.key)
    const { profile, sessionId } = yield* registerCli(cli, owner.project.id)
    const pathId = profile.paths[0]?.pathId ?? ""
    yield* callTool(owner.key, "create_thread", { content: "sleep for a while", profileId: profile.profileId, pathId, cliType: "claude" })
    const claim = yield* cli.agent.claim({ payload: { sessionId } })
    const thread = claim.thread
    if (thread === null) return yield* Effect.dieMessage("nothing to claim")
    const batch = yield* cli.agent.startBatch({ path: { threadId: thread.threadId }, payload: { sessionId, epoch: thread.epoch } })
    if (batch.drained) return yield* Effect.dieMessage("drained")
    return { owner, cli, sessionId, thread, batch }
  })

describe("stopping a running turn", () => {
  it.layer(TestServer())("POST /api/threads/:id/stop", (it) => {
    it.effect("the owner's stop reaches the CLI's long poll of the running turn", () =>
      Effect.gen(function*() {
        const { batch, cli, thread } = yield* streamingThread("stop-owner")
        const messageId = batch.assistantMessageId
        const waiting = yield* Effect.fork(
          cli.agent.awaitStop({ path: { threadId: thread.threadId }, urlParams: { messageId, waitMs: 10_000 } })
        )
        const stopped = yield* cli.threads.stop({ path: { threadId: thread.threadId } })
        expect(stopped).toEqual({ stopRequested: true, messageId })
        expect(yield* Fiber.join(waiting)).toEqual({ stopRequested: true })
      }))

    it.effect("a stop asked twice is one stop: the second returns the same turn", () =>
      Effect.gen(function*() {
        const { batch, cli, thread } = yield* streamingThread("stop-twice")
        yield* cli.threads.stop({ path: { threadId: thread.threadId } })
        const again = yield* cli.threads.stop({ path: { threadId: thread.threadId } })
        expect(again).toEqual({ stopRequested: true, messageId: batch.assistantMessageId })
      }))

    it.effect("a thread running nothing is left as it is: stopRequested false, and the next turn is not stopped", () =>
      Effect.gen(function*() {
        const { batch, cli, sessionId, thread } = yield* streamingThread("stop-idle")
        yield* cli.agent.complete({
          path: { threadId: thread.threadId },
          payload: { sessionId, epoch: thread.epoch, messageId: batch.assistantMessageId }
        })
        const stopped = yield* cli.threads.stop({ path: { threadId: thread.threadId } })
        expect(stopped).toEqual({ stopRequested: false, messageId: null })
        const ended = yield* cli.agent.awaitStop({
          path: { threadId: thread.threadId },
          urlParams: { messageId: batch.assistantMessageId, waitMs: 10_000 }
        })
        expect(ended).toEqual({ stopRequested: false })
      }))

    it.effect("the CLI's wait returns as soon as the turn ends without a stop", () =>
      Effect.gen(function*() {
        const { batch, cli, sessionId, thread } = yield* streamingThread("stop-ended")
        const messageId = batch.assistantMessageId
        const waiting = yield* Effect.fork(
          cli.agent.awaitStop({ path: { threadId: thread.threadId }, urlParams: { messageId, waitMs: 20_000 } })
        )
        yield* cli.agent.complete({ path: { threadId: thread.threadId }, payload: { sessionId, epoch: thread.epoch, messageId } })
        expect(yield* Fiber.join(waiting)).toEqual({ stopRequested: false })
      }))

    it.effect("only the thread's owner can stop it: another user's stop is not found", () =>
      Effect.gen(function*() {
        const { cli, thread } = yield* streamingThread("stop-stranger-owner")
        const other = yield* seedOwner("stop-stranger")
        const stranger = yield* bridgeClient(other.key)
        const error = yield* Effect.flip(stranger.threads.stop({ path: { threadId: thread.threadId } }))
        expect(error._tag).toBe("NotFound")
        const untouched = yield* cli.agent.awaitStop({ path: { threadId: thread.threadId }, urlParams: { messageId: "none", waitMs: 0 } })
          .pipe(Effect.flip)
        expect(untouched._tag).toBe("NotFound")
      }))

    it.effect("another user cannot wait on a turn's stop (not found)", () =>
      Effect.gen(function*() {
        const { batch, thread } = yield* streamingThread("stop-wait-owner")
        const other = yield* seedOwner("stop-wait-stranger")
        const stranger = yield* bridgeClient(other.key)
        const error = yield* Effect.flip(
          stranger.agent.awaitStop({ path: { threadId: thread.threadId }, urlParams: { messageId: batch.assistantMessageId, waitMs: 0 } })
        )
        expect(error._tag).toBe("NotFound")
      }))
  })

  it("the CLI's stopped line makes the turn Stopped (turnStopped), as Codex's own interrupted turn does", () => {
    const stopped = normalizeChunk({ cliType: "claude" }, CLI_STOPPED_TYPE, JSON.stringify({ message: "Stopped by you" }))
    expect(composeEvents([stopped]).session.turnStopped).toBe(true)
    const interrupted = normalizeChunk(
      { cliType: "codex", transport: "app-server" },
      "turn/completed",
      JSON.stringify({
        method: "turn/completed",
        params: { threadId: "t", turn: { id: "u", status: "interrupted", error: null, durationMs: 5, items: [] } }
      })
    )
    expect(composeEvents([interrupted]).session.turnStopped).toBe(true)
  })
})
