import { HttpClient, HttpClientRequest } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Option, Stream } from "effect"
import { ChangeLog, MAX_REPLAY } from "../../src/projects/ChangeLog.js"
import { connect, type Frame } from "../support/Sse.js"
import { TestServer } from "../support/TestServer.js"
import { joinAs, ok, scopedTo } from "../support/TaskTools.js"
import { ownerWithCli, secondProject, teammate, threadOn } from "../support/ThreadFixtures.js"

/**
 * Resuming a project's changes stream (issue 30 §1): every frame has an id, and a page that
 * reconnects with `Last-Event-ID` (or `?after=`) gets first what changed since, in one frame, on
 * whichever instance it reaches; or a `reset` frame when the log no longer holds all of it.
 */

const changesPath = (projectId: string) => `/api/projects/${projectId}/changes`

/** The next `count` frames, or a failure when none comes within 10 s. */
const nextFrames = <E>(stream: Stream.Stream<Frame, E>, count: number) =>
  Stream.take(stream, count).pipe(Stream.timeout("10 seconds"), Stream.runCollect, Effect.map((chunk) => [...chunk]))

const field = (frame: Frame | undefined, name: string): ReadonlyArray<unknown> => {
  const value: unknown = Reflect.get(Object(frame?.data), name)
  return Array.isArray(value) ? value : []
}

/** Opens the stream, takes its first frame and closes it again: what a page got before its connection dropped. */
const firstFrameThenDrop = (key: string, path: string, write: Effect.Effect<unknown, unknown, HttpClient.HttpClient>) =>
  Effect.gen(function*() {
    const changes = yield* connect(key, path)
    yield* write
    const [frame] = yield* nextFrames(changes, 1)
    return frame
  }).pipe(Effect.scoped)

/** The raw text a stream sends first, up to its first frame after the `: connected` comment. */
const openingText = (key: string, path: string) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(HttpClientRequest.get(path).pipe(HttpClientRequest.bearerToken(key)))
    return yield* response.stream.pipe(
      Stream.decodeText(),
      Stream.scan("", (text, piece) => text + piece),
      Stream.takeUntil((text) => /^id: \d+$/m.test(text)),
      Stream.timeout("10 seconds"),
      Stream.runLast,
      Effect.map(Option.getOrElse(() => ""))
    )
  }).pipe(Effect.scoped)

const statusOf = (key: string, path: string, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(
      HttpClientRequest.get(path).pipe(HttpClientRequest.bearerToken(key), HttpClientRequest.setHeaders(headers))
    )
    return { status: response.status, body: response.status === 200 ? "" : yield* response.text }
  }).pipe(Effect.scoped)

