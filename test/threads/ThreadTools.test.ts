import { describe, expect, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { TestServer } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"
import {
  call,
  chunks,
  complete,
  createTask,
  createWorkflowRun,
  disconnect,
  drain,
  failsWith,
  getContainer,
  getOrdinary,
  getThread,
  hasField,
  idsOf,
  listProfiles,
  listThreads,
  markDone,
  missingThreadId,
  okRaw,
  only,
  ownerWithCli,
  registerMachine,
  runToCompletion,
  runToFailure,
  scopedTo,
  secondProject,
  sendMessage,
  setLastActivity,
  pin,
  share,
  softDelete,
  spawn,
  startStreaming,
  teammate,
  threadOn
} from "../support/ThreadFixtures.js"

const noRateLimit = { rateLimit: Option.none() }
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/

describe("thread tools: profiles, get_thread, list_threads", () => {
  layer(TestServer(noRateLimit))((it) => {
    // ---- list_cli_profiles -----------------------------------------------------------------

    it.effect("list_cli_profiles lists only the caller's own profiles in the project, with paths, runtimes and isOnline", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("profiles-own")
        const desktop = yield* registerMachine(owner.key, owner.project.id, { name: "desktop", path: "/work/desktop" })
        const mate = yield* teammate(owner, "mate")
        const elsewhere = yield* secondProject(owner, "SIDE")

        const profiles = yield* listProfiles(owner.key, {}, owner.scope)
        expect(profiles.map((p) => p.profileId).sort()).toEqual([owner.cli.profileId, desktop.profileId].sort())
        expect(profiles.map((p) => p.profileId)).not.toContain(mate.cli.profileId)
        expect(profiles.map((p) => p.profileId)).not.toContain(elsewhere.cli.profileId)

        const laptop = only(profiles.filter((p) => p.profileId === owner.cli.profileId), "the laptop profile")
        expect(laptop).toMatchObject({
          projectId: owner.project.id,
          name: "laptop",
          hostname: "laptop.local",
          appVersion: "0.1.0",
          isOnline: true,
          paths: [{
            pathId: owner.cli.pathId,
            path: "/home/dev/project",
            label: "project",
            gitRemoteUrl: "git@example.com:acme/project.git",
            kind: "checkout",
            parentPathId: null,
            branch: "main"
          }]
        })
        expect(laptop.lastConnectedAt).toMatch(ISO)
        expect(laptop.availableClis.map((c) => c.type)).toEqual(["claude", "codex", "opencode"])
        expect(laptop.availableClis[0]).toMatchObject({ type: "claude", version: "2.1.197" })

        // The teammate sees only their own profile in the same project.
        const theirs = yield* listProfiles(mate.key, {}, owner.scope)
        expect(theirs.map((p) => p.profileId)).toEqual([mate.cli.profileId])
      }))

    it.effect("list_cli_profiles: an offline profile is still listed, with isOnline false", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("profiles-offline")
        yield* disconnect(owner.cli)
        const profile = only(yield* listProfiles(owner.key, {}, owner.scope), "profiles")
        expect(profile).toMatchObject({ profileId: owner.cli.profileId, isOnline: false })
        expect(profile.paths.map((p) => p.pathId)).toEqual([owner.cli.pathId])
      }))

    it.effect("list_cli_profiles: projectId is optional with ?project= (an explicit value wins) and required without it", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("profiles-scope")
        const side = yield* secondProject(owner, "SIDE")
        const viaUrl = yield* listProfiles(owner.key, {}, owner.scope)
        const explicit = yield* listProfiles(owner.key, { projectId: owner.project.id })
        expect(explicit).toEqual(viaUrl)
        expect(viaUrl.map((p) => p.profileId)).toEqual([owner.cli.profileId])
        const overridden = yield* listProfiles(owner.key, { projectId: side.project.id }, owner.scope)
        expect(overridden.map((p) => p.profileId)).toEqual([side.cli.profileId])
        yield* failsWith(owner.key, "list_cli_profiles", {}, { code: "invalid_argument", mentions: "projectId" })
      }))

    // ---- get_thread -------------------------------------------------------------------------

    it.effect("get_thread says whether its owner pinned and shared the thread", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("get-flags")
        const created = yield* threadOn(owner.key, owner.cli)
        expect(created).toMatchObject({ isPinned: false, isShared: false })
        yield* pin(owner.cli, created.threadId)
        expect(yield* getOrdinary(owner.key, created.threadId)).toMatchObject({ isPinned: true, isShared: false })
        yield* share(owner.cli, created.threadId)
        expect(yield* getOrdinary(owner.key, created.threadId)).toMatchObject({ isPinned: true, isShared: true })
      }))

    it.effect("get_thread returns an ordinary thread's fields: target, queue state, targetOnline and lastHeartbeatAt", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("get-ordinary")
        const created = yield* threadOn(owner.key, owner.cli, {
          content: "Fix the login bug",
          cliType: "codex",
          cliModel: "gpt-5",
          cliEffort: "high",
          cliMode: "plan"
        })
        const thread = yield* getOrdinary(owner.key, created.threadId)
        expect(thread).toEqual(created)
        expect(thread).toMatchObject({
          kind: "thread",
          title: "Fix the login bug",
          status: "pending",
          isDone: false,
          associatedTaskId: null,
          parentThreadId: null,
          spawnedByThreadId: null,
          target: {
            profileId: owner.cli.profileId,
            pathId: owner.cli.pathId,
            path: "/home/dev/project",
            cliType: "codex",
            profileName: "laptop"
          },
          cliModel: "gpt-5",
          cliEffort: "high",
          cliMode: "plan",
          processingState: "pending",
          hasPendingUserMessages: true,
          hasPendingInteraction: false,
          queueHeldAt: null,
          targetOnline: true
        })
        expect(thread.threadId).toMatch(/^thread_[0-9a-f]{32}$/)
        expect(thread.createdAt).toMatch(ISO)
        expect(thread.lastActivityAt).toMatch(ISO)
        expect(thread.lastHeartbeatAt).toMatch(ISO)

        // Holding the queue shows as queueHeldAt; get_thread takes no projectId.
        const held = yield* owner.cli.client.threads.setQueueHeld({ path: { threadId: created.threadId }, payload: { held: true } }).pipe(
          Effect.orDie
        )
        expect(held.kind).toBe("thread")
        expect((yield* getOrdinary(owner.key, created.threadId)).queueHeldAt).toMatch(ISO)
        yield* failsWith(owner.key, "get_thread", { threadId: created.threadId, projectId: owner.project.id }, {
          code: "invalid_argument",
          mentions: "projectId"
        })

        // Once the CLI disconnects, the target is offline; the last heartbeat stays known.
        yield* disconnect(owner.cli)
        const offline = yield* getOrdinary(owner.key, created.threadId)
        expect(offline.targetOnline).toBe(false)
        expect(offline.lastHeartbeatAt).toMatch(ISO)
      }))

    it.effect("get_thread returns a group container: kind, childCount, aggregateStatus, originThreadId, and no target or status", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("get-group")
        const origin = yield* threadOn(owner.key, owner.cli, { content: "Plan the migration" })
        const helper = yield* spawn(owner.key, origin.threadId)
        const groupId = helper.parentThreadId
        expect(groupId).not.toBeNull()
        expect(groupId).not.toBe(origin.threadId)

        const group = yield* getContainer(owner.key, groupId ?? "")
        expect(group).toMatchObject({
          threadId: groupId,
          kind: "group",
          title: "Plan the migration",
          isDone: false,
          childCount: 2,
          originThreadId: origin.threadId
        })
        // Both members wait with a pending message: running (decisions.md, group aggregateStatus).
        expect(group.aggregateStatus).toBe("running")
        const raw = yield* okRaw(owner.key, "get_thread", { threadId: groupId })
        for (const field of ["target", "status", "processingState", "hasPendingUserMessages", "parentThreadId"]) {
          expect(hasField(raw, field), `a container has no ${field}`).toBe(false)
        }

        const run = yield* createWorkflowRun(owner.cli, owner.project.id, "Nightly run")
        const workflow = yield* getContainer(owner.key, run.threadId)
        expect(workflow).toMatchObject({ kind: "workflow_run", title: "Nightly run", childCount: 0, originThreadId: null })
      }))

    it.effect("get_thread: a group's aggregateStatus follows its members (running, idle, failed)", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("get-aggregate")
        const origin = yield* threadOn(owner.key, owner.cli)
        const helper = yield* spawn(owner.key, origin.threadId)
        const groupId = helper.parentThreadId ?? ""

        const streaming = yield* startStreaming(owner.cli, origin.threadId, [chunks.text("Working on it")])
        expect((yield* getContainer(owner.key, groupId)).aggregateStatus).toBe("running")
        yield* complete(owner.cli, origin.threadId, streaming.epoch, streaming.assistantMessageId)
        yield* drain(owner.cli, origin.threadId, streaming.epoch)
        yield* runToCompletion(owner.cli, helper.threadId, [chunks.text("Done")])
        expect((yield* getContainer(owner.key, groupId)).aggregateStatus).toBe("idle")

        yield* sendMessage(owner.key, { threadId: helper.threadId, content: "Once more" })
        yield* runToFailure(owner.cli, helper.threadId, [], "The runtime crashed")
        expect((yield* getOrdinary(owner.key, helper.threadId)).status).toBe("failed")
        expect((yield* getContainer(owner.key, groupId)).aggregateStatus).toBe("failed")
      }))

    it.effect("get_thread: a member waiting on an interaction makes its group needs_attention, above a failed and a running member", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("get-attention")
        const origin = yield* threadOn(owner.key, owner.cli)
        const failing = yield* spawn(owner.key, origin.threadId)
        const asking = yield* spawn(owner.key, origin.threadId)
        const groupId = failing.parentThreadId ?? ""

        yield* runToFailure(owner.cli, failing.threadId, [], "The runtime crashed")
        const streaming = yield* startStreaming(owner.cli, asking.threadId, [chunks.text("May I run the tests?")])
        // origin still waits (running), failing failed: failed wins over running.
        expect((yield* getContainer(owner.key, groupId)).aggregateStatus).toBe("failed")

        const asked = yield* owner.cli.client.agent.requestInteraction({
          path: { threadId: asking.threadId },
          payload: { sessionId: owner.cli.sessionId, epoch: streaming.epoch, kind: "permission", request: { tool: "bash" } }
        }).pipe(Effect.orDie)
        expect((yield* getContainer(owner.key, groupId)).aggregateStatus).toBe("needs_attention")

        yield* owner.cli.client.threads.answerInteraction({ path: { interactionId: asked.interactionId }, payload: { deny: true } }).pipe(
          Effect.orDie
        )
        expect((yield* getContainer(owner.key, groupId)).aggregateStatus).toBe("failed")
      }))

    it.effect("get_thread: a nonexistent ID, someone else's thread or a non-thread ID is `Thread not found`", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("get-missing")
        const mate = yield* teammate(owner, "mate")
        const theirs = yield* threadOn(mate.key, mate.cli)
        const theirHelper = yield* spawn(mate.key, theirs.threadId)
        const task = yield* createTask(owner.key, owner.project.id, "A task, not a thread")
        for (
          const threadId of [
            missingThreadId,
            "not-a-thread",
            theirs.threadId,
            theirHelper.parentThreadId ?? "",
            task.taskId,
            owner.cli.profileId,
            owner.project.id
          ]
        ) {
          yield* failsWith(owner.key, "get_thread", { threadId }, { code: "not_found", mentions: "Thread not found" })
        }
        // The owner of the thread reads it.
        expect((yield* getOrdinary(mate.key, theirs.threadId)).threadId).toBe(theirs.threadId)
      }))

    it.effect("get_thread: a teammate's thread inside a group they shared is readable", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("get-shared")
        const mate = yield* teammate(owner, "mate")
        const first = yield* threadOn(mate.key, mate.cli, { content: "Shared investigation" })
        const second = yield* spawn(mate.key, first.threadId)
        const groupId = second.parentThreadId ?? ""
        yield* failsWith(owner.key, "get_thread", { threadId: second.threadId }, { code: "not_found", mentions: "Thread not found" })

        yield* share(mate.cli, second.threadId)
        for (const member of [first, second]) {
          const read = yield* getOrdinary(owner.key, member.threadId)
          expect(read.threadId).toBe(member.threadId)
          expect(read.parentThreadId).toBe(groupId)
          expect(read.target.profileId).toBe(mate.cli.profileId)
        }
        expect((yield* getContainer(owner.key, groupId)).childCount).toBe(2)

        // A lone shared thread is readable too; an unshared one is not.
        const lone = yield* threadOn(mate.key, mate.cli, { content: "Lone" })
        yield* failsWith(owner.key, "get_thread", { threadId: lone.threadId }, { code: "not_found", mentions: "Thread not found" })
        yield* share(mate.cli, lone.threadId)
        expect((yield* getOrdinary(owner.key, lone.threadId)).title).toBe("Lone")
      }))

    // ---- list_threads -----------------------------------------------------------------------

    it.effect("list_threads: the project list holds only the caller's own threads", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("list-own")
        const mate = yield* teammate(owner, "mate")
        const mine = [yield* threadOn(owner.key, owner.cli), yield* threadOn(owner.key, owner.cli)]
        const theirs = yield* threadOn(mate.key, mate.cli)
        yield* share(mate.cli, theirs.threadId)
        const page = yield* listThreads(owner.key, {}, owner.scope)
        expect(idsOf(page.threads).sort()).toEqual(idsOf(mine).sort())
        expect(page.nextCursor).toBeNull()
        const theirPage = yield* listThreads(mate.key, { projectId: owner.project.id })
        expect(idsOf(theirPage.threads)).toEqual([theirs.threadId])
      }))

    it.effect("list_threads: the project list is ordered by most recent activity first", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("list-order")
        const first = yield* threadOn(owner.key, owner.cli, { content: "first" })
        const second = yield* threadOn(owner.key, owner.cli, { content: "second" })
        const third = yield* threadOn(owner.key, owner.cli, { content: "third" })
        expect(idsOf((yield* listThreads(owner.key, {}, owner.scope)).threads)).toEqual(idsOf([third, second, first]))

        yield* sendMessage(owner.key, { threadId: first.threadId, content: "news for the first" })
        const page = yield* listThreads(owner.key, {}, owner.scope)
        expect(idsOf(page.threads)).toEqual(idsOf([first, third, second]))
        const times = page.threads.map((t) => Date.parse(t.lastActivityAt))
        expect(times).toEqual([...times].sort((a, b) => b - a))
      }))

    it.effect("list_threads: a group is one row in the project list", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("list-group-row")
        const lone = yield* threadOn(owner.key, owner.cli, { content: "lone" })
        const origin = yield* threadOn(owner.key, owner.cli, { content: "origin" })
        const helperA = yield* spawn(owner.key, origin.threadId)
        const helperB = yield* spawn(owner.key, origin.threadId)
        const groupId = helperA.parentThreadId ?? ""
        const page = yield* listThreads(owner.key, {}, owner.scope)
        expect(idsOf(page.threads).sort()).toEqual([lone.threadId, groupId].sort())
        const row = only(page.threads.filter((t) => t.threadId === groupId), "the group row")
        expect(row).toMatchObject({ kind: "group", childCount: 3, originThreadId: origin.threadId })
        for (const member of [origin, helperA, helperB]) expect(idsOf(page.threads)).not.toContain(member.threadId)
      }))

    it.effect("list_threads: a group's row moves up when one of its members has activity", () =>
      Effect.gen(function*() {
        // SPEC: the project list is "most recent activity first" and a group is one row, so a
        // group whose member just received a message is the most recently active row.
        const owner = yield* ownerWithCli("list-group-activity")
        const origin = yield* threadOn(owner.key, owner.cli, { content: "origin" })
        const helper = yield* spawn(owner.key, origin.threadId)
        const groupId = helper.parentThreadId ?? ""
        const later = yield* threadOn(owner.key, owner.cli, { content: "later" })
        expect(idsOf((yield* listThreads(owner.key, {}, owner.scope)).threads)).toEqual([later.threadId, groupId])

        yield* sendMessage(owner.key, { threadId: helper.threadId, content: "a new turn in the group" })
        expect(idsOf((yield* listThreads(owner.key, {}, owner.scope)).threads)).toEqual([groupId, later.threadId])
      }))

    it.effect("list_threads: done threads are left out unless includeDone", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("list-done")
        const open = yield* threadOn(owner.key, owner.cli, { content: "open" })
        const finished = yield* threadOn(owner.key, owner.cli, { content: "finished" })
        yield* markDone(owner.cli, finished.threadId)
        expect(idsOf((yield* listThreads(owner.key, {}, owner.scope)).threads)).toEqual([open.threadId])
        expect(idsOf((yield* listThreads(owner.key, { includeDone: false }, owner.scope)).threads)).toEqual([open.threadId])
        const all = yield* listThreads(owner.key, { includeDone: true }, owner.scope)
        expect(idsOf(all.threads).sort()).toEqual([open.threadId, finished.threadId].sort())
        expect(only(all.threads.filter((t) => t.threadId === finished.threadId), "the done thread").isDone).toBe(true)
      }))

    it.effect("list_threads: limit is an integer from 1 to 50, default 20", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("list-limit")
        yield* Effect.forEach(Array.from({ length: 21 }, (_, i) => i), (i) => threadOn(owner.key, owner.cli, { content: `thread ${i}` }))
        const byDefault = yield* listThreads(owner.key, {}, owner.scope)
        expect(byDefault.threads).toHaveLength(20)
        expect(byDefault.nextCursor).not.toBeNull()
        const fifty = yield* listThreads(owner.key, { limit: 50 }, owner.scope)
        expect(fifty.threads).toHaveLength(21)
        expect(fifty.nextCursor).toBeNull()
        expect((yield* listThreads(owner.key, { limit: 1 }, owner.scope)).threads).toHaveLength(1)
        for (const limit of [51, 0, -1, 2.5, "10"]) {
          yield* failsWith(owner.key, "list_threads", { limit }, { code: "invalid_argument", mentions: "limit" }, owner.scope)
        }
      }))

    it.effect("list_threads: cursor paging returns every row once, without duplicates or gaps", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("list-paging")
        yield* Effect.forEach(Array.from({ length: 7 }, (_, i) => i), (i) => threadOn(owner.key, owner.cli, { content: `thread ${i}` }))
        const origin = yield* threadOn(owner.key, owner.cli, { content: "grouped" })
        yield* spawn(owner.key, origin.threadId)
        const everything = idsOf((yield* listThreads(owner.key, { limit: 50 }, owner.scope)).threads)
        expect(everything).toHaveLength(8)

        const seen: Array<string> = []
        const sizes: Array<number> = []
        let cursor: string | null = null
        do {
          const page: Effect.Effect.Success<ReturnType<typeof listThreads>> = yield* listThreads(
            owner.key,
            { limit: 3, cursor },
            owner.scope
          )
          seen.push(...idsOf(page.threads))
          sizes.push(page.threads.length)
          cursor = page.nextCursor
        } while (cursor !== null && sizes.length < 10)
        expect(sizes).toEqual([3, 3, 2])
        expect(seen).toEqual(everything)

        yield* failsWith(
          owner.key,
          "list_threads",
          { cursor: "not-a-cursor" },
          { code: "invalid_argument", mentions: "cursor" },
          owner.scope
        )
      }))

    it.effect("list_threads: paging keeps rows whose last activity falls within the same millisecond", () =>
      Effect.gen(function*() {
        // PostgreSQL keeps microseconds; a cursor must not lose rows that differ below a millisecond.
        const owner = yield* ownerWithCli("list-paging-micro")
        const threads = yield* Effect.forEach([0, 1, 2, 3], (i) => threadOn(owner.key, owner.cli, { content: `thread ${i}` }))
        const stamps = [
          "2030-01-01T00:00:00.123456Z",
          "2030-01-01T00:00:00.123400Z",
          "2030-01-01T00:00:00.123400Z",
          "2030-01-01T00:00:00.122000Z"
        ]
        yield* Effect.forEach(threads, (thread, i) => setLastActivity(thread.threadId, stamps[i] ?? ""))
        const everything = idsOf((yield* listThreads(owner.key, { limit: 50 }, owner.scope)).threads)
        expect(everything).toHaveLength(4)
        expect(everything[0]).toBe(threads[0]?.threadId)
        expect(everything[3]).toBe(threads[3]?.threadId)

        const seen: Array<string> = []
        let cursor: string | null = null
        for (let pages = 0; pages < 6; pages++) {
          const page: Effect.Effect.Success<ReturnType<typeof listThreads>> = yield* listThreads(
            owner.key,
            { limit: 1, cursor },
            owner.scope
          )
          seen.push(...idsOf(page.threads))
          cursor = page.nextCursor
          if (cursor === null) break
        }
        expect(seen).toEqual(everything)
      }))

    it.effect("list_threads with a group's threadId lists its members with full targets, all in one page", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("list-members")
        const origin = yield* threadOn(owner.key, owner.cli, { content: "origin" })
        const helpers = yield* Effect.forEach(["claude", "codex", "opencode"], (cliType) => spawn(owner.key, origin.threadId, { cliType }))
        const groupId = helpers[0]?.parentThreadId ?? ""

        // No projectId needed, and limit and paging do not apply.
        const page = yield* listThreads(owner.key, { threadId: groupId, limit: 1 })
        expect(page.nextCursor).toBeNull()
        expect(idsOf(page.threads).sort()).toEqual(idsOf([origin, ...helpers]).sort())
        for (const member of page.threads) {
          expect(member.kind).toBe("thread")
          expect(member).toMatchObject({
            parentThreadId: groupId,
            target: { profileId: owner.cli.profileId, pathId: owner.cli.pathId, path: "/home/dev/project", profileName: "laptop" }
          })
        }
        const runtimes = page.threads.flatMap((t) => (t.kind === "thread" ? [t.target.cliType] : [])).sort()
        expect(runtimes).toEqual(["claude", "claude", "codex", "opencode"])

        // Done members are left out unless includeDone.
        yield* markDone(owner.cli, origin.threadId)
        expect(idsOf((yield* listThreads(owner.key, { threadId: groupId })).threads)).not.toContain(origin.threadId)
        expect(idsOf((yield* listThreads(owner.key, { threadId: groupId, includeDone: true })).threads)).toContain(origin.threadId)
      }))

    it.effect("list_threads: an unreadable threadId (deleted, typo, someone else's, an ordinary thread) gives an empty list, not an error", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("list-unreadable")
        const mate = yield* teammate(owner, "mate")
        const theirs = yield* threadOn(mate.key, mate.cli)
        const theirGroup = (yield* spawn(mate.key, theirs.threadId)).parentThreadId ?? ""
        const ordinary = yield* threadOn(owner.key, owner.cli)
        const doomed = yield* threadOn(owner.key, owner.cli)
        const deletedGroup = (yield* spawn(owner.key, doomed.threadId)).parentThreadId ?? ""
        yield* softDelete(deletedGroup)
        const task = yield* createTask(owner.key, owner.project.id, "Not a thread")
        for (const threadId of [missingThreadId, "typo", theirGroup, theirs.threadId, ordinary.threadId, deletedGroup, task.taskId]) {
          const page = yield* listThreads(owner.key, { threadId })
          expect(page, threadId).toEqual({ threads: [], nextCursor: null })
        }
        // The teammate's own group lists for them.
        expect((yield* listThreads(mate.key, { threadId: theirGroup })).threads).toHaveLength(2)
      }))

    it.effect("list_threads: members of a group a teammate shared are readable", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("list-shared")
        const mate = yield* teammate(owner, "mate")
        const first = yield* threadOn(mate.key, mate.cli)
        const second = yield* spawn(mate.key, first.threadId)
        const groupId = second.parentThreadId ?? ""
        expect((yield* listThreads(owner.key, { threadId: groupId })).threads).toEqual([])
        yield* share(mate.cli, first.threadId)
        const members = yield* listThreads(owner.key, { threadId: groupId })
        expect(idsOf(members.threads).sort()).toEqual(idsOf([first, second]).sort())
        // Shared is readable, not listed: the owner's project list still holds only their own.
        expect((yield* listThreads(owner.key, {}, owner.scope)).threads).toEqual([])
      }))

    it.effect("list_threads: projectId is required without threadId and without ?project=", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("list-project")
        const thread = yield* threadOn(owner.key, owner.cli)
        yield* failsWith(owner.key, "list_threads", {}, { code: "invalid_argument", mentions: "projectId" })
        yield* failsWith(owner.key, "list_threads", { includeDone: true, limit: 5 }, { code: "invalid_argument", mentions: "projectId" })
        expect(idsOf((yield* listThreads(owner.key, { projectId: owner.project.id })).threads)).toEqual([thread.threadId])
        expect(idsOf((yield* listThreads(owner.key, {}, owner.scope)).threads)).toEqual([thread.threadId])
      }))

    // ---- tenant isolation -------------------------------------------------------------------

    it.effect("another organization's user sees nothing of a project's threads and profiles", () =>
      Effect.gen(function*() {
        const alpha = yield* ownerWithCli("tenant-alpha")
        const origin = yield* threadOn(alpha.key, alpha.cli, { content: "Alpha classified work" })
        const helper = yield* spawn(alpha.key, origin.threadId, { content: "Alpha helper" })
        const groupId = helper.parentThreadId ?? ""
        yield* share(alpha.cli, origin.threadId)
        yield* runToCompletion(alpha.cli, helper.threadId, [chunks.text("Alpha answer")])

        const bravo = yield* seedOwner("tenant-bravo")
        const bravoCli = yield* registerMachine(bravo.key, bravo.project.id)
        const bravoThread = yield* threadOn(bravo.key, bravoCli, { content: "Bravo's own" })

        const answers: Array<unknown> = []
        const notFound = (name: string, args: Record<string, unknown>, scope = {}) =>
          Effect.gen(function*() {
            const error = yield* failsWith(bravo.key, name, args, { code: "not_found" }, scope)
            answers.push(error)
          })
        yield* notFound("list_cli_profiles", { projectId: alpha.project.id })
        yield* notFound("list_cli_profiles", {}, scopedTo(alpha.project.id))
        yield* notFound("list_threads", { projectId: alpha.project.id })
        for (const threadId of [origin.threadId, helper.threadId, groupId]) yield* notFound("get_thread", { threadId })
        yield* notFound("create_thread", {
          content: "hijack",
          ...{ profileId: alpha.cli.profileId, pathId: alpha.cli.pathId, cliType: "claude" }
        })
        yield* notFound("create_thread", { content: "hijack", sourceThreadId: origin.threadId })
        yield* notFound("create_thread", { content: "hijack", sourceThreadId: groupId })
        yield* notFound("send_thread_message", { threadId: helper.threadId, content: "hello" })
        yield* notFound("send_thread_message", { threadId: bravoThread.threadId, content: "hello", sourceThreadId: helper.threadId })

        for (const threadId of [groupId, origin.threadId]) {
          const page = yield* listThreads(bravo.key, { threadId })
          expect(page.threads).toEqual([])
          answers.push(page)
        }
        for (const threadId of [origin.threadId, helper.threadId]) {
          const messages = yield* call(bravo.key, "list_thread_messages", { threadId })
          expect(messages).toEqual({ isError: false, content: { messages: [] } })
        }
        const own = yield* listThreads(bravo.key, {}, scopedTo(bravo.project.id))
        expect(idsOf(own.threads)).toEqual([bravoThread.threadId])
        answers.push(own, yield* listProfiles(bravo.key, {}, scopedTo(bravo.project.id)))
        const text = JSON.stringify(answers)
        // Answers may echo IDs Bravo sent, nothing of Alpha's content.
        for (const secret of ["Alpha", "classified", "answer"]) expect(text).not.toContain(secret)

        // Alpha's thread gained no message from Bravo.
        expect((yield* getOrdinary(alpha.key, helper.threadId)).hasPendingUserMessages).toBe(false)
        expect((yield* getThread(alpha.key, groupId)).kind).toBe("group")
      }))
  })
})
