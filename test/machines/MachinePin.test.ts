import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { CliProfileId, ProjectId } from "../../catalog/domain/Ids.js"
import {
  type BridgeClient,
  claimThread,
  connectCli,
  createThread,
  getThread,
  outcome,
  sendMessage,
  startBatch
} from "../support/FakeCli.js"
import { frames } from "../support/Sse.js"
import { TestServer } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"

/**
 * Issue 7, resume safety: "A thread is only run on the machine that holds its runtime session
 * unless it is started fresh." The machine is the `machineId` a CLI registers with; the runtime
 * session is the one the CLI names while running a batch.
 */

type Cli = { readonly client: BridgeClient; readonly sessionId: Parameters<typeof claimThread>[0]["sessionId"] }

/** Claims, runs one batch naming `runtimeSessionId`, completes it, and lets the drained claim go. */
const runNamingSession = (cli: Cli, threadId: string, runtimeSessionId: string) =>
  Effect.gen(function*() {
    const claim = yield* claimThread(cli, threadId)
    const batch = yield* startBatch(cli, claim)
    yield* cli.client.agent.complete({
      path: { threadId },
      payload: { sessionId: cli.sessionId, epoch: claim.epoch, messageId: batch.assistantMessageId, runtimeSessionId }
    })
    const drained = yield* cli.client.agent.startBatch({ path: { threadId }, payload: { sessionId: cli.sessionId, epoch: claim.epoch } })
    expect(drained).toEqual({ drained: true })
  })

/** A profile whose thread ran on machine A (runtime session "session-on-a"); A then went away and B connected. */
const movedProfile = (slug: string) =>
  Effect.gen(function*() {
    const owner = yield* seedOwner(slug)
    const a = yield* connectCli(owner.key, owner.project.id, { machineId: "machine-a" })
    const thread = yield* createThread(owner.key, a.target, "Start on machine A")
    yield* runNamingSession(a, thread.threadId, "session-on-a")
    yield* a.client.agent.disconnect({ payload: { sessionId: a.sessionId } })
    const b = yield* reconnect(owner.key, owner.project.id, a.profile.profileId, "machine-b")
    yield* sendMessage(owner.key, thread.threadId, "Carry on")
    return { ...owner, a, b, thread }
  })

const reconnect = (key: string, projectId: ProjectId, profileId: CliProfileId, machineId: string | undefined) =>
  connectCli(key, projectId, { profileId, force: true, ...(machineId === undefined ? {} : { machineId }) })

const pendingNow = (key: string, sessionId: string) =>
  Effect.map(frames(key, `/api/agent/sessions/${sessionId}/pending`, 1), ([frame]) => Reflect.get(Object(frame?.data), "threadIds"))

