import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { bridgeClient, realSleep, registerCli } from "../support/FakeCli.js"
import { callTool, TestServer } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"

const structured = (json: unknown): Record<string, unknown> =>
  Object(Reflect.get(Object(Reflect.get(Object(json), "result")), "structuredContent"))

/** A registered CLI holding one claimed thread with a streaming batch. */
const streamingThread = (slug: string) =>
  Effect.gen(function*() {
    const owner = yield* seedOwner(slug)
    const cli = yield* bridgeClient(owner.key)
    const { profile, sessionId } = yield* registerCli(cli, owner.project.id)
    const pathId = profile.paths[0]?.pathId ?? ""
    yield* callTool(owner.key, "create_thread", { content: "touch a file", profileId: profile.profileId, pathId, cliType: "opencode" })
    const claim = yield* cli.agent.claim({ payload: { sessionId } })
    const thread = claim.thread
    if (thread === null) return yield* Effect.dieMessage("nothing to claim")
    const batch = yield* cli.agent.startBatch({ path: { threadId: thread.threadId }, payload: { sessionId, epoch: thread.epoch } })
    if (batch.drained) return yield* Effect.dieMessage("drained")
    return { owner, cli, profile, sessionId, thread, batch, pathId }
  })

describe("interactions and worktrees", () => {
  it.layer(TestServer())("interaction bridge", (it) => {
    it.effect("a runtime's permission request waits for the owner's answer, which the CLI's long poll returns", () =>
      Effect.gen(function*() {
        const { cli, owner, sessionId, thread } = yield* streamingThread("ask-answer")
        const request = { tool: "bash", input: { command: "touch x" } }
        const asked = yield* cli.agent.requestInteraction({
          path: { threadId: thread.threadId },
          payload: { sessionId, epoch: thread.epoch, kind: "permission", request }
        })
        expect(asked).toMatchObject({ status: "pending", kind: "permission", request, answer: null })
        expect(structured((yield* callTool(owner.key, "get_thread", { threadId: thread.threadId })).json)["hasPendingInteraction"]).toBe(
          true
        )
        const pending = yield* cli.threads.pendingInteractions({ path: { threadId: thread.threadId } })
        expect(pending.interactions.map((i) => i.interactionId)).toEqual([asked.interactionId])

        const waiting = yield* Effect.fork(
          cli.agent.awaitInteraction({ path: { interactionId: asked.interactionId }, urlParams: { waitMs: 10_000 } })
        )
        const answered = yield* cli.threads.answerInteraction({
          path: { interactionId: asked.interactionId },
          payload: { answer: { reply: "once" } }
        })
        expect(answered).toMatchObject({ status: "answered", answer: { reply: "once" } })
        expect(yield* Fiber.join(waiting)).toMatchObject({ status: "answered", answer: { reply: "once" } })
        expect(structured((yield* callTool(owner.key, "get_thread", { threadId: thread.threadId })).json)["hasPendingInteraction"]).toBe(
          false
        )
      }))

    it.effect("answering twice is idempotent: the first answer stands", () =>
      Effect.gen(function*() {
        const { cli, sessionId, thread } = yield* streamingThread("ask-twice")
        const asked = yield* cli.agent.requestInteraction({
          path: { threadId: thread.threadId },
          payload: { sessionId, epoch: thread.epoch, kind: "question", request: { questions: [{ question: "Which color?" }] } }
        })
        yield* cli.threads.answerInteraction({ path: { interactionId: asked.interactionId }, payload: { answer: [["blue"]] } })
        const again = yield* cli.threads.answerInteraction({ path: { interactionId: asked.interactionId }, payload: { deny: true } })
        expect(again).toMatchObject({ status: "answered", answer: [["blue"]] })
      }))

    it.effect("a request still pending when the batch ends expires with it", () =>
      Effect.gen(function*() {
        const { batch, cli, sessionId, thread } = yield* streamingThread("ask-expire")
        const asked = yield* cli.agent.requestInteraction({
          path: { threadId: thread.threadId },
          payload: { sessionId, epoch: thread.epoch, kind: "permission", request: {} }
        })
        yield* cli.agent.complete({
          path: { threadId: thread.threadId },
          payload: { sessionId, epoch: thread.epoch, messageId: batch.assistantMessageId }
        })
        const settled = yield* cli.agent.awaitInteraction({ path: { interactionId: asked.interactionId }, urlParams: {} })
        expect(settled.status).toBe("expired")
      }))

    it.effect("a request past the expiry the CLI gave it is returned expired, never denied, and a late answer does not land", () =>
      Effect.gen(function*() {
        const { cli, owner, sessionId, thread } = yield* streamingThread("ask-timeout")
        const asked = yield* cli.agent.requestInteraction({
          path: { threadId: thread.threadId },
          payload: { sessionId, epoch: thread.epoch, kind: "permission", request: { tool: "bash" }, expiresInMs: 300 }
        })
        expect(asked).toMatchObject({ status: "pending", expiresAt: expect.any(String) })
        yield* realSleep(400)
        const after = yield* cli.agent.awaitInteraction({ path: { interactionId: asked.interactionId }, urlParams: { waitMs: 20_000 } })
        expect(after.status).toBe("expired")
        const late = yield* cli.threads.answerInteraction({
          path: { interactionId: asked.interactionId },
          payload: { answer: { reply: "once" } }
        })
        expect(late).toMatchObject({ status: "expired", answer: null })
        expect(structured((yield* callTool(owner.key, "get_thread", { threadId: thread.threadId })).json)["hasPendingInteraction"]).toBe(
          false
        )
      }))

    it.effect("a request without an expiry stays pending until answered or its batch ends", () =>
      Effect.gen(function*() {
        const { cli, sessionId, thread } = yield* streamingThread("ask-no-timeout")
        const asked = yield* cli.agent.requestInteraction({
          path: { threadId: thread.threadId },
          payload: { sessionId, epoch: thread.epoch, kind: "question", request: {} }
        })
        expect(asked.expiresAt).toBeNull()
        yield* realSleep(100)
        const pending = yield* cli.threads.pendingInteractions({ path: { threadId: thread.threadId } })
        expect(pending.interactions.map((i) => i.status)).toEqual(["pending"])
      }))

    it.effect("another user cannot answer (not found)", () =>
      Effect.gen(function*() {
        const { cli, sessionId, thread } = yield* streamingThread("ask-owner")
        const other = yield* seedOwner("ask-stranger")
        const asked = yield* cli.agent.requestInteraction({
          path: { threadId: thread.threadId },
          payload: { sessionId, epoch: thread.epoch, kind: "permission", request: {} }
        })
        const stranger = yield* bridgeClient(other.key)
        const error = yield* Effect.flip(
          stranger.threads.answerInteraction({ path: { interactionId: asked.interactionId }, payload: { answer: "yes" } })
        )
        expect(error._tag).toBe("NotFound")
      }))

    it.effect("a worktree the CLI reports becomes a worktree path under the thread's checkout", () =>
      Effect.gen(function*() {
        const { cli, owner, pathId, sessionId, thread } = yield* streamingThread("worktree")
        const { pathId: worktreeId } = yield* cli.agent.reportWorktree({
          path: { threadId: thread.threadId },
          payload: { sessionId, epoch: thread.epoch, path: "/home/dev/.trellis/worktrees/feature-x", branch: "feature/x" }
        })
        const profiles = structured((yield* callTool(owner.key, "list_cli_profiles", { projectId: owner.project.id })).json)
        const paths: ReadonlyArray<unknown> = Reflect.get(Object(Reflect.get(Object(profiles["profiles"]), 0)), "paths")
        expect(paths).toContainEqual(expect.objectContaining({
          pathId: worktreeId,
          kind: "worktree",
          parentPathId: pathId,
          branch: "feature/x"
        }))
      }))
  })
})
