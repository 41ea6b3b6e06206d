import { describe, expect, layer } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import { CliProfile } from "../../catalog/domain/CliProfile.js"
import type { ProjectId } from "../../catalog/domain/Ids.js"
import { Memberships } from "../../src/orgs/Memberships.js"
import { Projects } from "../../src/projects/Projects.js"
import { Users } from "../../src/orgs/Users.js"
import {
  bridgeClient,
  claimThread,
  connectCli,
  createThread,
  getThread,
  outcome,
  registerCli,
  threadRecord,
  tool,
  toolError
} from "../support/FakeCli.js"
import { ageHeartbeat, sweepOnce } from "../support/Expiry.js"
import { rawRequest, TestServer } from "../support/TestServer.js"
import { createKey, seedOwner } from "../support/Seed.js"

/** SPEC "Session lifecycle", "CLI bridge HTTP endpoints" and "Authentication" for the bridge. */

const noRateLimit = { rateLimit: Option.none() }

/** Normal timings; the background sweeper stays out of the way and each test ages heartbeats and sweeps itself. */
const manualSweep = {
  ...noRateLimit,
  bridge: { heartbeatIntervalMs: 30_000, sessionTtlMs: 60_000, claimLeaseMs: 60_000, sweepIntervalMs: 3_600_000 }
}

const listProfiles = (key: string, projectId: ProjectId) =>
  Effect.map(
    tool(key, "list_cli_profiles", { projectId }, Schema.Struct({ profiles: Schema.Array(CliProfile) })),
    (result) => result.profiles
  )

const registerBody = (projectId: string, options: { readonly profileId?: string; readonly force?: boolean } = {}) =>
  JSON.stringify({
    ...(options.profileId === undefined ? {} : { profileId: options.profileId }),
    projectId,
    name: "laptop",
    hostname: "laptop.local",
    appVersion: "0.1.0",
    availableClis: [{ type: "claude", version: "2.1.197" }],
    paths: [{ path: "/home/dev/project" }],
    ...(options.force === undefined ? {} : { force: options.force })
  })

const post = (path: string, key: string | undefined, body: string) =>
  rawRequest({ path, body, headers: key === undefined ? {} : { authorization: `Bearer ${key}` } })

/** A teammate: a member of the project, with their own API key. */
const teammate = (projectId: ProjectId, slug: string) =>
  Effect.gen(function*() {
    const user = yield* (yield* Users).create({ name: `Teammate of ${slug}`, email: `mate@${slug}.test` })
    yield* (yield* Memberships).addToProject(projectId, user.id, "member")
    return { user, key: (yield* createKey(user.id, null)).secret }
  })

