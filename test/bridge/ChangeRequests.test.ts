import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Schema, Stream } from "effect"
import { ChangesPage, RefreshThreadChanges } from "../../catalog/ThreadChanges.js"
import type { ChangedFile } from "../../catalog/domain/ChangeReport.js"
import { claimThread, connectCli, createThread, type FakeCli, tool, toolError } from "../support/FakeCli.js"
import { connect, type Frame } from "../support/Sse.js"
import { TestServer } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"

/**
 * Issue 31 §1, "on request while the machine is online": `refresh_thread_changes` asks the
 * thread's CLI for a fresh report; the request shows on its machine's pending stream (`changes`)
 * with the working copy and the base of the last report; the CLI answers between turns through
 * POST /api/agent/threads/:id/requested-changes, and any report of the thread answers it.
 */

const BASE = "a".repeat(40)
const HEAD = "b".repeat(40)
const CHECKOUT = "/home/dev/project"

const changed = (path: string): ChangedFile => ({
  path,
  status: "modified",
  additions: 1,
  deletions: 0,
  binary: false,
  patch: `diff --git a/${path} b/${path}\n+edited`
})
const body = (files: ReadonlyArray<ChangedFile>) => ({ baseCommit: BASE, headCommit: HEAD, branch: "main", files, truncated: false })

/** A thread that ran a turn and reported it, then went back to the queue: no session holds it. */
const reported = (slug: string) =>
  Effect.gen(function*() {
    const owner = yield* seedOwner(slug)
    const cli = yield* connectCli(owner.key, owner.project.id)
    const { threadId } = yield* createThread(owner.key, cli.target, "Tidy the parser")
    const claim = yield* claimThread(cli, threadId)
    yield* cli.client.agent.reportChanges({
      path: { threadId },
      payload: { sessionId: cli.sessionId, epoch: claim.epoch, ...body([changed("src/parser.ts")]) }
    })
    yield* cli.client.agent.release({ path: { threadId }, payload: { sessionId: cli.sessionId, epoch: claim.epoch } })
    return { owner, cli, threadId }
  }).pipe(Effect.orDie)

const refresh = (key: string, threadId: string) => tool(key, "refresh_thread_changes", { threadId }, RefreshThreadChanges.output)
const latest = (key: string, threadId: string) => tool(key, "get_thread_changes", { threadId }, ChangesPage)
const answer = (cli: FakeCli, threadId: string, requestedAt: string, files: ReadonlyArray<ChangedFile>) =>
  cli.client.agent.reportRequestedChanges({ path: { threadId }, payload: { sessionId: cli.sessionId, requestedAt, ...body(files) } })

const requested = (threadId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql`SELECT changes_requested_at IS NOT NULL AS asked FROM threads WHERE id = ${threadId}`
    return (yield* Schema.decodeUnknown(Schema.Array(Schema.Struct({ asked: Schema.Boolean })))(rows))[0]?.asked
  }).pipe(Effect.orDie)

/** The first `changes` frame of a session's pending stream. */
const nextChanges = (frames: Stream.Stream<Frame, unknown>) =>
  frames.pipe(
    Stream.filter((frame) => frame.event === "changes"),
    Stream.take(1),
    Stream.runHead,
    Effect.flatten,
    Effect.timeoutFail({ duration: "20 seconds", onTimeout: () => new Error("no changes frame") })
  )

