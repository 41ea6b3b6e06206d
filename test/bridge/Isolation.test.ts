import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, Option, Schema } from "effect"
import type { ProjectRole } from "../../catalog/domain/Roles.js"
import { Memberships } from "../../src/orgs/Memberships.js"
import { Users } from "../../src/orgs/Users.js"
import {
  claimThread,
  claude,
  connectCli,
  createThread,
  type FakeCli,
  numbered,
  startBatch,
  threadRecord,
  toolError
} from "../support/FakeCli.js"
import { missingThreadId } from "../support/ThreadFixtures.js"
import { rawRequest, TestServer, type Transport } from "../support/TestServer.js"
import { createKey, seedOwner } from "../support/Seed.js"

/**
 * Issue 22 §3: a CLI session learns nothing about a thread it cannot read. Every write it makes
 * on such a thread is answered as `get_thread` answers, 404 `Thread not found` (the body a thread
 * that never existed gets), before any lock or claim check, and the thread stays as it was.
 * A project viewer may change nothing, so neither registers a CLI profile nor starts threads.
 */

const noRateLimit = { rateLimit: Option.none() }

/** The eight per-thread writes of the bridge, each with a payload valid for the given claim. */
const writes = (sessionId: string, epoch: number, messageId: string) => ({
  renew: { sessionId, epoch },
  batch: { sessionId, epoch },
  chunks: { sessionId, epoch, messageId, chunks: numbered([claude.text("not mine to write")]) },
  complete: { sessionId, epoch, messageId },
  fail: { sessionId, epoch, messageId, errorMessage: "not mine to fail" },
  worktree: { sessionId, epoch, path: "/home/intruder/wt", branch: "intrude" },
  interactions: { sessionId, epoch, kind: "permission", request: { tool: "Bash" } },
  release: { sessionId, epoch }
})

const post = (key: string, path: string, body: unknown) =>
  rawRequest({ path, body: JSON.stringify(body), headers: { authorization: `Bearer ${key}` } })

/** Org A's thread, claimed by its owner's CLI with a batch streaming. */
const streamingThread = (slug: string) =>
  Effect.gen(function*() {
    const owner = yield* seedOwner(slug)
    const cli = yield* connectCli(owner.key, owner.project.id)
    const thread = yield* createThread(owner.key, cli.target, "Refactor the parser")
    const claimed = yield* claimThread(cli, thread.threadId)
    const batch = yield* startBatch(cli, claimed)
    return { owner, cli, threadId: thread.threadId, epoch: claimed.epoch, messageId: batch.assistantMessageId }
  })

/** What a write could have left behind on the thread: its claim record, chunks, interactions and worktree. */
const traces = (threadId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql`
      SELECT (SELECT count(*)::int FROM thread_chunks WHERE thread_id = ${threadId}) AS chunks,
        (SELECT count(*)::int FROM thread_interactions WHERE thread_id = ${threadId}) AS interactions,
        t.status, t.worktree IS NOT NULL AS "hasWorktree"
      FROM threads t WHERE t.id = ${threadId}`.pipe(Effect.orDie)
    const Traces = Schema.Struct({ chunks: Schema.Number, interactions: Schema.Number, status: Schema.String, hasWorktree: Schema.Boolean })
    const [row] = yield* Schema.decodeUnknown(Schema.Array(Traces))(rows).pipe(Effect.orDie)
    return { ...row, record: yield* threadRecord(threadId) }
  })

/** A session's eight writes on `threadId`: each answers 404 with exactly the body of a thread that does not exist. */
const expectEveryWriteNotFound = (
  key: string,
  cli: FakeCli,
  target: { readonly threadId: string; readonly epoch: number; readonly messageId: string }
) =>
  Effect.gen(function*() {
    for (const [path, payload] of Object.entries(writes(cli.sessionId, target.epoch, target.messageId))) {
      const unreadable = yield* post(key, `/api/agent/threads/${target.threadId}/${path}`, payload)
      const missing = yield* post(key, `/api/agent/threads/${missingThreadId}/${path}`, payload)
      expect({ path, status: unreadable.status, body: unreadable.json }).toEqual({
        path,
        status: 404,
        body: { _tag: "NotFound", message: "Thread not found" }
      })
      expect({ path, status: missing.status, body: missing.text }).toEqual({ path, status: 404, body: unreadable.text })
    }
  })

describe.each<Transport>(["platform", "node"])("a thread the session cannot read, on the %s transport", (transport) => {
  layer(TestServer(noRateLimit, transport))((it) => {
    it.effect("another organization's session gets 404 Thread not found on all eight writes, and the thread is untouched", () =>
      Effect.gen(function*() {
        const a = yield* streamingThread(`iso-a-${transport}`)
        const b = yield* seedOwner(`iso-b-${transport}`)
        const bCli = yield* connectCli(b.key, b.project.id)
        const before = yield* traces(a.threadId)
        yield* expectEveryWriteNotFound(b.key, bCli, a)
        expect(yield* traces(a.threadId)).toEqual(before)
        // The owner's claim still holds: their next write goes through under the same epoch.
        const renewed = yield* post(a.owner.key, `/api/agent/threads/${a.threadId}/renew`, { sessionId: a.cli.sessionId, epoch: a.epoch })
        expect(renewed.status, renewed.text).toBe(200)
      }))

    it.effect("a teammate's session gets 404 on a thread not shared with them, as get_thread answers them", () =>
      Effect.gen(function*() {
        const a = yield* streamingThread(`iso-mate-${transport}`)
        const mate = yield* (yield* Users).create({ name: "Mate", email: `mate-${transport}@iso.test` })
        yield* (yield* Memberships).addToProject(a.owner.project.id, mate.id, "member")
        const mateKey = (yield* createKey(mate.id, null)).secret
        const mateCli = yield* connectCli(mateKey, a.owner.project.id, { name: "mate-box", path: "/home/mate/project" })
        expect(yield* toolError(mateKey, "get_thread", { threadId: a.threadId })).toEqual({
          code: "not_found",
          message: "Thread not found"
        })
        const before = yield* traces(a.threadId)
        yield* expectEveryWriteNotFound(mateKey, mateCli, a)
        expect(yield* traces(a.threadId)).toEqual(before)
      }))
  })
})

