import { describe, expect, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { MAX_TASK_RUNS } from "../../catalog/Threads.js"
import { TestServer } from "../support/TestServer.js"
import { createKey } from "../support/Seed.js"
import {
  chunks,
  createTask,
  failsWith,
  idsOf,
  listThreads,
  markDone,
  ownerWithCli,
  runToCompletion,
  secondProject,
  sendMessage,
  setLastActivity,
  share,
  startStreaming,
  teammate,
  threadOn
} from "../support/ThreadFixtures.js"

/**
 * A task's runs (the web app's task page): `list_threads` with a taskId lists the threads bound
 * to the task that the caller may read, running and pending first, each with what it cost.
 */
describe("list_threads with taskId: a task's runs", () => {
  // The last rule makes a hundred threads in a row: more than one key's rate budget allows.
  layer(TestServer({ rateLimit: Option.none() }))((it) => {
    it.effect("lists the threads bound to the task, running and pending first, then the most recent activity", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("runs-order")
        const task = yield* createTask(owner.key, owner.project.id, "Fix the login")
        const other = yield* createTask(owner.key, owner.project.id, "Something else")
        const finished = yield* threadOn(owner.key, owner.cli, { taskId: task.taskId })
        yield* runToCompletion(owner.cli, finished.threadId, [chunks.text("done")])
        const older = yield* threadOn(owner.key, owner.cli, { taskId: task.taskId })
        yield* runToCompletion(owner.cli, older.threadId, [chunks.text("done too")])
        yield* setLastActivity(older.threadId, "2020-01-01T00:00:00Z")
        const running = yield* threadOn(owner.key, owner.cli, { taskId: task.taskId })
        yield* startStreaming(owner.cli, running.threadId, [chunks.text("working")])
        yield* setLastActivity(running.threadId, "2021-01-01T00:00:00Z")
        const pending = yield* threadOn(owner.key, owner.cli, { taskId: task.refId })
        yield* threadOn(owner.key, owner.cli, { taskId: other.taskId })
        yield* threadOn(owner.key, owner.cli)

        const page = yield* listThreads(owner.key, { taskId: task.taskId })
        expect(idsOf(page.threads)).toEqual([pending.threadId, running.threadId, finished.threadId, older.threadId])
        expect(page.threads.map((thread) => thread.kind === "thread" ? thread.status : thread.kind)).toEqual([
          "pending",
          "running",
          "idle",
          "idle"
        ])
        expect(page.nextCursor).toBeNull()
      }))

    it.effect("a bare ref is resolved in projectId's project; a scoped ref needs none", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("runs-refs")
        const task = yield* createTask(owner.key, owner.project.id, "By ref")
        const run = yield* threadOn(owner.key, owner.cli, { taskId: task.taskId })
        const ref = task.refId ?? ""
        expect(idsOf((yield* listThreads(owner.key, { taskId: ref, projectId: owner.project.id })).threads)).toEqual([run.threadId])
        const scoped = `${owner.organization.slug}/${ref}`
        expect(idsOf((yield* listThreads(owner.key, { taskId: scoped })).threads)).toEqual([run.threadId])
        yield* failsWith(owner.key, "list_threads", { taskId: ref }, { code: "invalid_argument", mentions: "projectId" })
      }))

    it.effect("a teammate's run is listed once they share it, never before", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("runs-shared")
        const mate = yield* teammate(owner, "mate")
        const task = yield* createTask(owner.key, owner.project.id, "Shared work")
        const theirs = yield* threadOn(mate.key, mate.cli, { taskId: task.taskId })
        const mine = yield* threadOn(owner.key, owner.cli, { taskId: task.taskId })

        expect(idsOf((yield* listThreads(owner.key, { taskId: task.taskId })).threads)).toEqual([mine.threadId])
        yield* share(mate.cli, theirs.threadId)
        expect(idsOf((yield* listThreads(owner.key, { taskId: task.taskId })).threads).sort()).toEqual(
          [mine.threadId, theirs.threadId].sort()
        )
      }))

    it.effect("a key narrowed to another project, an unknown task and a task of another organization list nothing", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("runs-hidden")
        const stranger = yield* ownerWithCli("runs-stranger")
        const task = yield* createTask(owner.key, owner.project.id, "Private")
        yield* threadOn(owner.key, owner.cli, { taskId: task.taskId })
        const elsewhere = yield* secondProject(owner, "ELSE")
        const narrowed = yield* createKey(owner.user.id, [elsewhere.project.id])

        expect((yield* listThreads(narrowed.secret, { taskId: task.taskId })).threads).toEqual([])
        expect((yield* listThreads(stranger.key, { taskId: task.taskId })).threads).toEqual([])
        expect((yield* listThreads(owner.key, { taskId: `task_${"0".repeat(32)}` })).threads).toEqual([])
      }))

    it.effect("a malformed taskId, or a taskId with threadId, is refused naming taskId", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("runs-bad")
        const task = yield* createTask(owner.key, owner.project.id, "Bad input")
        const run = yield* threadOn(owner.key, owner.cli, { taskId: task.taskId })
        yield* failsWith(owner.key, "list_threads", { taskId: "not a task!" }, { code: "invalid_argument", mentions: "taskId" })
        yield* failsWith(owner.key, "list_threads", { taskId: "" }, { code: "invalid_argument", mentions: "taskId" })
        yield* failsWith(owner.key, "list_threads", { taskId: task.taskId, threadId: run.threadId }, {
          code: "invalid_argument",
          mentions: "taskId"
        })
      }))

    it.effect("done runs are listed only with includeDone", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("runs-done")
        const task = yield* createTask(owner.key, owner.project.id, "Finished")
        const done = yield* threadOn(owner.key, owner.cli, { taskId: task.taskId })
        yield* runToCompletion(owner.cli, done.threadId, [chunks.text("ok")])
        yield* markDone(owner.cli, done.threadId)
        expect((yield* listThreads(owner.key, { taskId: task.taskId })).threads).toEqual([])
        expect(idsOf((yield* listThreads(owner.key, { taskId: task.taskId, includeDone: true })).threads)).toEqual([done.threadId])
      }))

    it.effect("a run's usage: the costs its runtime reported summed over its turns, and its latest context size", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("runs-usage")
        const task = yield* createTask(owner.key, owner.project.id, "Costly")
        const fresh = yield* threadOn(owner.key, owner.cli, { taskId: task.taskId })
        const costly = yield* threadOn(owner.key, owner.cli, { taskId: task.taskId })
        yield* runToCompletion(owner.cli, costly.threadId, [
          chunks.text("first"),
          chunks.result(0.125, { input: 1000, output: 200, cacheRead: 0 })
        ])
        yield* sendMessage(owner.key, { threadId: costly.threadId, content: "And the tests" })
        yield* runToCompletion(owner.cli, costly.threadId, [
          chunks.text("second"),
          chunks.result(0.25, { input: 3000, output: 500, cacheRead: 1000 })
        ])

        const usage = new Map(
          (yield* listThreads(owner.key, { taskId: task.taskId })).threads.map((thread) => [
            thread.threadId,
            thread.kind === "thread" ? thread.usage : undefined
          ])
        )
        expect(usage.get(costly.threadId)).toEqual({ costUsd: 0.375, contextTokens: 4500 })
        expect(usage.get(fresh.threadId)).toEqual({ costUsd: null, contextTokens: null })
      }))

    it.effect(`a task with more runs than ${MAX_TASK_RUNS} lists the ${MAX_TASK_RUNS} most recent, in one page`, () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("runs-many")
        const task = yield* createTask(owner.key, owner.project.id, "Popular")
        const runs = yield* Effect.forEach(
          Array.from({ length: MAX_TASK_RUNS + 1 }, (_, i) => i),
          () => threadOn(owner.key, owner.cli, { taskId: task.taskId })
        )
        const [oldest] = runs
        yield* setLastActivity(oldest?.threadId ?? "", "2019-01-01T00:00:00Z")
        const page = yield* listThreads(owner.key, { taskId: task.taskId, limit: 5 })
        expect(page.threads).toHaveLength(MAX_TASK_RUNS)
        expect(idsOf(page.threads)).not.toContain(oldest?.threadId)
        expect(page.nextCursor).toBeNull()
      }))
  })
})
