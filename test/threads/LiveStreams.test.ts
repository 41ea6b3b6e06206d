import { HttpClient, HttpClientRequest } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Stream } from "effect"
import type { BridgeClient } from "../support/FakeCli.js"
import { bridgeClient, registerCli } from "../support/FakeCli.js"
import { connect, type Frame, frames } from "../support/Sse.js"
import { callTool, TestServer } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"
import { ThreadCreation } from "../../src/threads/ThreadCreation.js"

/** The `threadIds` of each pending frame, until one satisfies `done`. */
const listsUntil = (frames: Stream.Stream<Frame, unknown>, done: (threadIds: ReadonlyArray<string>) => boolean) =>
  frames.pipe(
    Stream.map((frame): ReadonlyArray<string> => {
      const ids: unknown = Reflect.get(Object(frame.data), "threadIds")
      return Array.isArray(ids) ? ids.map(String) : []
    }),
    Stream.takeUntil(done),
    Stream.runCollect,
    Effect.map((lists) => [...lists]),
    Effect.timeoutFail({ duration: "20 seconds", onTimeout: () => new Error("the pending stream never reached the expected queue") })
  )

/** The first `count` frames of a connected stream. */
const take = (frames: Stream.Stream<Frame, unknown>, count: number) =>
  Effect.map(Stream.runCollect(Stream.take(frames, count)), (got) => [...got])

const textLine = (uuid: string, text: string) => JSON.stringify({ type: "assistant", uuid, message: { content: [{ type: "text", text }] } })

const startRun = (
  cli: BridgeClient,
  key: string,
  profileId: string,
  pathId: string,
  sessionId: Parameters<BridgeClient["agent"]["claim"]>[0]["payload"]["sessionId"]
) =>
  Effect.gen(function*() {
    yield* callTool(key, "create_thread", { content: "go", profileId, pathId, cliType: "claude" })
    const claim = yield* cli.agent.claim({ payload: { sessionId } })
    const thread = claim.thread
    if (thread === null) return yield* Effect.dieMessage("nothing to claim")
    const batch = yield* cli.agent.startBatch({ path: { threadId: thread.threadId }, payload: { sessionId, epoch: thread.epoch } })
    if (batch.drained) return yield* Effect.dieMessage("drained")
    const upload = (seq: number, text: string) =>
      cli.agent.uploadChunks({
        path: { threadId: thread.threadId },
        payload: {
          sessionId,
          epoch: thread.epoch,
          messageId: batch.assistantMessageId,
          chunks: [{ seq, type: "assistant", data: textLine(`u${seq}`, text) }]
        }
      })
    return { thread, batch, upload }
  })

