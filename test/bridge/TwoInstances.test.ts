import { HttpClient, HttpClientRequest, HttpLayerRouter } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Fiber, Layer, Option, Stream } from "effect"
import * as Trellis from "../../src/server.js"
import { bridgeClient, registerCli } from "../support/FakeCli.js"
import { TestDatabase } from "../support/TestDatabase.js"
import { callTool, seedOwner } from "../support/TestServer.js"

/** One backend instance: its own services, change listeners and HTTP server, on the shared database. */
const instance = HttpLayerRouter.serve(Trellis.routes, { disableLogger: true }).pipe(
  Layer.provideMerge(NodeHttpServer.layerTest),
  Layer.provideMerge(Trellis.services())
)

const pause = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

/** The data of the first `count` SSE frames of a GET. */
const sseData = (key: string, path: string, count: number) =>
  Effect.gen(function* () {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(HttpClientRequest.get(path).pipe(HttpClientRequest.bearerToken(key)))
    const frames = yield* response.stream.pipe(
      Stream.decodeText(),
      Stream.mapAccum("", (buffer, piece): readonly [string, ReadonlyArray<string>] => {
        const parts = (buffer + piece).split("\n\n")
        return [parts.pop() ?? "", parts]
      }),
      Stream.flattenIterables,
      Stream.filterMap((frame) =>
        Option.fromNullable(frame.split("\n").find((line) => line.startsWith("data: "))?.slice("data: ".length))
      ),
      Stream.map((data): unknown => JSON.parse(data)),
      Stream.take(count),
      Stream.runCollect
    )
    return [...frames]
  }).pipe(Effect.scoped)

describe("two backend instances on one database", () => {
  layer(TestDatabase, { timeout: 60_000, excludeTestServices: true })("live delivery through NOTIFY", (it) => {
    it.effect("a CLI on one instance and a client on the other see each other's writes live", () =>
      Effect.gen(function* () {
        const a = yield* Layer.build(instance)
        const b = yield* Layer.build(instance)
        const onA = <X, E>(effect: Effect.Effect<X, E, Layer.Layer.Success<typeof instance>>) => Effect.provide(effect, a)
        const onB = <X, E>(effect: Effect.Effect<X, E, Layer.Layer.Success<typeof instance>>) => Effect.provide(effect, b)

        const owner = yield* onA(seedOwner("two-instances"))
        const cli = yield* onA(bridgeClient(owner.key))
        const { profile, sessionId } = yield* onA(registerCli(cli, owner.project.id))

        // The CLI listens on A for its queue; the thread is created through B.
        const queue = yield* Effect.fork(onA(sseData(owner.key, `/api/agent/sessions/${sessionId}/pending`, 2)))
        yield* pause(300)
        const created = yield* onB(callTool(owner.key, "create_thread", {
          content: "hello across instances",
          profileId: profile.profileId,
          pathId: profile.paths[0]?.pathId,
          cliType: "claude"
        }))
        const threadId = String(Reflect.get(Object(Reflect.get(Object(created.json), "result")), "structuredContent")?.threadId)
        expect(yield* Fiber.join(queue)).toEqual([{ threadIds: [] }, { threadIds: [threadId] }])

        // The client follows the thread's events on B while the CLI uploads through A.
        const claim = yield* onA(cli.agent.claim({ payload: { sessionId } }))
        const thread = claim.thread
        if (thread === null) return yield* Effect.dieMessage("nothing claimed")
        const batch = yield* onA(cli.agent.startBatch({ path: { threadId }, payload: { sessionId, epoch: thread.epoch } }))
        if (batch.drained) return yield* Effect.dieMessage("drained")
        const follower = yield* Effect.fork(onB(sseData(owner.key, `/api/threads/${threadId}/events`, 1)))
        yield* pause(300)
        yield* onA(cli.agent.uploadChunks({
          path: { threadId },
          payload: {
            sessionId,
            epoch: thread.epoch,
            messageId: batch.assistantMessageId,
            chunks: [{ seq: 0, type: "assistant", data: JSON.stringify({ type: "assistant", uuid: "u0", message: { content: [{ type: "text", text: "hi from A" }] } }) }]
          }
        }))
        const [frame] = yield* Fiber.join(follower)
        expect(Reflect.get(Object(Reflect.get(Object(frame), "event")), "text")).toBe("hi from A")
      }).pipe(Effect.scoped))
  })
})
