import { HttpLayerRouter } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import * as PostgresClient from "../../src/platform/sql/PostgresClient.js"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer, Option, Stream } from "effect"
import { Projects } from "../../src/projects/Projects.js"
import * as Trellis from "../../src/server/Trellis.js"
import { bridgeClient, registerCli } from "../support/FakeCli.js"
import { connect } from "../support/Sse.js"
import { freshPostgresUrl, postgresServer, TestDatabase } from "../support/TestDatabase.js"
import { callTool } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"
import { joinAs } from "../support/TaskTools.js"

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
    // The queue as the stream found it comes first: read before the thread is created, or a creation
    // that commits while the server reads the queue would already be in it (and no second frame come).
    expect(yield* dataOf(queue, 1)).toEqual([{ threadIds: [] }])
    const created = yield* onB(callTool(owner.key, "create_thread", {
      content: "hello across instances",
      profileId: profile.profileId,
      pathId: profile.paths[0]?.pathId,
      cliType: "claude"
    }))
    const threadId = String(Reflect.get(Object(Reflect.get(Object(created.json), "result")), "structuredContent")?.threadId)
    expect(yield* dataOf(queue, 1)).toEqual([{ threadIds: [threadId] }])

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

const taskIdsOf = (frame: { readonly data: unknown } | undefined): ReadonlyArray<unknown> => {
  const ids: unknown = Reflect.get(Object(frame?.data), "taskIds")
  return Array.isArray(ids) ? ids : []
}
const createdTaskId = (created: { readonly json: unknown }) =>
  String(Reflect.get(Object(Reflect.get(Object(created.json), "result")), "structuredContent")?.taskId)

/**
 * A project's changes stream on instance B names a task written through A, and not another
 * project's to a viewer of the first; dropped, it resumes on A after the last frame it got.
 */
const crossedChanges = (onA: On, onB: On) =>
  Effect.gen(function*() {
    const owner = yield* onA(seedOwner("changes-across"))
    const viewer = yield* onA(joinAs(owner.project.id, "changes-across", "viewer"))
    const other = yield* onA(
      Effect.flatMap(Projects, (projects) => projects.create({ organizationId: owner.organization.id, name: "Other", ref: "OTHER" }))
    )
    const got = yield* Effect.scoped(Effect.gen(function*() {
      const changes = yield* onB(connect(viewer.key, `/api/projects/${owner.project.id}/changes`))
      yield* onA(callTool(owner.key, "create_task", { projectId: other.id, name: "Not theirs" }))
      const seen = createdTaskId(yield* onA(callTool(owner.key, "create_task", { projectId: owner.project.id, name: "Across" })))
      const [frame] = yield* Effect.map(Stream.runCollect(Stream.take(changes, 1).pipe(Stream.timeout("10 seconds"))), (c) => [...c])
      expect(taskIdsOf(frame)).toEqual([seen])
      return frame
    }))
    const missed = createdTaskId(yield* onB(callTool(owner.key, "create_task", { projectId: owner.project.id, name: "While away" })))
    const resumed = yield* onA(connect(viewer.key, `/api/projects/${owner.project.id}/changes`, { "last-event-id": got?.id ?? "" }))
    const [replay] = yield* Effect.map(Stream.runCollect(Stream.take(resumed, 1).pipe(Stream.timeout("10 seconds"))), (c) => [...c])
    expect(taskIdsOf(replay)).toContain(missed)
  }).pipe(Effect.scoped)

/** Builds two instances in the scope and runs the cases with a way to act on each. */
const twoInstances = (a: Layer.Layer<Instance, unknown>, b: Layer.Layer<Instance, unknown>) =>
  Effect.gen(function*() {
    const builtA = yield* Layer.build(a)
    const builtB = yield* Layer.build(b)
    const onA: On = (effect) => Effect.provide(effect, builtA)
    const onB: On = (effect) => Effect.provide(effect, builtB)
    yield* crossedWrites(onA, onB)
    yield* crossedChanges(onA, onB)
  })

const postgres = Option.getOrUndefined(Effect.runSync(Effect.orDie(postgresServer)))

describe("two backend instances on one database", () => {
  // PGlite is one in-process database: two instances can only share its client (one pool, one LISTEN).
  layer(TestDatabase, { timeout: 60_000, excludeTestServices: true })("sharing one SQL client", (it) => {
    it.scoped("a CLI on one instance and a client on the other see each other's writes live; a changes stream follows and resumes across them", () =>
      Effect.flatMap(
        Effect.context<TestDatabaseServices>(),
        (shared) =>
          twoInstances(Layer.provide(instance, Layer.succeedContext(shared)), Layer.provide(instance, Layer.succeedContext(shared)))
      ))
  })

  describe.skipIf(postgres === undefined)("each with its own pool and LISTEN connection (PostgreSQL only: set DATABASE_URL)", () => {
    it.scopedLive(
      "a CLI on one instance and a client on the other see each other's writes live, through NOTIFY; a changes stream follows and resumes across them",
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