describe("resuming a project's changes stream", () => {
  layer(TestServer({ rateLimit: Option.none() }), { excludeTestServices: true })((it) => {
    it.effect("a stream opens with a frame of only an id, the last change written, so a browser's reconnect resumes before any frame came", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("resume-opening")
        yield* ok(owner.key, "create_task", { name: "Before the stream" }, scopedTo(owner.project.id))
        const { latest } = yield* (yield* ChangeLog).latest()
        const text = yield* openingText(owner.key, changesPath(owner.project.id))
        expect(text).toContain(`\nid: ${latest}\n\n`)
        expect(latest).toBeGreaterThan(0)
      }))

    it.effect("a reconnect with Last-Event-ID gets first, in one frame, what changed since, and only what the reader may read", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("resume-header")
        const viewer = yield* joinAs(owner.project.id, "resume-header", "viewer")
        const mate = yield* teammate(owner, "resume-mate")
        const scope = scopedTo(owner.project.id)
        const got = yield* firstFrameThenDrop(
          viewer.key,
          changesPath(owner.project.id),
          ok(owner.key, "create_task", { name: "Seen live" }, scope)
        )
        expect(got?.id).toMatch(/^\d+$/)

        // While the viewer is away: two tasks, a teammate's unshared thread, a change in another project.
        const first = yield* ok(owner.key, "create_task", { name: "Missed one" }, scope)
        const second = yield* ok(owner.key, "create_task", { name: "Missed two" }, scope)
        const hidden = yield* threadOn(mate.key, mate.cli)
        const other = yield* secondProject(owner, "ELSEWHERE")
        const elsewhere = yield* ok(owner.key, "create_task", { name: "Elsewhere" }, scopedTo(other.project.id))

        const resumed = yield* connect(viewer.key, changesPath(owner.project.id), { "last-event-id": got?.id ?? "" })
        const [replay] = yield* nextFrames(resumed, 1)
        expect(replay?.event).toBe("changes")
        expect(field(replay, "taskIds")).toEqual(expect.arrayContaining([first.taskId, second.taskId]))
        expect(field(replay, "taskIds")).not.toContain(elsewhere.taskId)
        expect(field(replay, "threadIds")).not.toContain(hidden.threadId)
        expect(Number(replay?.id)).toBeGreaterThan(Number(got?.id))

        // Then it goes on live, its ids still growing.
        const later = yield* ok(owner.key, "create_task", { name: "Live again" }, scope)
        // It may name an earlier change again (subscribed before the log was read, on PostgreSQL a
        // NOTIFY can come after the read): twice, never not at all.
        const [live] = yield* nextFrames(resumed, 1)
        expect(field(live, "taskIds")).toContain(later.taskId)
        expect(Number(live?.id)).toBeGreaterThan(Number(replay?.id))
      }).pipe(Effect.scoped))

    it.effect("?after= resumes as Last-Event-ID does (a page's own reconnect after an HTTP error); nothing missed, no frame", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("resume-after")
        const scope = scopedTo(owner.project.id)
        const got = yield* firstFrameThenDrop(
          owner.key,
          changesPath(owner.project.id),
          ok(owner.key, "create_task", { name: "Seen" }, scope)
        )
        const missed = yield* ok(owner.key, "create_task", { name: "Missed" }, scope)
        const resumed = yield* connect(owner.key, `${changesPath(owner.project.id)}?after=${got?.id ?? ""}`)
        const [replay] = yield* nextFrames(resumed, 1)
        expect(field(replay, "taskIds")).toContain(missed.taskId)
      }).pipe(Effect.scoped))

    it.effect("a resume from before what the log still holds gets a reset frame, then goes on live", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("resume-purged")
        const scope = scopedTo(owner.project.id)
        const got = yield* firstFrameThenDrop(
          owner.key,
          changesPath(owner.project.id),
          ok(owner.key, "create_task", { name: "Long ago" }, scope)
        )
        yield* ok(owner.key, "create_task", { name: "Also long ago" }, scope)
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE project_change_log SET at = at - interval '1 day' WHERE project_id = ${owner.project.id}`
        expect(yield* (yield* ChangeLog).purge()).toBeGreaterThanOrEqual(2)

        const resumed = yield* connect(owner.key, changesPath(owner.project.id), { "last-event-id": got?.id ?? "" })
        const [reset] = yield* nextFrames(resumed, 1)
        expect(reset?.event).toBe("reset")
        const later = yield* ok(owner.key, "create_task", { name: "Now" }, scope)
        // As above, an earlier change may come again after the reset; the new one always does.
        const [live] = yield* nextFrames(resumed, 1)
        expect(field(live, "taskIds")).toContain(later.taskId)
      }).pipe(Effect.scoped))

    it.effect(`more than ${MAX_REPLAY.toLocaleString("en")} changes since the resume point get a reset frame instead`, () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("resume-many")
        const scope = scopedTo(owner.project.id)
        const got = yield* firstFrameThenDrop(
          owner.key,
          changesPath(owner.project.id),
          ok(owner.key, "create_task", { name: "Seen" }, scope)
        )
        const sql = yield* SqlClient.SqlClient
        yield* sql`
          INSERT INTO project_change_log (project_id, change)
          SELECT ${owner.project.id}, jsonb_build_object('kind', 'task', 'id', 'task_' || g) FROM generate_series(1, ${MAX_REPLAY + 1}) g`
        const resumed = yield* connect(owner.key, changesPath(owner.project.id), { "last-event-id": got?.id ?? "" })
        const [reset] = yield* nextFrames(resumed, 1)
        expect(reset?.event).toBe("reset")
      }).pipe(Effect.scoped))

    it.effect("an after or Last-Event-ID that is no frame id is 400 naming it", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("resume-refused")
        const path = changesPath(owner.project.id)
        const byParam = yield* statusOf(owner.key, `${path}?after=soon`)
        expect(byParam.status).toBe(400)
        expect(byParam.body).toContain("after")
        const byHeader = yield* statusOf(owner.key, path, { "last-event-id": "12abc" })
        expect(byHeader).toEqual({ status: 400, body: expect.stringContaining("Last-Event-ID") })
      }))
  })
})