describe("CLI sessions", () => {
  layer(TestServer(noRateLimit))((it) => {
    it.effect("register returns a session, the profile with a path ID per reported checkout, and the bridge timings", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("sess-register")
        const client = yield* bridgeClient(key)
        const registered = yield* registerCli(client, project.id, { paths: ["/home/dev/api", "/home/dev/web"] })
        expect(registered.sessionId).toMatch(/^session_[0-9a-f]{32}$/)
        expect(registered.timings).toEqual({ heartbeatIntervalMs: 30_000, sessionTtlMs: 60_000, claimLeaseMs: 60_000 })
        expect(registered.profile).toMatchObject({
          projectId: project.id,
          name: "laptop",
          hostname: "laptop.local",
          appVersion: "0.1.0",
          isOnline: true
        })
        expect(registered.profile.availableClis.map((c) => c.type)).toEqual(["claude", "codex", "opencode"])
        const paths = [...registered.profile.paths].sort((a, b) => a.path.localeCompare(b.path))
        expect(paths.map((p) => [p.path, p.label, p.kind, p.branch, p.gitRemoteUrl])).toEqual([
          ["/home/dev/api", "api", "checkout", "main", "git@example.com:acme/project.git"],
          ["/home/dev/web", "web", "checkout", "main", "git@example.com:acme/project.git"]
        ])
        for (const p of paths) expect(p.pathId).toMatch(/^path_[0-9a-f]{32}$/)
        expect(new Set(paths.map((p) => p.pathId)).size).toBe(2)

        const [listed] = yield* listProfiles(key, project.id)
        expect(listed?.profileId).toBe(registered.profile.profileId)
        expect(listed?.isOnline).toBe(true)
        expect(new Set(listed?.paths.map((p) => p.pathId))).toEqual(new Set(paths.map((p) => p.pathId)))
      }))

    it.effect("registering again with the returned profileId keeps path IDs stable and retires paths no longer reported", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("sess-paths")
        const client = yield* bridgeClient(key)
        const first = yield* registerCli(client, project.id, { paths: ["/src/a", "/src/b"] })
        const idOf = (profile: typeof first.profile, path: string) => profile.paths.find((p) => p.path === path)?.pathId
        const a = idOf(first.profile, "/src/a")
        const b = idOf(first.profile, "/src/b")
        yield* client.agent.disconnect({ payload: { sessionId: first.sessionId } })

        const second = yield* registerCli(client, project.id, { profileId: first.profile.profileId, paths: ["/src/b", "/src/c"] })
        expect(second.profile.profileId).toBe(first.profile.profileId)
        expect(second.sessionId).not.toBe(first.sessionId)
        expect(idOf(second.profile, "/src/b")).toBe(b)
        expect(idOf(second.profile, "/src/c")).toEqual(expect.stringMatching(/^path_/))
        expect(idOf(second.profile, "/src/c")).not.toBe(a)
        expect(second.profile.paths.map((p) => p.path).sort()).toEqual(["/src/b", "/src/c"])
        const [listed] = yield* listProfiles(key, project.id)
        expect(listed?.paths.map((p) => p.path).sort()).toEqual(["/src/b", "/src/c"])
        expect(yield* listProfiles(key, project.id)).toHaveLength(1)

        // A retired checkout is no longer a thread target.
        const refused = yield* toolError(key, "create_thread", {
          content: "Work in a",
          profileId: first.profile.profileId,
          pathId: a,
          cliType: "claude"
        })
        expect(refused.code).toBe("not_found")

        // Reported again, the checkout comes back under its old ID.
        yield* client.agent.disconnect({ payload: { sessionId: second.sessionId } })
        const third = yield* registerCli(client, project.id, { profileId: first.profile.profileId, paths: ["/src/a", "/src/b", "/src/c"] })
        expect(idOf(third.profile, "/src/a")).toBe(a)
        expect(idOf(third.profile, "/src/b")).toBe(b)
      }))

    it.effect("a second live session for a profile is 409 SessionConflict unless force=true, which ends the old session and releases its claims", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("sess-conflict")
        const old = yield* connectCli(key, project.id)
        const thread = yield* createThread(key, old.target, "Held by the old process")
        const oldClaim = yield* claimThread(old)

        const conflict = yield* Effect.flip(registerCli(old.client, project.id, {
          profileId: old.profile.profileId,
          name: "RENAMED-BY-CONFLICT",
          paths: ["/elsewhere"]
        }))
        expect(conflict).toMatchObject({ _tag: "SessionConflict", sessionId: old.sessionId })
        const raw = yield* post("/api/agent/register", key, registerBody(project.id, { profileId: old.profile.profileId }))
        expect(raw.status).toBe(409)
        expect(raw.json).toMatchObject({ _tag: "SessionConflict", sessionId: old.sessionId })
        // The refused registration changed nothing.
        const [unchanged] = yield* listProfiles(key, project.id)
        expect(unchanged?.name).toBe("laptop")
        expect(unchanged?.paths.map((p) => p.path)).toEqual(["/home/dev/project"])
        expect(yield* old.client.agent.heartbeat({ payload: { sessionId: old.sessionId } })).toMatchObject({ sessionTtlMs: 60_000 })
        expect((yield* threadRecord(thread.threadId)).claimedBySessionId).toBe(old.sessionId)

        const taken = yield* connectCli(key, project.id, { profileId: old.profile.profileId, force: true })
        expect(taken.sessionId).not.toBe(old.sessionId)
        expect(taken.target).toEqual(old.target)

        const expired = yield* Effect.flip(old.client.agent.heartbeat({ payload: { sessionId: old.sessionId } }))
        expect(expired).toMatchObject({ _tag: "SessionExpired", action: "register" })
        const rawExpired = yield* post("/api/agent/heartbeat", key, JSON.stringify({ sessionId: old.sessionId }))
        expect(rawExpired.status).toBe(410)
        expect(rawExpired.json).toMatchObject({ _tag: "SessionExpired", action: "register" })

        expect(yield* threadRecord(thread.threadId)).toMatchObject({ claimedBySessionId: null, processingState: "pending" })
        const claim = yield* claimThread(taken)
        expect(claim.threadId).toBe(thread.threadId)
        expect(claim.epoch).toBeGreaterThan(oldClaim.epoch)
      }))

    it.effect("disconnect ends the session and releases its claims", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("sess-disconnect")
        const cli = yield* connectCli(key, project.id)
        const thread = yield* createThread(key, cli.target, "Half done")
        const claim = yield* claimThread(cli)

        yield* cli.client.agent.disconnect({ payload: { sessionId: cli.sessionId } })
        expect(yield* threadRecord(thread.threadId)).toMatchObject({ claimedBySessionId: null, processingState: "pending" })
        expect(yield* getThread(key, thread.threadId)).toMatchObject({ status: "pending", targetOnline: false })
        expect((yield* listProfiles(key, project.id))[0]?.isOnline).toBe(false)
        for (
          const error of [
            yield* Effect.flip(cli.client.agent.heartbeat({ payload: { sessionId: cli.sessionId } })),
            yield* Effect.flip(cli.client.agent.claim({ payload: { sessionId: cli.sessionId } }))
          ]
        ) {
          expect(error).toMatchObject({ _tag: "SessionExpired", action: "register" })
        }
        // Disconnecting again is harmless.
        yield* cli.client.agent.disconnect({ payload: { sessionId: cli.sessionId } })

        // The next process registers without force and picks the thread up under a newer epoch.
        const next = yield* connectCli(key, project.id, { profileId: cli.profile.profileId })
        const again = yield* claimThread(next)
        expect(again.threadId).toBe(thread.threadId)
        expect(again.epoch).toBeGreaterThan(claim.epoch)
      }))

    it.effect("another user's session or profile is not found (404) and not usable", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("sess-other-user")
        const mine = yield* connectCli(key, project.id)
        const thread = yield* createThread(key, mine.target, "Mine only")
        const mate = yield* teammate(project.id, "sess-other-user")
        const theirs = yield* connectCli(mate.key, project.id, { name: "mate-laptop" })

        expect(
          yield* Effect.all({
            heartbeat: outcome(theirs.client.agent.heartbeat({ payload: { sessionId: mine.sessionId } })),
            claim: outcome(theirs.client.agent.claim({ payload: { sessionId: mine.sessionId } })),
            claimThread: outcome(theirs.client.agent.claim({ payload: { sessionId: mine.sessionId, threadId: thread.threadId } })),
            disconnect: outcome(theirs.client.agent.disconnect({ payload: { sessionId: mine.sessionId } })),
            register: outcome(registerCli(theirs.client, project.id, { profileId: mine.profile.profileId, force: true }))
          })
        ).toEqual({ heartbeat: "NotFound", claim: "NotFound", claimThread: "NotFound", disconnect: "NotFound", register: "NotFound" })
        const raw = yield* post("/api/agent/heartbeat", mate.key, JSON.stringify({ sessionId: mine.sessionId }))
        expect(raw.status).toBe(404)

        // Their own session cannot reach my profile's queue either.
        expect((yield* theirs.client.agent.claim({ payload: { sessionId: theirs.sessionId, threadId: thread.threadId } })).thread)
          .toBeNull()
        expect((yield* theirs.client.agent.claim({ payload: { sessionId: theirs.sessionId } })).thread).toBeNull()
        expect((yield* toolError(mate.key, "create_thread", { content: "x", ...mine.target, cliType: "claude" })).code).toBe("not_found")
        expect((yield* listProfiles(mate.key, project.id)).map((p) => p.profileId)).toEqual([theirs.profile.profileId])

        // My session and claim are untouched.
        expect(yield* mine.client.agent.heartbeat({ payload: { sessionId: mine.sessionId } })).toMatchObject({ sessionTtlMs: 60_000 })
        expect((yield* threadRecord(thread.threadId)).claimedBySessionId).toBeNull()
        expect((yield* claimThread(mine)).threadId).toBe(thread.threadId)
      }))

    it.effect("a key narrowed to another project cannot register for this project (403)", () =>
      Effect.gen(function*() {
        const { key, organization, project, user } = yield* seedOwner("sess-narrow")
        const other = yield* (yield* Projects).create({ organizationId: organization.id, name: "Other", ref: "OTHER" })
        const narrowed = (yield* createKey(user.id, [other.id])).secret
        const client = yield* bridgeClient(narrowed)

        const refused = yield* Effect.flip(registerCli(client, project.id))
        expect(refused._tag).toBe("Forbidden")
        const raw = yield* post("/api/agent/register", narrowed, registerBody(project.id))
        expect(raw.status).toBe(403)
        expect(yield* listProfiles(key, project.id)).toEqual([])

        // A profile serves one project: this project's profile cannot be registered for the other one.
        const mine = yield* connectCli(key, project.id)
        yield* mine.client.agent.disconnect({ payload: { sessionId: mine.sessionId } })
        const moved = yield* Effect.flip(registerCli(client, other.id, { profileId: mine.profile.profileId }))
        expect(moved._tag).toBe("Forbidden")
        // Its own project works.
        expect((yield* registerCli(client, other.id)).profile.projectId).toBe(other.id)
      }))

    it.effect("every route that takes a session answers alike: another user's session is 404, a narrowed key's 403, an ended one 410", () =>
      Effect.gen(function*() {
        const { key, organization, project, user } = yield* seedOwner("sess-one-answer")
        const other = yield* (yield* Projects).create({ organizationId: organization.id, name: "Other", ref: "OTHER" })
        const cli = yield* connectCli(key, project.id)
        const stranger = (yield* seedOwner("sess-one-answer-stranger")).key
        const narrowed = (yield* createKey(user.id, [other.id])).secret
        /** The status of each session route for `caller`: heartbeat and claim (the bridge's two checks), and the pending stream. */
        const statuses = (caller: string) =>
          Effect.all({
            heartbeat: Effect.map(post("/api/agent/heartbeat", caller, JSON.stringify({ sessionId: cli.sessionId })), (r) => r.status),
            claim: Effect.map(post("/api/agent/claim", caller, JSON.stringify({ sessionId: cli.sessionId })), (r) => r.status),
            pending: Effect.map(
              rawRequest({
                method: "GET",
                path: `/api/agent/sessions/${cli.sessionId}/pending`,
                headers: { authorization: `Bearer ${caller}` }
              }),
              (r) => r.status
            )
          })
        expect(yield* statuses(stranger)).toEqual({ heartbeat: 404, claim: 404, pending: 404 })
        expect(yield* statuses(narrowed)).toEqual({ heartbeat: 403, claim: 403, pending: 403 })
        yield* cli.client.agent.disconnect({ payload: { sessionId: cli.sessionId } })
        expect(yield* statuses(key)).toEqual({ heartbeat: 410, claim: 410, pending: 410 })
      }))

    it.effect("a key narrowed to another project cannot use this project's sessions or threads", () =>
      Effect.gen(function*() {
        const { key, organization, project, user } = yield* seedOwner("sess-narrow-use")
        const other = yield* (yield* Projects).create({ organizationId: organization.id, name: "Other", ref: "OTHER" })
        const cli = yield* connectCli(key, project.id)
        const thread = yield* createThread(key, cli.target, "Only for MAIN keys")
        const narrowed = yield* bridgeClient((yield* createKey(user.id, [other.id])).secret)

        // decisions.md (project access): a project the user sees but the key is narrowed away from is forbidden.
        const refused = "Forbidden"
        expect(
          yield* Effect.all({
            heartbeat: outcome(narrowed.agent.heartbeat({ payload: { sessionId: cli.sessionId } })),
            claim: outcome(narrowed.agent.claim({ payload: { sessionId: cli.sessionId } })),
            disconnect: outcome(narrowed.agent.disconnect({ payload: { sessionId: cli.sessionId } })),
            setQueueHeld: outcome(narrowed.threads.setQueueHeld({ path: { threadId: thread.threadId }, payload: { held: true } })),
            retry: outcome(narrowed.threads.retry({ path: { threadId: thread.threadId } }))
          })
        ).toEqual({ heartbeat: refused, claim: refused, disconnect: refused, setQueueHeld: refused, retry: refused })
        expect(yield* getThread(key, thread.threadId)).toMatchObject({ status: "pending", queueHeldAt: null, targetOnline: true })
        expect((yield* threadRecord(thread.threadId)).claimedBySessionId).toBeNull()
        expect(yield* cli.client.agent.heartbeat({ payload: { sessionId: cli.sessionId } })).toMatchObject({ sessionTtlMs: 60_000 })
      }))

    it.effect("requests without a valid Bearer key are 401", () =>
      Effect.gen(function*() {
        const { project } = yield* seedOwner("sess-unauth")
        for (const key of [undefined, "trellis_not-a-real-key"]) {
          expect((yield* post("/api/agent/register", key, registerBody(project.id))).status).toBe(401)
          expect((yield* post("/api/agent/heartbeat", key, JSON.stringify({ sessionId: `session_${"0".repeat(32)}` }))).status).toBe(401)
          expect((yield* post(`/api/threads/thread_${"0".repeat(32)}/retry`, key, "")).status).toBe(401)
        }
        const anonymous = yield* bridgeClient("")
        const error = yield* Effect.flip(registerCli(anonymous, project.id))
        expect(error._tag).toBe("Unauthorized")
      }))

    it.effect("OpenAPI 3.1 is served at GET /api/openapi.json and lists the bridge endpoints", () =>
      Effect.gen(function*() {
        const res = yield* rawRequest({ method: "GET", path: "/api/openapi.json" })
        expect(res.status).toBe(200)
        const doc = yield* Schema.decodeUnknown(Schema.Struct({
          openapi: Schema.String,
          paths: Schema.Record({ key: Schema.String, value: Schema.Unknown })
        }))(res.json).pipe(Effect.orDie)
        expect(doc.openapi).toMatch(/^3\.1\./)
        expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining([
          "/api/agent/register",
          "/api/agent/heartbeat",
          "/api/agent/disconnect",
          "/api/agent/claim",
          "/api/agent/threads/{threadId}/chunks",
          "/api/threads/{threadId}/retry"
        ]))
        expect(res.text).toContain("bearer")
      }))
  })

  // Silence is made by ageing the session's heartbeat in the database: no second-long TTL to race.
  layer(TestServer(manualSweep), { excludeTestServices: true })((it) => {
    it.effect("a heartbeat after sessionTtlMs of silence is 410 SessionExpired with action register; the session's claims are released", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("sess-ttl")
        const cli = yield* connectCli(key, project.id)
        expect(cli.timings.sessionTtlMs).toBe(60_000)
        const thread = yield* createThread(key, cli.target, "Claimed, then silence")
        const claim = yield* claimThread(cli)

        // A TTL of silence: the session is refused at once, before any sweep.
        yield* ageHeartbeat(cli.sessionId, 60)
        const expired = yield* Effect.flip(cli.client.agent.heartbeat({ payload: { sessionId: cli.sessionId } }))
        expect(expired).toMatchObject({ _tag: "SessionExpired", action: "register" })
        const claimed = yield* Effect.flip(cli.client.agent.claim({ payload: { sessionId: cli.sessionId } }))
        expect(claimed._tag).toBe("SessionExpired")
        const renew = yield* Effect.flip(cli.client.agent.renew({
          path: { threadId: thread.threadId },
          payload: { sessionId: cli.sessionId, epoch: claim.epoch }
        }))
        expect(renew._tag).toBe("SessionExpired")

        expect(yield* sweepOnce).toEqual({ sessionClaims: 1, staleClaims: 0 })
        expect((yield* threadRecord(thread.threadId)).claimedBySessionId).toBeNull()
        expect(yield* getThread(key, thread.threadId)).toMatchObject({ status: "pending", processingState: "pending", targetOnline: false })

        // Registering again needs no force: the expired session holds nothing.
        const next = yield* connectCli(key, project.id, { profileId: cli.profile.profileId })
        const again = yield* claimThread(next)
        expect(again.threadId).toBe(thread.threadId)
        expect(again.epoch).toBeGreaterThan(claim.epoch)
      }))

    it.effect("a session that heartbeats within sessionTtlMs stays alive and keeps its claims", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("sess-alive")
        const cli = yield* connectCli(key, project.id)
        const thread = yield* createThread(key, cli.target, "Keep me")
        const claim = yield* claimThread(cli)

        // Silent for most of the TTL, then a heartbeat: the session lives on and the sweeper leaves it.
        yield* ageHeartbeat(cli.sessionId, 55)
        expect(yield* sweepOnce).toEqual({ sessionClaims: 0, staleClaims: 0 })
        yield* cli.client.agent.heartbeat({ payload: { sessionId: cli.sessionId } })
        // Another 55 s of silence: 110 s since registering, but within the TTL counted from that heartbeat.
        yield* ageHeartbeat(cli.sessionId, 55)
        expect(yield* sweepOnce).toEqual({ sessionClaims: 0, staleClaims: 0 })
        expect(yield* cli.client.agent.heartbeat({ payload: { sessionId: cli.sessionId } })).toMatchObject({ sessionTtlMs: 60_000 })

        expect(yield* threadRecord(thread.threadId)).toMatchObject({ claimedBySessionId: cli.sessionId, claimEpoch: claim.epoch })
        expect((yield* getThread(key, thread.threadId)).targetOnline).toBe(true)
        expect((yield* listProfiles(key, project.id))[0]?.isOnline).toBe(true)
      }))
  })
})
