import { HttpLayerRouter } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import * as PostgresClient from "../../src/platform/sql/PostgresClient.js"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer, Option, Stream } from "effect"
import * as Trellis from "../../src/server/Trellis.js"
import { bridgeClient, registerCli } from "../support/FakeCli.js"
import { connect } from "../support/Sse.js"
import { freshPostgresUrl, postgresServer, TestDatabase } from "../support/TestDatabase.js"
import { callTool } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"

/** One backend instance: its own services, change listeners and HTTP server, on the database it is given. */
const instance = HttpLayerRouter.serve(Trellis.routes, { disableLogger: true }).pipe(
  Layer.provideMerge(NodeHttpServer.layerTest),
  Layer.provideMerge(Trellis.services())
)
type Instance = Layer.Layer.Success<typeof instance>
type On = <X, E, R>(effect: Effect.Effect<X, E, R>) => Effect.Effect<X, E, Exclude<R, Instance>>

/** The data of the first `count` frames of a connected stream. */
const dataOf = (frames: Stream.Stream<{ readonly data: unknown }, unknown>, count: number) =>
  Effect.map(Stream.runCollect(Stream.take(frames, count)), (got) => [...got].map((frame) => frame.data))

/** A CLI on instance A and a client on instance B see each other's writes live. */
const crossedWrites = (onA: On, onB: On) =>
  Effect.gen(function*() {
    const owner = yield* onA(seedOwner("two-instances"))
    const cli = yield* onA(bridgeClient(owner.key))
    const { profile, sessionId } = yield* onA(registerCli(cli, owner.project.id))

    // The CLI listens on A for its queue; the thread is created through B.
    const queue = yield* onA(connect(owner.key, `/api/agent/sessions/${sessionId}/pending`))
    const created = yield* onB(callTool(owner.key, "create_thread", {
      content: "hello across instances",
      profileId: profile.profileId,
      pathId: profile.paths[0]?.pathId,
      cliType: "claude"
    }))
    const threadId = String(Reflect.get(Object(Reflect.get(Object(created.json), "result")), "structuredContent")?.threadId)
    expect(yield* dataOf(queue, 2)).toEqual([{ threadIds: [] }, { threadIds: [threadId] }])

    // The client follows the thread's events on B while the CLI uploads through A.
    const claim = yield* onA(cli.agent.claim({ payload: { sessionId } }))
    const thread = claim.thread
    if (thread === null) return yield* Effect.dieMessage("nothing claimed")
    const batch = yield* onA(cli.agent.startBatch({ path: { threadId }, payload: { sessionId, epoch: thread.epoch } }))
    if (batch.drained) return yield* Effect.dieMessage("drained")
    const follower = yield* onB(connect(owner.key, `/api/threads/${threadId}/events`))
    yield* onA(cli.agent.uploadChunks({
      path: { threadId },
      payload: {
        sessionId,
        epoch: thread.epoch,
        messageId: batch.assistantMessageId,
        chunks: [{
          seq: 0,
          type: "assistant",
          data: JSON.stringify({ type: "assistant", uuid: "u0", message: { content: [{ type: "text", text: "hi from A" }] } })
        }]
      }
    }))
    const [frame] = yield* dataOf(follower, 1)
    expect(Reflect.get(Object(Reflect.get(Object(frame), "event")), "text")).toBe("hi from A")
  })

/** Builds two instances in the scope and runs `body` with a way to act on each. */
const twoInstances = (a: Layer.Layer<Instance, unknown>, b: Layer.Layer<Instance, unknown>) =>
  Effect.gen(function*() {
    const builtA = yield* Layer.build(a)
    const builtB = yield* Layer.build(b)
    const onA: On = (effect) => Effect.provide(effect, builtA)
    const onB: On = (effect) => Effect.provide(effect, builtB)
    yield* crossedWrites(onA, onB)
  })

const postgres = Option.getOrUndefined(Effect.runSync(Effect.orDie(postgresServer)))

describe("two backend instances on one database", () => {
  // PGlite is one in-process database: two instances can only share its client (one pool, one LISTEN).
  layer(TestDatabase, { timeout: 60_000, excludeTestServices: true })("sharing one SQL client", (it) => {
    it.scoped("a CLI on one instance and a client on the other see each other's writes live", () =>
      Effect.flatMap(
        Effect.context<TestDatabaseServices>(),
        (shared) =>
          twoInstances(Layer.provide(instance, Layer.succeedContext(shared)), Layer.provide(instance, Layer.succeedContext(shared)))
      ))
  })

  describe.skipIf(postgres === undefined)("each with its own pool and LISTEN connection (PostgreSQL only: set DATABASE_URL)", () => {
    it.scopedLive(
      "a CLI on one instance and a client on the other see each other's writes live, through NOTIFY",
      () =>
        Effect.gen(function*() {
          if (postgres === undefined) return
          const url = yield* freshPostgresUrl(postgres)
          const client = PostgresClient.layer({ url })
          yield* twoInstances(Layer.provide(instance, client), Layer.provide(instance, client))
        }),
      60_000
    )
  })
})

type TestDatabaseServices = Layer.Layer.Success<typeof TestDatabase>
