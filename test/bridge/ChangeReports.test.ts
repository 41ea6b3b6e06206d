import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Option, Queue, Schema } from "effect"
import type { ChangedFile } from "../../catalog/domain/ChangeReport.js"
import { KEPT_REPORTS_PER_THREAD, MAX_FILE_PATCH, MAX_REPORT_FILES, MAX_TOTAL_PATCH } from "../../catalog/domain/ChangeReport.js"
import { ChangesPage } from "../../catalog/ThreadChanges.js"
import { LiveEvents } from "../../src/platform/notifications/LiveEvents.js"
import { claimThread, connectCli, createThread, type FakeCli, outcome, realSleep, tool, toolError } from "../support/FakeCli.js"
import { rawRequest, TestServer } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"

/**
 * Issue 31 §1: after each turn the CLI reports the thread's working copy under its claim
 * (POST /api/agent/threads/:id/changes), and `get_thread_changes` (or GET /api/threads/:id/changes)
 * reads the latest report's files a page at a time.
 */

const BASE = "a".repeat(40)
const HEAD = "b".repeat(40)

const file = (i: number, patchLength = 40): ChangedFile => ({
  path: `src/file-${String(i).padStart(3, "0")}.ts`,
  status: "modified",
  additions: i + 1,
  deletions: 1,
  binary: false,
  patch: `diff --git a/src/file-${i}.ts b/src/file-${i}.ts\n${"+".repeat(Math.max(0, patchLength - 40))}`.slice(0, patchLength)
})

const body = (files: ReadonlyArray<ChangedFile>) => ({ baseCommit: BASE, headCommit: HEAD, branch: "feature/x", files, truncated: false })

/** A thread of the owner's, claimed by their CLI. */
const claimed = (slug: string) =>
  Effect.gen(function*() {
    const owner = yield* seedOwner(slug)
    const cli = yield* connectCli(owner.key, owner.project.id)
    const thread = yield* createThread(owner.key, cli.target, "Refactor the parser")
    const claim = yield* claimThread(cli, thread.threadId)
    return { owner, cli, threadId: thread.threadId, epoch: claim.epoch }
  })

const report = (cli: FakeCli, threadId: string, epoch: number, files: ReadonlyArray<ChangedFile>) =>
  cli.client.agent.reportChanges({ path: { threadId }, payload: { sessionId: cli.sessionId, epoch, ...body(files) } })

const changes = (key: string, args: Record<string, unknown>) => tool(key, "get_thread_changes", args, ChangesPage)

const storedReports = (threadId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql`SELECT id FROM thread_change_reports WHERE thread_id = ${threadId} ORDER BY created_at, id`
    return (yield* Schema.decodeUnknown(Schema.Array(Schema.Struct({ id: Schema.String })))(rows)).map((row) => row.id)
  }).pipe(Effect.orDie)

const post = (key: string, path: string, payload: unknown) =>
  rawRequest({ path, body: JSON.stringify(payload), headers: { authorization: `Bearer ${key}` } })