describe("live streams (SSE)", () => {
  it.layer(TestServer())("thread events", (it) => {
    it.effect("a client gets the stored events first, then each new one as the CLI uploads it", () =>
      Effect.gen(function*() {
        const owner = yield* seedOwner("sse-thread")
        const cli = yield* bridgeClient(owner.key)
        const { profile, sessionId } = yield* registerCli(cli, owner.project.id)
        const run = yield* startRun(cli, owner.key, profile.profileId, profile.paths[0]?.pathId ?? "", sessionId)
        yield* run.upload(0, "first")
        const stream = yield* connect(owner.key, `/api/threads/${run.thread.threadId}/events`)
        yield* run.upload(1, "second")
        yield* run.upload(2, "third")
        const got = yield* take(stream, 3)
        expect(got.map((f) => f.event)).toEqual(["event", "event", "event"])
        expect(got.map((f) => Reflect.get(Reflect.get(Object(f.data), "event"), "text"))).toEqual(["first", "second", "third"])
        const ids = got.map((f) => BigInt(f.id ?? "0"))
        expect([...ids].sort((a, b) => (a < b ? -1 : 1))).toEqual(ids)
      }).pipe(Effect.scoped))

    it.effect("Last-Event-ID resumes after the last event seen, without repeating it", () =>
      Effect.gen(function*() {
        const owner = yield* seedOwner("sse-resume")
        const cli = yield* bridgeClient(owner.key)
        const { profile, sessionId } = yield* registerCli(cli, owner.project.id)
        const run = yield* startRun(cli, owner.key, profile.profileId, profile.paths[0]?.pathId ?? "", sessionId)
        yield* run.upload(0, "a")
        yield* run.upload(1, "b")
        const [first] = yield* frames(owner.key, `/api/threads/${run.thread.threadId}/events`, 1)
        yield* run.upload(2, "c")
        const resumed = yield* frames(owner.key, `/api/threads/${run.thread.threadId}/events`, 2, { "last-event-id": first?.id ?? "" })
        expect(resumed.map((f) => Reflect.get(Reflect.get(Object(f.data), "event"), "text"))).toEqual(["b", "c"])
      }))

    it.effect("someone else's thread is not found", () =>
      Effect.gen(function*() {
        const owner = yield* seedOwner("sse-owner")
        const other = yield* seedOwner("sse-other")
        const cli = yield* bridgeClient(owner.key)
        const { profile, sessionId } = yield* registerCli(cli, owner.project.id)
        const run = yield* startRun(cli, owner.key, profile.profileId, profile.paths[0]?.pathId ?? "", sessionId)
        const client = yield* HttpClient.HttpClient
        const response = yield* client.execute(
          HttpClientRequest.get(`/api/threads/${run.thread.threadId}/events`).pipe(HttpClientRequest.bearerToken(other.key))
        )
        expect(response.status).toBe(404)
      }).pipe(Effect.scoped))
  })

  /** A registered CLI and a way to create pending threads for it, each returning its ID. */
  const queueOf = (slug: string) =>
    Effect.gen(function*() {
      const owner = yield* seedOwner(slug)
      const cli = yield* bridgeClient(owner.key)
      const { profile, sessionId } = yield* registerCli(cli, owner.project.id)
      const create = (content: string) =>
        Effect.map(
          callTool(owner.key, "create_thread", {
            content,
            profileId: profile.profileId,
            pathId: profile.paths[0]?.pathId,
            cliType: "claude"
          }),
          (created) => String(Reflect.get(Object(Reflect.get(Object(created.json), "result")), "structuredContent")?.threadId)
        )
      // Seeded through the service, not MCP: for volume, or for threads committed in one transaction.
      const seed = (content: string) =>
        Effect.flatMap(ThreadCreation, (creation) =>
          creation.create(owner.principal, {
            content,
            profileId: profile.profileId,
            pathId: profile.paths[0]?.pathId,
            cliType: "claude",
            runtimeCommand: false
          }))
      return {
        key: owner.key,
        projectId: owner.project.id,
        profile,
        seed,
        cli,
        sessionId,
        create,
        path: `/api/agent/sessions/${sessionId}/pending`
      }
    })

  // The server's pending frames are spaced on its clock: a live one, as in production.
  layer(TestServer(), { excludeTestServices: true })("pending threads", (it) => {
    it.effect("a CLI session sees its profile's pending threads, then the list again when one is added", () =>
      Effect.gen(function*() {
        const { key, create, path } = yield* queueOf("sse-pending")
        const stream = yield* connect(key, path)
        const threadId = yield* create("one")
        const got = yield* take(stream, 2)
        expect(got.map((f) => f.event)).toEqual(["pending", "pending"])
        expect(got.map((f) => Reflect.get(Object(f.data), "threadIds"))).toEqual([[], [threadId]])
      }).pipe(Effect.scoped))

    it.effect("the session's own claims send no frame; the next change shows the queue without the claimed threads", () =>
      Effect.gen(function*() {
        const { key, cli, sessionId, create, path } = yield* queueOf("sse-pending-claims")
        const threadIds: Array<string> = []
        for (const content of ["one", "two", "three", "four"]) threadIds.push(yield* create(content))
        const stream = yield* connect(key, path)
        expect(yield* listsUntil(stream, (ids) => ids.length === 4)).toEqual([threadIds])
        // The creations' own signals may still be on their way (PostgreSQL delivers NOTIFY
        // asynchronously): a read they cause after the claims would be theirs, not the claims'.
        yield* Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 300)))
        const claimed = yield* Effect.all(Array.from({ length: 3 }, () => cli.agent.claim({ payload: { sessionId } })), {
          concurrency: "unbounded"
        })
        expect(claimed.map((c) => c.thread?.threadId).sort()).toEqual(threadIds.slice(0, 3).sort())
        // What is checked is an absence: no condition marks it, so a frame the claims wrongly caused gets time to show.
        yield* Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 300)))
        const fifth = yield* create("five")
        const [next] = yield* take(stream, 1)
        expect(Reflect.get(Object(next?.data), "threadIds")).toEqual([threadIds[3], fifth])
      }).pipe(Effect.scoped))

    it.effect("a burst of new threads reaches the stream as a few frames, the last one the whole queue, oldest first", () =>
      Effect.gen(function*() {
        const { key, path, seed } = yield* queueOf("sse-pending-spaced")
        const stream = yield* connect(key, path)
        // The queue as the stream found it comes first: read before the burst, or a creation that
        // commits while the server reads it would already be in it.
        const [initial] = yield* take(stream, 1)
        expect(Reflect.get(Object(initial?.data), "threadIds")).toEqual([])
        // A burst: twelve threads committed together, in one transaction. Created one call at a
        // time, they commit as fast as the machine goes, and a loaded one spaced them wider than the
        // stream's frames are: one frame each, rightly.
        const sql = yield* SqlClient.SqlClient
        const threadIds = yield* sql.withTransaction(
          Effect.forEach(Array.from({ length: 12 }, (_, i) => `t${i}`), (content) => Effect.map(seed(content), (thread) => thread.id))
        )
        const lists = yield* listsUntil(stream, (ids) => ids.length === 12)
        const queue = lists.at(-1) ?? []
        expect([...queue].sort()).toEqual([...threadIds].sort())
        // Every frame lists the threads it knows oldest first, as the whole queue does (with
        // creations running at once, a later-committed one may be older, so no frame need be a prefix).
        for (const list of lists) expect(list).toEqual(queue.filter((id) => list.includes(id)))
        // Twelve changes, twelve signals: one frame (two if a read falls between the signals).
        expect(lists.length).toBeLessThanOrEqual(2)
      }).pipe(Effect.scoped))

    it.effect("a queue longer than 1,000 threads is listed as its 1,000 oldest", () =>
      Effect.gen(function*() {
        const { cli, key, profile, projectId, seed } = yield* queueOf("sse-pending-cap")
        // 1,001 threads over MCP would be most of the test's time.
        const created = yield* Effect.forEach(Array.from({ length: 1_001 }, (_, i) => `t${i}`), seed)
        // The profile's CLI starts again (replacing its session) once they are there: on a loaded machine seeding them took
        // longer than a session lives without a heartbeat (60 s), and the first session's stream was refused, 410.
        const { sessionId } = yield* registerCli(cli, projectId, { profileId: profile.profileId, force: true })
        const [frame] = yield* frames(key, `/api/agent/sessions/${sessionId}/pending`, 1)
        expect(Reflect.get(Object(frame?.data), "threadIds")).toEqual(
          created.slice(0, 1_000).map((thread) => thread.id)
        )
      }), 120_000)
  })
})