// Two connections are needed to hold a row lock while another request runs: PGlite has one.
describe.runIf(process.env["DATABASE_URL"] !== undefined)("a thread the session cannot read, while its owner holds it locked", () => {
  layer(TestServer(noRateLimit))((it) => {
    it.effect("another organization's write is refused without waiting for the thread's row lock", () =>
      Effect.gen(function*() {
        const a = yield* streamingThread("iso-lock-a")
        const b = yield* seedOwner("iso-lock-b")
        const bCli = yield* connectCli(b.key, b.project.id)
        const sql = yield* SqlClient.SqlClient
        const locked = yield* Deferred.make<void>()
        const unlock = yield* Deferred.make<void>()
        const holder = yield* Effect.fork(
          sql.withTransaction(Effect.gen(function*() {
            yield* sql`SELECT id FROM threads WHERE id = ${a.threadId} FOR UPDATE`
            yield* Deferred.succeed(locked, undefined)
            yield* Deferred.await(unlock)
          })).pipe(Effect.orDie)
        )
        yield* Deferred.await(locked)
        const refused = yield* post(b.key, `/api/agent/threads/${a.threadId}/chunks`, writes(bCli.sessionId, a.epoch, a.messageId).chunks)
        yield* Deferred.succeed(unlock, undefined)
        yield* Fiber.join(holder)
        expect({ status: refused.status, body: refused.json }).toEqual({
          status: 404,
          body: { _tag: "NotFound", message: "Thread not found" }
        })
      }))
  })
})

const FORBIDDEN_FOR_VIEWER = "requires the project role member or admin; the caller is viewer"

/** A user of the owner's organization with `role` in its project, and an API key. */
const projectMember = (owner: Effect.Effect.Success<ReturnType<typeof seedOwner>>, role: ProjectRole) =>
  Effect.gen(function*() {
    const user = yield* (yield* Users).create({ name: `A ${role}`, email: `${role}@${owner.organization.slug}.test` })
    yield* (yield* Memberships).addToProject(owner.project.id, user.id, role)
    return { user, key: (yield* createKey(user.id, null)).secret }
  })

describe("a project viewer changes nothing", () => {
  layer(TestServer(noRateLimit))((it) => {
    it.effect("registering a CLI profile needs the project role member or admin: a viewer is forbidden", () =>
      Effect.gen(function*() {
        const owner = yield* seedOwner("roles-register")
        const viewer = yield* projectMember(owner, "viewer")
        const refused = yield* post(viewer.key, "/api/agent/register", {
          projectId: owner.project.id,
          name: "viewer-box",
          hostname: "viewer.local",
          appVersion: "0.1.0",
          availableClis: [{ type: "claude", version: "2.1.197" }],
          paths: [{ path: "/home/viewer/project" }],
          force: false
        })
        expect(refused.status, refused.text).toBe(403)
        expect(refused.json).toMatchObject({ _tag: "Forbidden", message: expect.stringContaining(FORBIDDEN_FOR_VIEWER) })
        const sql = yield* SqlClient.SqlClient
        const profiles = yield* sql`SELECT id FROM cli_profiles WHERE user_id = ${viewer.user.id}`.pipe(Effect.orDie)
        expect(profiles).toHaveLength(0)
        for (const role of ["member", "admin"] as const) {
          const writer = yield* projectMember(owner, role)
          const cli = yield* connectCli(writer.key, owner.project.id, { name: `${role}-box`, path: `/home/${role}/project` })
          expect(cli.profile.projectId).toBe(owner.project.id)
        }
      }))

    it.effect("create_thread (and a workflow run) needs the project role member or admin: a member demoted to viewer keeps their profile but is forbidden", () =>
      Effect.gen(function*() {
        const owner = yield* seedOwner("roles-create")
        const memberships = yield* Memberships
        for (const role of ["member", "admin"] as const) {
          const writer = yield* projectMember(owner, role)
          const cli = yield* connectCli(writer.key, owner.project.id, { name: `${role}-box`, path: `/home/${role}/project` })
          const thread = yield* createThread(writer.key, cli.target, `Started by a project ${role}`)
          expect(thread.status).toBe("pending")
          if (role === "member") {
            yield* memberships.addToProject(owner.project.id, writer.user.id, "viewer")
            const refused = yield* toolError(writer.key, "create_thread", { content: "Start anyway", ...cli.target, cliType: "claude" })
            expect(refused.code).toBe("forbidden")
            expect(refused.message).toContain(FORBIDDEN_FOR_VIEWER)
            const run = yield* Effect.either(
              cli.client.threads.createWorkflowRun({ payload: { projectId: owner.project.id, title: "Nightly" } })
            )
            expect(run._tag === "Left" ? run.left : run).toMatchObject({
              _tag: "Forbidden",
              message: expect.stringContaining(FORBIDDEN_FOR_VIEWER)
            })
          }
        }
      }))
  })
})