describe("change reports on request", () => {
  // The server's pending frames are spaced on its clock: a live one, as in production.
  layer(TestServer(), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect("a request shows on the machine's pending stream with the working copy and the last base; the CLI's answer is the new report", () =>
      Effect.gen(function*() {
        const { cli, owner, threadId } = yield* reported("changes-request")
        const frames = yield* connect(owner.key, `/api/agent/sessions/${cli.sessionId}/pending`)
        const asked = yield* refresh(owner.key, threadId)
        expect(asked).toEqual({ threadId, requestedAt: expect.any(String), machineOnline: true })
        const frame = yield* nextChanges(frames)
        expect(frame.data).toEqual({ requests: [{ threadId, directory: CHECKOUT, baseCommit: BASE, requestedAt: asked.requestedAt }] })

        const before = yield* latest(owner.key, threadId)
        const { reportId } = yield* answer(cli, threadId, asked.requestedAt, [changed("src/parser.ts"), changed("README.md")])
        const after = yield* latest(owner.key, threadId)
        expect(after.report?.reportId).toBe(reportId)
        expect(after.report?.reportId).not.toBe(before.report?.reportId)
        expect(after.files.map((file) => file.path)).toEqual(["src/parser.ts", "README.md"])
        expect(yield* requested(threadId)).toBe(false)

        // Asked again, the stream shows it again.
        const again = yield* refresh(owner.key, threadId)
        expect((yield* nextChanges(frames)).data).toEqual({
          requests: [{ threadId, directory: CHECKOUT, baseCommit: BASE, requestedAt: again.requestedAt }]
        })
      }).pipe(Effect.scoped))

    it.effect("asked again while the CLI answers, the request stays asked and is listed again: the answer was to the earlier one", () =>
      Effect.gen(function*() {
        const { cli, owner, threadId } = yield* reported("changes-request-again")
        const frames = yield* connect(owner.key, `/api/agent/sessions/${cli.sessionId}/pending`)
        const first = yield* refresh(owner.key, threadId)
        expect((yield* nextChanges(frames)).data).toMatchObject({ requests: [{ threadId, requestedAt: first.requestedAt }] })
        const second = yield* refresh(owner.key, threadId)
        expect(second.requestedAt > first.requestedAt).toBe(true)
        yield* answer(cli, threadId, first.requestedAt, [])
        expect(yield* requested(threadId)).toBe(true)
        expect((yield* nextChanges(frames)).data).toMatchObject({ requests: [{ threadId, requestedAt: second.requestedAt }] })
        yield* answer(cli, threadId, second.requestedAt, [])
        expect(yield* requested(threadId)).toBe(false)
      }).pipe(Effect.scoped))

    it.effect("a thread with no report yet cannot be asked for one", () =>
      Effect.gen(function*() {
        const owner = yield* seedOwner("changes-request-none")
        const cli = yield* connectCli(owner.key, owner.project.id)
        const { threadId } = yield* createThread(owner.key, cli.target, "Not run yet")
        expect(yield* toolError(owner.key, "refresh_thread_changes", { threadId })).toEqual({
          code: "conflict",
          message: `threadId: thread ${threadId} has no change report yet; its first turn makes one`
        })
        expect(yield* requested(threadId)).toBe(false)
      }))

    it.effect("an answer is refused when nothing is asked, from another machine, and from another person's CLI", () =>
      Effect.gen(function*() {
        const { cli, owner, threadId } = yield* reported("changes-request-refused")
        const unasked = yield* Effect.flip(answer(cli, threadId, "2026-01-01T00:00:00.000000Z", []))
        expect(unasked).toMatchObject({ _tag: "Conflict", message: `threadId: no change report is asked of thread ${threadId}` })

        const { requestedAt } = yield* refresh(owner.key, threadId)
        const otherMachine = yield* connectCli(owner.key, owner.project.id, { name: "laptop-2" })
        expect(yield* Effect.flip(answer(otherMachine, threadId, requestedAt, []))).toMatchObject({
          _tag: "Conflict",
          message: `threadId: thread ${threadId} does not run on this session's machine`
        })
        const stranger = yield* seedOwner("changes-request-stranger-cli")
        const strangerCli = yield* connectCli(stranger.key, stranger.project.id)
        expect(yield* Effect.flip(answer(strangerCli, threadId, requestedAt, []))).toMatchObject({ _tag: "NotFound" })

        expect(yield* requested(threadId)).toBe(true)
      }))

    it.effect("a report after a turn answers the request too", () =>
      Effect.gen(function*() {
        const { cli, owner, threadId } = yield* reported("changes-request-turn")
        yield* refresh(owner.key, threadId)
        const claim = yield* claimThread(cli, threadId)
        yield* cli.client.agent.reportChanges({
          path: { threadId },
          payload: { sessionId: cli.sessionId, epoch: claim.epoch, ...body([]) }
        })
        expect(yield* requested(threadId)).toBe(false)
      }))

    it.effect("machineOnline says whether the thread's CLI is connected; offline, the request waits for it", () =>
      Effect.gen(function*() {
        const { cli, owner, threadId } = yield* reported("changes-request-offline")
        yield* cli.client.agent.disconnect({ payload: { sessionId: cli.sessionId } })
        expect((yield* refresh(owner.key, threadId)).machineOnline).toBe(false)
        expect(yield* requested(threadId)).toBe(true)
        const back = yield* connectCli(owner.key, owner.project.id, { profileId: cli.profile.profileId })
        const frames = yield* connect(owner.key, `/api/agent/sessions/${back.sessionId}/pending`)
        expect((yield* nextChanges(frames)).data).toEqual({
          requests: [{ threadId, directory: CHECKOUT, baseCommit: BASE, requestedAt: expect.any(String) }]
        })
      }).pipe(Effect.scoped))

    it.effect("an unknown thread, another person's and a bad argument are refused", () =>
      Effect.gen(function*() {
        const { owner, threadId } = yield* reported("changes-request-args")
        expect(yield* toolError(owner.key, "refresh_thread_changes", { threadId: "thread_missing" })).toEqual({
          code: "not_found",
          message: "threadId: thread thread_missing not found"
        })
        const stranger = yield* seedOwner("changes-request-stranger")
        expect((yield* toolError(stranger.key, "refresh_thread_changes", { threadId })).code).toBe("not_found")
        const empty = yield* toolError(owner.key, "refresh_thread_changes", { threadId: "" })
        expect(empty.code).toBe("invalid_argument")
        expect(empty.message).toContain("threadId")
      }))
  })
})