describe("change reports", () => {
  layer(TestServer({ rateLimit: Option.none() }), { timeout: 60_000 })((it) => {
    it.effect("a report sent under the claim is stored, and get_thread_changes pages its files with their patches", () =>
      Effect.gen(function*() {
        const { cli, epoch, owner, threadId } = yield* claimed("changes-pages")
        const files = Array.from({ length: 45 }, (_, i) => file(i))
        const renamed: ChangedFile = { ...file(45), path: "src/new name.ts", oldPath: "src/old name.ts", status: "renamed" }
        const lock: ChangedFile = {
          ...file(46),
          path: "package-lock.json",
          additions: 900,
          deletions: 12,
          patch: null,
          summarized: "lockfile"
        }
        const sent = yield* report(cli, threadId, epoch, [...files, renamed, lock])

        const first = yield* changes(owner.key, { threadId })
        expect(first.report).toMatchObject({
          reportId: sent.reportId,
          threadId,
          baseCommit: BASE,
          headCommit: HEAD,
          branch: "feature/x",
          truncated: false,
          totals: { files: 47, additions: [...files, renamed].reduce((sum, f) => sum + f.additions, 0) + 900, deletions: 46 + 12 }
        })
        expect(first.files).toEqual(files.slice(0, 20))
        expect(first.nextCursor).not.toBeNull()
        const second = yield* changes(owner.key, { threadId, cursor: first.nextCursor })
        expect(second.files).toEqual(files.slice(20, 40))
        const third = yield* changes(owner.key, { threadId, cursor: second.nextCursor })
        expect(third.files).toEqual([...files.slice(40), renamed, lock])
        expect(third.nextCursor).toBeNull()

        // One file by its path, or by the path it was renamed from.
        expect((yield* changes(owner.key, { threadId, path: "src/file-007.ts" })).files).toEqual([files[7]])
        expect((yield* changes(owner.key, { threadId, path: "src/old name.ts" })).files).toEqual([renamed])
        expect((yield* changes(owner.key, { threadId, path: "nowhere.ts" })).files).toEqual([])

        // The web app's route reads the same page.
        const route = yield* rawRequest({
          method: "GET",
          path: `/api/threads/${threadId}/changes?limit=20`,
          headers: { authorization: `Bearer ${owner.key}` }
        })
        expect(route.status).toBe(200)
        expect(Schema.decodeUnknownSync(ChangesPage)(route.json)).toEqual(first)
      }))

    it.effect("a cursor stays on its report when a newer one arrives; reportId reads an earlier report", () =>
      Effect.gen(function*() {
        const { cli, epoch, owner, threadId } = yield* claimed("changes-cursor")
        const older = yield* report(cli, threadId, epoch, Array.from({ length: 30 }, (_, i) => file(i)))
        const first = yield* changes(owner.key, { threadId, limit: 25 })
        const newer = yield* report(cli, threadId, epoch, [file(99)])
        const rest = yield* changes(owner.key, { threadId, limit: 25, cursor: first.nextCursor })
        expect(rest.report?.reportId).toBe(older.reportId)
        expect(rest.files.map((f) => f.path)).toEqual(Array.from({ length: 5 }, (_, i) => file(25 + i).path))
        expect((yield* changes(owner.key, { threadId })).report?.reportId).toBe(newer.reportId)
        expect((yield* changes(owner.key, { threadId, reportId: older.reportId })).files).toHaveLength(20)
        expect(yield* toolError(owner.key, "get_thread_changes", { threadId, cursor: "not-a-cursor" })).toMatchObject({
          code: "invalid_argument"
        })
      }))

    it.effect("a page ends once its patches pass the page's budget", () =>
      Effect.gen(function*() {
        const { cli, epoch, owner, threadId } = yield* claimed("changes-page-budget")
        // Ten patches of 200,000 characters: five fill a page of 1 MiB, a sixth would pass it.
        const files = Array.from({ length: 10 }, (_, i) => file(i, 200_000))
        yield* report(cli, threadId, epoch, files)
        const first = yield* changes(owner.key, { threadId, limit: 100 })
        expect(first.files.map((f) => f.path)).toEqual(files.slice(0, 5).map((f) => f.path))
        const second = yield* changes(owner.key, { threadId, limit: 100, cursor: first.nextCursor })
        expect(second.files.map((f) => f.path)).toEqual(files.slice(5).map((f) => f.path))
        expect(second.nextCursor).toBeNull()
      }))

    it.effect("a thread without a report answers report: null", () =>
      Effect.gen(function*() {
        const { owner, threadId } = yield* claimed("changes-none")
        expect(yield* changes(owner.key, { threadId })).toEqual({ report: null, files: [], nextCursor: null })
      }))

    it.effect("a report under a stale claim is refused and stores nothing", () =>
      Effect.gen(function*() {
        const { cli, epoch, threadId } = yield* claimed("changes-stale")
        yield* cli.client.agent.release({ path: { threadId }, payload: { sessionId: cli.sessionId, epoch } })
        const again = yield* claimThread(cli, threadId)
        expect(again.epoch).toBeGreaterThan(epoch)
        expect(yield* outcome(report(cli, threadId, epoch, [file(1)]))).toBe("ClaimLost")
        expect(yield* storedReports(threadId)).toEqual([])
        expect(yield* outcome(report(cli, threadId, again.epoch, [file(1)]))).toBe("accepted")
      }))

    it.effect("a payload over a cap is refused naming the field and the rule", () =>
      Effect.gen(function*() {
        const { cli, epoch, owner, threadId } = yield* claimed("changes-caps")
        const path = `/api/agent/threads/${threadId}/changes`
        const send = (files: ReadonlyArray<ChangedFile>) => post(owner.key, path, { sessionId: cli.sessionId, epoch, ...body(files) })
        const refusal = (response: { readonly status: number; readonly json: unknown }) => {
          expect(response.status).toBe(400)
          return JSON.stringify(response.json)
        }

        const overFile = refusal(yield* send([file(0), file(1, MAX_FILE_PATCH + 1)]))
        expect(overFile).toContain("HttpApiDecodeError")
        expect(overFile).toContain(`"path":["files",1,"patch"]`)
        expect(overFile).toContain(`must be at most ${MAX_FILE_PATCH} characters`)

        const overTotal = refusal(yield* send(Array.from({ length: 9 }, (_, i) => file(i, MAX_FILE_PATCH))))
        expect(overTotal).toContain(`"path":["files"]`)
        expect(overTotal).toContain(`patches must total at most ${MAX_TOTAL_PATCH} characters`)

        const overCount = refusal(yield* send(Array.from({ length: MAX_REPORT_FILES + 1 }, (_, i) => ({ ...file(i, 0), patch: null }))))
        expect(overCount).toContain(`must hold at most ${MAX_REPORT_FILES} files`)

        const badCommit = refusal(yield* post(owner.key, path, { sessionId: cli.sessionId, epoch, ...body([]), baseCommit: "main" }))
        expect(badCommit).toContain(`"path":["baseCommit"]`)

        expect(yield* storedReports(threadId)).toEqual([])
      }))

    it.effect("a key that cannot read the thread gets not found, as for get_thread", () =>
      Effect.gen(function*() {
        const { cli, epoch, owner, threadId } = yield* claimed("changes-access")
        yield* report(cli, threadId, epoch, [file(1)])
        const stranger = yield* seedOwner("changes-access-other")
        const strangerCli = yield* connectCli(stranger.key, stranger.project.id)
        const notFound = { code: "not_found", message: "Thread not found" }
        expect(yield* toolError(stranger.key, "get_thread", { threadId })).toEqual(notFound)
        expect(yield* toolError(stranger.key, "get_thread_changes", { threadId })).toEqual(notFound)
        const route = yield* rawRequest({
          method: "GET",
          path: `/api/threads/${threadId}/changes`,
          headers: { authorization: `Bearer ${stranger.key}` }
        })
        expect({ status: route.status, body: route.json }).toEqual({ status: 404, body: { _tag: "NotFound", message: "Thread not found" } })
        const write = yield* post(stranger.key, `/api/agent/threads/${threadId}/changes`, {
          sessionId: strangerCli.sessionId,
          epoch,
          ...body([])
        })
        expect(write.status).toBe(404)
        expect(yield* storedReports(threadId)).toHaveLength(1)
        // The owner still reads it.
        expect((yield* changes(owner.key, { threadId })).files).toHaveLength(1)
      }))

    it.effect(`only the newest ${KEPT_REPORTS_PER_THREAD} reports of a thread are kept`, () =>
      Effect.gen(function*() {
        const { cli, epoch, owner, threadId } = yield* claimed("changes-kept")
        const ids: Array<string> = []
        for (let i = 0; i < KEPT_REPORTS_PER_THREAD + 3; i++) ids.push((yield* report(cli, threadId, epoch, [file(i)])).reportId)
        expect(yield* storedReports(threadId)).toEqual(ids.slice(3))
        expect((yield* changes(owner.key, { threadId })).report?.reportId).toBe(ids[ids.length - 1])
        expect(yield* toolError(owner.key, "get_thread_changes", { threadId, reportId: ids[0] })).toMatchObject({ code: "not_found" })
      }))

    it.effect("the OpenAPI document lists the report and its read, with the caps", () =>
      Effect.gen(function*() {
        const res = yield* rawRequest({ method: "GET", path: "/api/openapi.json" })
        expect(res.status).toBe(200)
        const paths = Object.keys(Object(Reflect.get(Object(res.json), "paths")))
        expect(paths).toEqual(expect.arrayContaining(["/api/agent/threads/{threadId}/changes", "/api/threads/{threadId}/changes"]))
        expect(res.text).toContain(`"maxItems":${MAX_REPORT_FILES}`)
      }))

    it.effect("a stored report tells the thread's project that the thread changed", () =>
      Effect.gen(function*() {
        const { cli, epoch, owner, threadId } = yield* claimed("changes-live")
        const live = yield* LiveEvents
        const queue = yield* live.projectChanges(owner.project.id)
        // What creating the thread told the project may still be on its way: let it pass first.
        yield* realSleep(500)
        yield* Queue.takeAll(queue)
        yield* report(cli, threadId, epoch, [file(1)])
        const change = yield* Queue.take(queue)
        expect(change).toMatchObject({ projectId: owner.project.id, threadId })
      }).pipe(Effect.scoped))
  })
})
