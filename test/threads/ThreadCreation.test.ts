import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import { OrdinaryThread } from "../../catalog/Threads.js"
import { CliPathId, CliProfileId } from "../../catalog/domain/Ids.js"
import { createProjectAgent, TestServer } from "../support/TestServer.js"
import {
  claim,
  createTask,
  createThread,
  createWorkflowRun,
  decodeStrict,
  disconnect,
  failsWith,
  getContainer,
  getOrdinary,
  hasField,
  idsOf,
  listMessages,
  listProfiles,
  listThreads,
  okRaw,
  only,
  ownerWithCli,
  pin,
  registerMachine,
  scopedTo,
  secondProject,
  share,
  softDelete,
  spawn,
  startBatch,
  storedThread,
  target,
  teammate,
  threadOn
} from "../support/ThreadFixtures.js"

const noRateLimit = { rateLimit: Option.none() }

describe("create_thread", () => {
  layer(TestServer(noRateLimit))((it) => {
    // ---- target: sent or inherited (rule 1) ------------------------------------------------

    it.effect("without a source, profileId, pathId and cliType are each required, and the message names them", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("create-required")
        const full = target(owner.cli)
        for (const field of ["profileId", "pathId", "cliType"] as const) {
          const args: Record<string, unknown> = { content: "Start", ...full }
          delete args[field]
          yield* failsWith(owner.key, "create_thread", args, { code: "invalid_argument", mentions: field })
        }
        const error = yield* failsWith(owner.key, "create_thread", { content: "Start" }, { code: "invalid_argument" })
        for (const field of ["profileId", "pathId", "cliType"]) expect(error.message).toContain(field)
        expect((yield* listThreads(owner.key, {}, owner.scope)).threads).toEqual([])
      }))

    it.effect("with a source, profile, path and runtime are all inherited", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("create-inherit")
        const source = yield* threadOn(owner.key, owner.cli, { cliType: "codex" })
        const spawned = yield* spawn(owner.key, source.threadId)
        expect(spawned.target).toEqual(source.target)
        expect(spawned.target).toEqual({
          profileId: owner.cli.profileId,
          pathId: owner.cli.pathId,
          path: "/home/dev/project",
          cliType: "codex",
          profileName: "laptop"
        })
        expect(spawned.spawnedByThreadId).toBe(source.threadId)
      }))

    it.effect("rule 1: cliType may be sent alone to change just the runtime", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("create-runtime-only")
        const source = yield* threadOn(owner.key, owner.cli, { cliType: "claude" })
        const spawned = yield* spawn(owner.key, source.threadId, { cliType: "opencode" })
        expect(spawned.target).toEqual({ ...source.target, cliType: "opencode" })
      }))

    it.effect("rule 1: a different profileId than the source's without pathId is rejected, and nothing is created", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("create-other-profile")
        const desktop = yield* registerMachine(owner.key, owner.project.id, { name: "desktop", path: "/work/desktop" })
        const source = yield* threadOn(owner.key, owner.cli)
        yield* failsWith(
          owner.key,
          "create_thread",
          { content: "Elsewhere", sourceThreadId: source.threadId, profileId: desktop.profileId },
          { code: "invalid_argument", mentions: "pathId" }
        )
        expect((yield* getOrdinary(owner.key, source.threadId)).parentThreadId).toBeNull()
        expect(idsOf((yield* listThreads(owner.key, {}, owner.scope)).threads)).toEqual([source.threadId])

        // With that profile's own pathId it is accepted.
        const moved = yield* spawn(owner.key, source.threadId, { profileId: desktop.profileId, pathId: desktop.pathId })
        expect(moved.target).toEqual({
          profileId: desktop.profileId,
          pathId: desktop.pathId,
          path: "/work/desktop",
          cliType: "claude",
          profileName: "desktop"
        })
      }))

    it.effect("rule 1: repeating the source's own profileId without pathId keeps the inherited path", () =>
      Effect.gen(function*() {
        // Only a *different* profileId needs its pathId; the same one names the same machine.
        const owner = yield* ownerWithCli("create-same-profile")
        const source = yield* threadOn(owner.key, owner.cli)
        const spawned = yield* spawn(owner.key, source.threadId, { profileId: owner.cli.profileId })
        expect(spawned.target).toEqual(source.target)
      }))

    it.effect("rule 1: a pathId names a checkout on its own profile only", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("create-foreign-path")
        const desktop = yield* registerMachine(owner.key, owner.project.id, { name: "desktop", path: "/work/desktop" })
        yield* failsWith(
          owner.key,
          "create_thread",
          { content: "Mismatch", profileId: owner.cli.profileId, pathId: desktop.pathId, cliType: "claude" },
          { code: "not_found", mentions: "pathId" }
        )
        const source = yield* threadOn(owner.key, owner.cli)
        yield* failsWith(
          owner.key,
          "create_thread",
          { content: "Mismatch", sourceThreadId: source.threadId, profileId: desktop.profileId, pathId: owner.cli.pathId },
          { code: "not_found", mentions: "pathId" }
        )
        yield* failsWith(
          owner.key,
          "create_thread",
          { content: "Unknown profile", profileId: CliProfileId.generate(), pathId: owner.cli.pathId, cliType: "claude" },
          { code: "not_found", mentions: "profileId" }
        )
      }))

    // ---- groups (rules 2, 3) ---------------------------------------------------------------

    it.effect("rule 2: a group cannot span projects: the target profile must be in the source thread's project", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("create-span")
        const side = yield* secondProject(owner, "SIDE")
        const source = yield* threadOn(owner.key, owner.cli)
        const error = yield* failsWith(
          owner.key,
          "create_thread",
          { content: "Across", sourceThreadId: source.threadId, profileId: side.cli.profileId, pathId: side.cli.pathId },
          { code: "forbidden", mentions: "project" }
        )
        expect(error.message).toContain("profileId")
        expect((yield* getOrdinary(owner.key, source.threadId)).parentThreadId).toBeNull()
        expect((yield* listThreads(owner.key, { projectId: side.project.id })).threads).toEqual([])
      }))

    it.effect("rule 2: spawning turns the source into a group, and its pin and share move to the group", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("create-group")
        const mate = yield* teammate(owner, "mate")
        const source = yield* threadOn(owner.key, owner.cli, { content: "The original task" })
        yield* pin(owner.cli, source.threadId)
        yield* share(owner.cli, source.threadId)
        expect(yield* storedThread(source.threadId)).toMatchObject({ pinned: true, shared: true })

        const spawned = yield* spawn(owner.key, source.threadId)
        const groupId = spawned.parentThreadId ?? ""
        expect(groupId).toMatch(/^thread_[0-9a-f]{32}$/)
        expect(spawned.spawnedByThreadId).toBe(source.threadId)
        const reread = yield* getOrdinary(owner.key, source.threadId)
        expect(reread.parentThreadId).toBe(groupId)
        expect(reread.spawnedByThreadId).toBeNull()
        const group = yield* getContainer(owner.key, groupId)
        expect(group).toMatchObject({ kind: "group", originThreadId: source.threadId, childCount: 2, title: "The original task" })

        expect(yield* storedThread(source.threadId)).toMatchObject({ pinned: false, shared: false })
        expect(yield* storedThread(groupId)).toMatchObject({ pinned: true, shared: true })
        // The share now covers the whole group: the teammate reads the new member too.
        expect((yield* getOrdinary(mate.key, spawned.threadId)).threadId).toBe(spawned.threadId)
      }))

    it.effect("sourceThreadId may name a group (the new thread joins it) or a member (no nested group)", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("create-join")
        const source = yield* threadOn(owner.key, owner.cli, { cliType: "codex" })
        const first = yield* spawn(owner.key, source.threadId)
        const groupId = first.parentThreadId ?? ""

        const viaGroup = yield* spawn(owner.key, groupId)
        expect(viaGroup.parentThreadId).toBe(groupId)
        expect(viaGroup.target).toEqual(source.target)
        const viaMember = yield* spawn(owner.key, first.threadId)
        expect(viaMember.parentThreadId).toBe(groupId)
        expect(viaMember.spawnedByThreadId).toBe(first.threadId)

        expect((yield* getContainer(owner.key, groupId)).childCount).toBe(4)
        const rows = (yield* listThreads(owner.key, {}, owner.scope)).threads
        expect(idsOf(rows)).toEqual([groupId])
        expect(idsOf((yield* listThreads(owner.key, { threadId: groupId })).threads).sort()).toEqual(
          idsOf([source, first, viaGroup, viaMember]).sort()
        )
      }))

    it.effect("a workflow run cannot be joined", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("create-workflow")
        const run = yield* createWorkflowRun(owner.cli, owner.project.id, "Release run")
        const error = yield* failsWith(owner.key, "create_thread", { content: "Join", sourceThreadId: run.threadId }, {
          code: "invalid_argument",
          mentions: "sourceThreadId"
        })
        expect(error.message).toContain("workflow run")
        const explicit = yield* failsWith(
          owner.key,
          "create_thread",
          { content: "Join", sourceThreadId: run.threadId, ...target(owner.cli) },
          { code: "invalid_argument", mentions: "sourceThreadId" }
        )
        expect(explicit.message).toContain("workflow run")
        expect((yield* getContainer(owner.key, run.threadId)).childCount).toBe(0)
      }))

    it.effect(
      "rule 3: a group holds at most 100 threads, deleted ones included; when full, retrying does not help",
      () =>
        Effect.gen(function*() {
          const owner = yield* ownerWithCli("create-full")
          const source = yield* threadOn(owner.key, owner.cli)
          const spawned = yield* Effect.forEach(
            Array.from({ length: 98 }, (_, i) => i),
            (i) => spawn(owner.key, source.threadId, { content: `helper ${i}` }),
            { concurrency: 1 }
          )
          const groupId = spawned[0]?.parentThreadId ?? ""
          expect((yield* getContainer(owner.key, groupId)).childCount).toBe(99)

          // One member is deleted: 98 remain, but the group's 100 places count it.
          yield* softDelete(spawned[0]?.threadId ?? "")
          expect((yield* getContainer(owner.key, groupId)).childCount).toBe(98)
          const hundredth = yield* spawn(owner.key, source.threadId, { content: "the last place" })
          expect(hundredth.parentThreadId).toBe(groupId)

          for (const sourceThreadId of [source.threadId, groupId, hundredth.threadId, source.threadId]) {
            const error = yield* failsWith(owner.key, "create_thread", { content: "one too many", sourceThreadId }, {
              code: "limit_exceeded"
            })
            expect(error.message).toContain("100")
          }
          // All live members list in one page.
          const members = yield* listThreads(owner.key, { threadId: groupId })
          expect(members.threads).toHaveLength(99)
          expect(members.nextCursor).toBeNull()
        }),
      { timeout: 60_000 }
    )

    // ---- worktree (rule 4) -----------------------------------------------------------------

    it.effect("rule 4: worktree.parentPathId must equal the effective pathId, sent or inherited", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("create-worktree-parent")
        const desktop = yield* registerMachine(owner.key, owner.project.id, { name: "desktop", path: "/work/desktop" })
        yield* failsWith(
          owner.key,
          "create_thread",
          { content: "Isolated", ...target(owner.cli), worktree: { parentPathId: desktop.pathId, branch: "feature/x" } },
          { code: "invalid_argument", mentions: "parentPathId" }
        )
        yield* failsWith(
          owner.key,
          "create_thread",
          { content: "Isolated", ...target(owner.cli), worktree: { parentPathId: CliPathId.generate(), branch: "feature/x" } },
          { code: "invalid_argument", mentions: "parentPathId" }
        )
        const sent = yield* threadOn(owner.key, owner.cli, { worktree: { parentPathId: owner.cli.pathId, branch: "feature/x" } })
        expect(sent.target.pathId).toBe(owner.cli.pathId)

        // Inherited from the source.
        const source = yield* threadOn(owner.key, owner.cli)
        const inherited = yield* spawn(owner.key, source.threadId, { worktree: { parentPathId: owner.cli.pathId, branch: "feature/y" } })
        expect(inherited.target.pathId).toBe(owner.cli.pathId)
        yield* failsWith(
          owner.key,
          "create_thread",
          { content: "Wrong", sourceThreadId: source.threadId, worktree: { parentPathId: desktop.pathId, branch: "feature/z" } },
          { code: "invalid_argument", mentions: "parentPathId" }
        )
        // Moving to another machine: parentPathId must be that machine's path.
        const moved = yield* spawn(owner.key, source.threadId, {
          profileId: desktop.profileId,
          pathId: desktop.pathId,
          worktree: { parentPathId: desktop.pathId, branch: "feature/w" }
        })
        expect(moved.target.profileId).toBe(desktop.profileId)
      }))

    it.effect("rule 4: a worktree cannot be a parent: the parent repository's pathId is needed", () =>
      Effect.gen(function*() {
        // The worktree comes the way the CLI records one: a thread asks for it, the CLI reports it made.
        const owner = yield* ownerWithCli("create-worktree-nested")
        const asking = yield* threadOn(owner.key, owner.cli, { worktree: { parentPathId: owner.cli.pathId, branch: "feature/a" } })
        const claimed = yield* claim(owner.cli, asking.threadId)
        const { pathId: worktreePathId } = yield* owner.cli.client.agent.reportWorktree({
          path: { threadId: asking.threadId },
          payload: { sessionId: owner.cli.sessionId, epoch: claimed.epoch, path: "/home/dev/project-wt/feature-a", branch: "feature/a" }
        }).pipe(Effect.orDie)
        const listed = only(yield* listProfiles(owner.key, {}, owner.scope), "profiles")
        expect(listed.paths.find((p) => p.pathId === worktreePathId)).toMatchObject({ kind: "worktree", parentPathId: owner.cli.pathId })

        const inWorktree = yield* threadOn(owner.key, owner.cli, { pathId: worktreePathId })
        expect(inWorktree.target.pathId).toBe(worktreePathId)
        yield* failsWith(
          owner.key,
          "create_thread",
          {
            content: "Nested",
            ...target(owner.cli),
            pathId: worktreePathId,
            worktree: { parentPathId: worktreePathId, branch: "feature/b" }
          },
          { code: "invalid_argument", mentions: "worktree" }
        )
        yield* failsWith(
          owner.key,
          "create_thread",
          { content: "Nested", sourceThreadId: inWorktree.threadId, worktree: { parentPathId: worktreePathId, branch: "feature/b" } },
          { code: "invalid_argument", mentions: "worktree" }
        )
        // Spawning beside it with the parent repository's pathId sent explicitly works.
        const beside = yield* spawn(owner.key, inWorktree.threadId, {
          pathId: owner.cli.pathId,
          worktree: { parentPathId: owner.cli.pathId, branch: "feature/b" }
        })
        expect(beside.target.pathId).toBe(owner.cli.pathId)
      }))

    it.effect("rule 4: branch and baseRef are validated as git refnames, not sanitized", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("create-refnames")
        const worktree = (fields: Record<string, unknown>) => ({
          content: "Isolated",
          ...target(owner.cli),
          worktree: { parentPathId: owner.cli.pathId, branch: "feature/ok", ...fields }
        })
        for (
          const branch of [
            "bad..name",
            "-x",
            "a b",
            "x.lock",
            "feature/x.lock",
            "",
            "ends.",
            "a~b",
            "a^b",
            "a:b",
            "a?b",
            "a*b",
            "a[b",
            "a\\b",
            "/lead",
            "trail/",
            "a//b",
            "@",
            "a@{b",
            "feature/.hidden"
          ]
        ) {
          yield* failsWith(owner.key, "create_thread", worktree({ branch }), { code: "invalid_argument", mentions: "worktree.branch" })
        }
        for (const baseRef of ["bad..ref", "-x", "x.lock", "a b"]) {
          yield* failsWith(owner.key, "create_thread", worktree({ baseRef }), { code: "invalid_argument", mentions: "worktree.baseRef" })
        }
        const accepted = yield* createThread(
          owner.key,
          worktree({ branch: "feature/auth-v2", baseRef: "origin/main", startFromOrigin: true })
        )
        const claimed = yield* claim(owner.cli, accepted.threadId)
        // Stored as sent: nothing was rewritten.
        expect(claimed.worktree).toEqual({
          parentPathId: owner.cli.pathId,
          branch: "feature/auth-v2",
          baseRef: "origin/main",
          startFromOrigin: true
        })
      }))

    it.effect("rules 4 and 5: worktree is neither inherited by a spawn nor echoed in the response", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("create-worktree-echo")
        const args = { content: "Isolated", ...target(owner.cli), worktree: { parentPathId: owner.cli.pathId, branch: "feature/x" } }
        const raw = yield* okRaw(owner.key, "create_thread", args)
        expect(hasField(raw, "worktree")).toBe(false)
        const source = yield* createThread(owner.key, { ...args, worktree: { parentPathId: owner.cli.pathId, branch: "feature/y" } })
        expect(hasField(yield* okRaw(owner.key, "get_thread", { threadId: source.threadId }), "worktree")).toBe(false)
        const spawned = yield* spawn(owner.key, source.threadId)
        expect(yield* storedThread(source.threadId)).toMatchObject({ hasWorktree: true })
        expect(yield* storedThread(spawned.threadId)).toMatchObject({ hasWorktree: false })
        expect((yield* claim(owner.cli, spawned.threadId)).worktree).toBeNull()
      }))

    // ---- project agents (rule 5) -----------------------------------------------------------

    it.effect("rule 5: projectAgentId must belong to the target profile's project", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("create-agent-project")
        const side = yield* secondProject(owner, "SIDE")
        const foreign = yield* createProjectAgent(owner.key, side.project.id, "Side reviewer", "Review side things")
        const local = yield* createProjectAgent(owner.key, owner.project.id, "Reviewer", "Review carefully")
        yield* failsWith(owner.key, "create_thread", { content: "Go", ...target(owner.cli), projectAgentId: foreign }, {
          code: "not_found",
          mentions: "projectAgentId"
        })
        yield* failsWith(owner.key, "create_thread", { content: "Go", ...target(owner.cli), projectAgentId: "agent_" + "0".repeat(32) }, {
          code: "not_found",
          mentions: "projectAgentId"
        })
        const sql = yield* SqlClient.SqlClient
        const archived = yield* createProjectAgent(owner.key, owner.project.id, "Retired", "Old")
        // Nothing archives an agent yet but the database.
        yield* sql`UPDATE project_agents SET archived_at = now() WHERE id = ${archived}`.pipe(Effect.orDie)
        yield* failsWith(owner.key, "create_thread", { content: "Go", ...target(owner.cli), projectAgentId: archived }, {
          code: "not_found",
          mentions: "projectAgentId"
        })
        expect((yield* listThreads(owner.key, {}, owner.scope)).threads).toEqual([])

        const bound = yield* threadOn(owner.key, owner.cli, { projectAgentId: local })
        expect(yield* storedThread(bound.threadId)).toMatchObject({ projectAgentId: local })
        // The side project's agent fits a thread on the side project's profile.
        const onSide = yield* createThread(owner.key, { content: "Go", ...target(side.cli), projectAgentId: foreign })
        expect(yield* storedThread(onSide.threadId)).toMatchObject({ projectAgentId: foreign })
      }))

    it.effect("rule 5: projectAgentId's prompt is snapshotted; the binding is neither inherited by a spawn nor echoed", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("create-agent-snapshot")
        const agent = yield* createProjectAgent(owner.key, owner.project.id, "Reviewer", "You review pull requests.")
        const raw = yield* okRaw(owner.key, "create_thread", { content: "Review #12", ...target(owner.cli), projectAgentId: agent })
        expect(hasField(raw, "projectAgentId")).toBe(false)
        expect(JSON.stringify(raw)).not.toContain(agent)
        const thread = yield* decodeStrict(OrdinaryThread, raw, "create_thread")
        expect(hasField(yield* okRaw(owner.key, "get_thread", { threadId: thread.threadId }), "projectAgentId")).toBe(false)

        yield* okRaw(owner.key, "update_project_agent", { projectAgentId: agent, prompt: "A changed prompt" })
        expect((yield* claim(owner.cli, thread.threadId)).agentPrompt).toBe("You review pull requests.")

        const spawned = yield* spawn(owner.key, thread.threadId)
        expect(yield* storedThread(spawned.threadId)).toMatchObject({ projectAgentId: null, agentPrompt: null })
        expect((yield* claim(owner.cli, spawned.threadId)).agentPrompt).toBeNull()
      }))

    // ---- runtime commands (rule 8) ---------------------------------------------------------

    it.effect("rule 8: with runtimeCommand, content must be the whole slash command, starting with /", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("create-command-slash")
        for (const content of ["compact", " /compact", "please /compact"]) {
          yield* failsWith(owner.key, "create_thread", { content, ...target(owner.cli), runtimeCommand: true }, {
            code: "invalid_argument",
            mentions: "runtimeCommand"
          })
        }
        expect((yield* listThreads(owner.key, {}, owner.scope)).threads).toEqual([])
        // Without runtimeCommand the same text is an ordinary prompt.
        const plain = yield* threadOn(owner.key, owner.cli, { content: "compact", runtimeCommand: false })
        expect(plain.status).toBe("pending")
      }))

    it.effect("rule 8: runtimeCommand is accepted on claude and codex, and rejected outright on opencode and gemini", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("create-command-runtime")
        for (const cliType of ["claude", "codex"]) {
          const thread = yield* threadOn(owner.key, owner.cli, { content: "/compact", cliType, runtimeCommand: true })
          expect(thread.target.cliType).toBe(cliType)
          const claimed = yield* claim(owner.cli, thread.threadId)
          const batch = yield* startBatch(owner.cli, thread.threadId, claimed.epoch)
          expect(batch.messages.map((m) => ({ content: m.content, runtimeCommand: m.runtimeCommand }))).toEqual([
            { content: "/compact", runtimeCommand: true }
          ])
        }
        for (const cliType of ["opencode", "gemini"]) {
          yield* failsWith(owner.key, "create_thread", { content: "/compact", ...target(owner.cli, cliType), runtimeCommand: true }, {
            code: "invalid_argument",
            mentions: "runtimeCommand"
          })
        }
        // The runtime that counts is the effective one, inherited from the source.
        const source = yield* threadOn(owner.key, owner.cli, { cliType: "opencode" })
        yield* failsWith(owner.key, "create_thread", { content: "/compact", sourceThreadId: source.threadId, runtimeCommand: true }, {
          code: "invalid_argument",
          mentions: "runtimeCommand"
        })
        const switched = yield* spawn(owner.key, source.threadId, { content: "/compact", cliType: "codex", runtimeCommand: true })
        expect(switched.target.cliType).toBe("codex")
      }))

    // ---- the new thread (rule 7, title, task) ----------------------------------------------

    it.effect("rule 7: the new thread starts pending, with its content as the first user message", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("create-pending")
        const thread = yield* threadOn(owner.key, owner.cli, { content: "Refactor the parser\n\nKeep the API stable." })
        expect(thread).toMatchObject({ status: "pending", processingState: "pending", hasPendingUserMessages: true, isDone: false })
        const message = only(yield* listMessages(owner.key, thread.threadId), "messages")
        expect(message).toMatchObject({ role: "user", status: "pending", text: "Refactor the parser\n\nKeep the API stable." })
        expect(hasField(message, "sentBy")).toBe(false)
      }))

    it.effect("the title defaults to the content's first line; an explicit title wins", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("create-title")
        const derived = yield* threadOn(owner.key, owner.cli, { content: "\n   Fix the login bug  \nSteps: open the page" })
        expect(derived.title).toBe("Fix the login bug")
        const long = yield* threadOn(owner.key, owner.cli, { content: `${"word ".repeat(40)}\nmore` })
        expect(long.title.length).toBeLessThanOrEqual(80)
        expect(long.title.startsWith("word word")).toBe(true)
        const explicit = yield* threadOn(owner.key, owner.cli, { content: "Fix the login bug", title: "Login fix" })
        expect(explicit.title).toBe("Login fix")
        yield* failsWith(owner.key, "create_thread", { content: "x", ...target(owner.cli), title: "t".repeat(81) }, {
          code: "invalid_argument",
          mentions: "title"
        })
      }))

    it.effect("taskId, an ID or a ref with projectId or ?project=, sets associatedTaskId", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("create-task")
        const task = yield* createTask(owner.key, owner.project.id, "Linked work")
        expect(task.refId).toBe("MAIN-1")
        const byId = yield* threadOn(owner.key, owner.cli, { taskId: task.taskId })
        expect(byId.associatedTaskId).toBe(task.taskId)
        const byRef = yield* threadOn(owner.key, owner.cli, { taskId: "MAIN-1", projectId: owner.project.id })
        expect(byRef.associatedTaskId).toBe(task.taskId)
        const byUrl = yield* createThread(owner.key, { content: "Work", ...target(owner.cli), taskId: "main-1" }, owner.scope)
        expect(byUrl.associatedTaskId).toBe(task.taskId)
        const byScopedRef = yield* threadOn(owner.key, owner.cli, { taskId: "create-task/MAIN-1" })
        expect(byScopedRef.associatedTaskId).toBe(task.taskId)
        expect((yield* getOrdinary(owner.key, byRef.threadId)).associatedTaskId).toBe(task.taskId)

        yield* failsWith(owner.key, "create_thread", {
          content: "Work",
          ...target(owner.cli),
          taskId: "MAIN-99",
          projectId: owner.project.id
        }, {
          code: "not_found",
          mentions: "MAIN-99"
        })
        // projectId must match the target profile's project; a task of another project does not fit.
        const side = yield* secondProject(owner, "SIDE")
        const sideTask = yield* createTask(owner.key, side.project.id, "Side work")
        yield* failsWith(owner.key, "create_thread", {
          content: "Work",
          ...target(owner.cli),
          taskId: "SIDE-1",
          projectId: side.project.id
        }, {
          code: "invalid_argument",
          mentions: "projectId"
        })
        yield* failsWith(owner.key, "create_thread", { content: "Work", ...target(owner.cli), taskId: sideTask.taskId }, {
          code: "invalid_argument",
          mentions: "taskId"
        })
      }))

    it.effect("?project= only resolves a bare taskId ref: it does not restrict where a thread without a task runs", () =>
      Effect.gen(function*() {
        // catalog: projectId here is ProjectIdForRefsArgument ("needed only to resolve a bare ref");
        // docs/decisions.md: the URL's ?project= stands in for it only to resolve bare refs.
        const owner = yield* ownerWithCli("create-url-project")
        const side = yield* secondProject(owner, "SIDE")
        const thread = yield* createThread(owner.key, { content: "Work", ...target(owner.cli) }, scopedTo(side.project.id))
        expect(thread.target.profileId).toBe(owner.cli.profileId)
      }))

    it.effect("rule 7: an offline target is not an error: the thread is created and stays queued", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("create-offline")
        yield* disconnect(owner.cli)
        expect(only(yield* listProfiles(owner.key, {}, owner.scope), "profiles").isOnline).toBe(false)
        const thread = yield* threadOn(owner.key, owner.cli)
        expect(thread).toMatchObject({ status: "pending", hasPendingUserMessages: true, targetOnline: false })
        const spawned = yield* spawn(owner.key, thread.threadId)
        expect(spawned).toMatchObject({ status: "pending", targetOnline: false })

        // Once the CLI is back, the queued thread is claimable.
        const reconnected = yield* owner.cli.client.agent.register({
          payload: {
            profileId: Schema.decodeSync(CliProfileId)(owner.cli.profileId),
            projectId: owner.project.id,
            name: "laptop",
            hostname: "laptop.local",
            appVersion: "0.1.0",
            availableClis: [{ type: "claude", version: "2.1.197" }],
            paths: [{ path: "/home/dev/project" }],
            force: false
          }
        }).pipe(Effect.orDie)
        const claimed = yield* claim({ ...owner.cli, sessionId: reconnected.sessionId }, thread.threadId)
        expect(claimed.threadId).toBe(thread.threadId)
      }))

    it.effect("content is required and must not be blank", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("create-content")
        for (const args of [{ ...target(owner.cli) }, { content: "", ...target(owner.cli) }, { content: "  \n ", ...target(owner.cli) }]) {
          yield* failsWith(owner.key, "create_thread", args, { code: "invalid_argument", mentions: "content" })
        }
        yield* failsWith(owner.key, "create_thread", { content: "x", ...target(owner.cli), attachments: [] }, {
          code: "invalid_argument",
          mentions: "attachments"
        })
      }))
  })
})