describe("a thread runs only on the machine holding its runtime session", () => {
  layer(TestServer())((it) => {
    it.effect("another machine of the profile neither claims the thread nor sees it pending; the thread says why", () =>
      Effect.gen(function*() {
        const { b, key, thread } = yield* movedProfile("pin-elsewhere")
        expect((yield* b.client.agent.claim({ payload: { sessionId: b.sessionId } })).thread).toBeNull()
        expect((yield* b.client.agent.claim({ payload: { sessionId: b.sessionId, threadId: thread.threadId } })).thread).toBeNull()
        expect(yield* pendingNow(key, b.sessionId)).toEqual([])
        expect(yield* getThread(key, thread.threadId)).toMatchObject({
          processingState: "pending",
          hasPendingUserMessages: true,
          targetOnline: true,
          runtimeSessionElsewhere: true
        })
      }))

    it.effect("the machine holding the session claims the thread again and resumes its session", () =>
      Effect.gen(function*() {
        const { a, b, key, project, thread } = yield* movedProfile("pin-back")
        yield* b.client.agent.disconnect({ payload: { sessionId: b.sessionId } })
        const back = yield* reconnect(key, project.id, a.profile.profileId, "machine-a")
        expect(yield* pendingNow(key, back.sessionId)).toEqual([thread.threadId])
        expect((yield* getThread(key, thread.threadId)).runtimeSessionElsewhere).toBe(false)
        const claim = yield* claimThread(back)
        expect(claim).toMatchObject({ threadId: thread.threadId, runtimeSessionId: "session-on-a" })
      }))

    it.effect("started fresh, the thread forgets its session and machine: any machine claims it, with no session to resume", () =>
      Effect.gen(function*() {
        const { b, key, thread } = yield* movedProfile("pin-fresh")
        const fresh = yield* b.client.threads.startFresh({ path: { threadId: thread.threadId } })
        expect(fresh).toMatchObject({ threadId: thread.threadId, processingState: "pending", runtimeSessionElsewhere: false })
        expect(yield* pendingNow(key, b.sessionId)).toEqual([thread.threadId])
        const claim = yield* claimThread(b)
        expect(claim).toMatchObject({ threadId: thread.threadId, runtimeSessionId: null })
      }))

    it.effect("the session a batch names pins the thread to the machine that ran it", () =>
      Effect.gen(function*() {
        const { b, key, project, thread } = yield* movedProfile("pin-moves")
        yield* b.client.threads.startFresh({ path: { threadId: thread.threadId } })
        yield* runNamingSession(b, thread.threadId, "session-on-b")
        yield* b.client.agent.disconnect({ payload: { sessionId: b.sessionId } })
        const a = yield* reconnect(key, project.id, b.profile.profileId, "machine-a")
        yield* sendMessage(key, thread.threadId, "And now?")
        expect((yield* a.client.agent.claim({ payload: { sessionId: a.sessionId } })).thread).toBeNull()
        expect((yield* getThread(key, thread.threadId)).runtimeSessionElsewhere).toBe(true)
      }))

    it.effect("a CLI that registers without a machine id claims only threads no machine holds", () =>
      Effect.gen(function*() {
        const { b, key, project, thread } = yield* movedProfile("pin-anonymous")
        yield* b.client.agent.disconnect({ payload: { sessionId: b.sessionId } })
        const anonymous = yield* reconnect(key, project.id, b.profile.profileId, undefined)
        const other = yield* createThread(key, anonymous.target, "A thread no machine holds yet")
        const claim = yield* claimThread(anonymous)
        expect(claim.threadId).toBe(other.threadId)
        expect((yield* anonymous.client.agent.claim({ payload: { sessionId: anonymous.sessionId, threadId: thread.threadId } })).thread)
          .toBeNull()
      }))

    it.effect("a running thread cannot be started fresh (409): the run in flight would name its session again", () =>
      Effect.gen(function*() {
        const owner = yield* seedOwner("pin-running")
        const cli = yield* connectCli(owner.key, owner.project.id, { machineId: "machine-a" })
        const thread = yield* createThread(owner.key, cli.target, "Busy")
        yield* startBatch(cli, yield* claimThread(cli, thread.threadId))
        const refused = yield* Effect.flip(cli.client.threads.startFresh({ path: { threadId: thread.threadId } }))
        expect(refused).toMatchObject({ _tag: "Conflict", message: expect.stringContaining("is running") })
      }))

    it.effect("start-fresh names the thread: a container is a bad argument, someone else's thread is not found", () =>
      Effect.gen(function*() {
        const owner = yield* seedOwner("pin-errors")
        const cli = yield* connectCli(owner.key, owner.project.id, { machineId: "machine-a" })
        const run = yield* cli.client.threads.createWorkflowRun({ payload: { projectId: owner.project.id, title: "Nightly" } })
        const container = yield* Effect.flip(cli.client.threads.startFresh({ path: { threadId: run.threadId } }))
        expect(container).toMatchObject({ _tag: "InvalidArgument", message: expect.stringContaining("threadId") })
        const stranger = yield* seedOwner("pin-errors-other")
        const theirs = yield* connectCli(stranger.key, stranger.project.id, { machineId: "machine-z" })
        const theirThread = yield* createThread(stranger.key, theirs.target, "Mine")
        expect(yield* outcome(cli.client.threads.startFresh({ path: { threadId: theirThread.threadId } }))).toBe("NotFound")
      }))
  })
})
