import { HttpClient, HttpClientRequest } from "@effect/platform"
import { describe, expect, layer } from "@effect/vitest"
import { Array as Arr, Effect, Option, Stream } from "effect"
import { ApiKeys } from "../../src/platform/auth/ApiKeys.js"
import { connect, type Frame } from "../support/Sse.js"
import { TestServer } from "../support/TestServer.js"
import { createKey, seedOwner } from "../support/Seed.js"
import { joinAs, ok, okNull, scopedTo } from "../support/TaskTools.js"
import {
  disconnect,
  markDone,
  ownerWithCli,
  pin,
  registerMachine,
  secondProject,
  share,
  teammate,
  threadOn
} from "../support/ThreadFixtures.js"

/**
 * `GET /api/projects/:projectId/changes`: a page of a project waits on this stream instead of asking
 * on a timer. Each `changes` frame names the threads the reader may read whose state changed, the
 * reader's machines that went online or offline, and the project's tasks, Lists, labels and
 * artifacts written.
 */

const changesPath = (projectId: string) => `/api/projects/${projectId}/changes`

const idsOf = (frame: Frame, field: keyof typeof nothing): ReadonlyArray<string> => {
  const ids: unknown = Reflect.get(Object(frame.data), field)
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === "string") : []
}
const threadIdsOf = (frame: Frame) => idsOf(frame, "threadIds")
const nothing = {
  threadIds: [],
  profileIds: [],
  taskIds: [],
  listIds: [],
  labelIds: [],
  artifactIds: [],
  agentIds: [],
  promptIds: [],
  skillIds: []
}

/** The next `count` frames, or a failure naming what came when none comes within 10 s. */
const nextFrames = <E>(stream: Stream.Stream<Frame, E>, count: number) =>
  Stream.take(stream, count).pipe(Stream.timeout("10 seconds"), Stream.runCollect, Effect.map((chunk) => [...chunk]))

/** Frames until every id in `ids` was named in any field (10 s at most). */
const framesNamingAny = <E>(stream: Stream.Stream<Frame, E>, ids: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const named = new Set<string>()
    const frames = yield* stream.pipe(
      Stream.tap((frame) => Effect.sync(() => Object.values(Object(frame.data)).flat().forEach((id) => named.add(String(id))))),
      Stream.takeUntil(() => ids.every((id) => named.has(id))),
      Stream.timeout("10 seconds"),
      Stream.runCollect
    )
    return { frames: [...frames], named }
  })

/** Frames until every id in `ids` was named (10 s at most), and every id they named. */
const framesNaming = <E>(stream: Stream.Stream<Frame, E>, ids: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const named = new Set<string>()
    const frames = yield* stream.pipe(
      Stream.tap((frame) => Effect.sync(() => threadIdsOf(frame).forEach((id) => named.add(id)))),
      Stream.takeUntil(() => ids.every((id) => named.has(id))),
      Stream.timeout("10 seconds"),
      Stream.runCollect
    )
    return { frames: [...frames], named }
  })

const statusOf = (key: string, path: string) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    return (yield* client.execute(HttpClientRequest.get(path).pipe(HttpClientRequest.bearerToken(key)))).status
  }).pipe(Effect.scoped)

describe("a project's changes stream", () => {
  layer(TestServer({ rateLimit: Option.none() }), { excludeTestServices: true })((it) => {
    it.effect("a change to one of the reader's threads comes as a changes frame naming it", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("changes-own")
        const thread = yield* threadOn(owner.key, owner.cli)
        const changes = yield* connect(owner.key, changesPath(owner.project.id))

        yield* markDone(owner.cli, thread.threadId)
        const [frame] = yield* nextFrames(changes, 1)
        expect(frame?.event).toBe("changes")
        expect(frame?.data).toEqual({ ...nothing, threadIds: [thread.threadId] })
      }).pipe(Effect.scoped))

    it.effect("a machine of the reader's that connects or disconnects is named by its profile; a teammate's is not", () =>
      Effect.gen(function*() {
        // The stream opens before the reader's first machine registers: registered earlier, its notice
        // could arrive after the stream opened (PostgreSQL delivers NOTIFY asynchronously) and be named
        // with the next machine's.
        const seeded = yield* seedOwner("changes-machines")
        const changes = yield* connect(seeded.key, changesPath(seeded.project.id))
        const cli = yield* registerMachine(seeded.key, seeded.project.id)
        const [first] = yield* nextFrames(changes, 1)
        expect(first?.data).toEqual({ ...nothing, profileIds: [cli.profileId] })
        const owner = { ...seeded, scope: scopedTo(seeded.project.id), cli }

        yield* teammate(owner, "other")
        const laptop = yield* registerMachine(owner.key, owner.project.id, { name: "second-laptop", path: "/home/dev/second" })
        const [connected] = yield* nextFrames(changes, 1)
        expect(connected?.data).toEqual({ ...nothing, profileIds: [laptop.profileId] })

        yield* disconnect(laptop)
        const [disconnected] = yield* nextFrames(changes, 1)
        expect(disconnected?.data).toEqual({ ...nothing, profileIds: [laptop.profileId] })
      }).pipe(Effect.scoped))

    it.effect("a teammate's thread is named only once it is shared", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("changes-mate")
        const mate = yield* teammate(owner, "reader")
        const changes = yield* connect(mate.key, changesPath(owner.project.id))

        const kept = yield* threadOn(owner.key, owner.cli, { content: "Private work" })
        yield* pin(owner.cli, kept.threadId)
        const shared = yield* threadOn(owner.key, owner.cli, { content: "Shared work" })
        yield* share(owner.cli, shared.threadId)

        const [frame] = yield* nextFrames(changes, 1)
        expect(threadIdsOf(frame!)).toEqual([shared.threadId])
      }).pipe(Effect.scoped))

    it.effect("another project's thread changes are not sent", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("changes-other")
        const other = yield* secondProject(owner, "OTHER")
        const changes = yield* connect(owner.key, changesPath(owner.project.id))

        const elsewhere = yield* threadOn(owner.key, other.cli)
        yield* markDone(other.cli, elsewhere.threadId)
        const here = yield* threadOn(owner.key, owner.cli)

        const [frame] = yield* nextFrames(changes, 1)
        expect(threadIdsOf(frame!)).toEqual([here.threadId])
      }).pipe(Effect.scoped))

    it.effect("a burst of changes comes gathered: 30 threads created at once are named in fewer frames than changes", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("changes-burst")
        const changes = yield* connect(owner.key, changesPath(owner.project.id))

        const created = yield* Effect.all(Arr.makeBy(30, (i) => threadOn(owner.key, owner.cli, { content: `Part ${i}` })), {
          concurrency: 10
        })
        const ids = created.map((thread) => thread.threadId)
        const { frames, named } = yield* framesNaming(changes, ids)
        expect([...named].sort()).toEqual([...ids].sort())
        expect(frames.length).toBeLessThan(ids.length)
        for (const frame of frames) expect(new Set(threadIdsOf(frame)).size).toBe(threadIdsOf(frame).length)
      }).pipe(Effect.scoped))

    it.effect("a task written (its comments, links and artifacts too), a List, a label and an artifact's comments are named, to a viewer too", () =>
      Effect.gen(function*() {
        // No machine: its registration's own notice, delivered late (PostgreSQL delivers NOTIFY
        // asynchronously, after the stream opened), would be named in the first frame.
        const owner = yield* seedOwner("changes-content")
        const viewer = yield* joinAs(owner.project.id, "changes-content", "viewer")
        const scope = scopedTo(owner.project.id)
        const changes = yield* connect(viewer.key, changesPath(owner.project.id))

        const task = yield* ok(owner.key, "create_task", { name: "Write the plan" }, scope)
        const [created] = yield* nextFrames(changes, 1)
        expect(created?.data).toEqual({ ...nothing, taskIds: [task.taskId] })

        yield* ok(owner.key, "create_task_comment", { taskId: task.taskId, content: "Started" }, scope)
        const [commented] = yield* nextFrames(changes, 1)
        expect(commented?.data).toEqual({ ...nothing, taskIds: [task.taskId] })

        const artifact = yield* ok(
          owner.key,
          "create_task_artifact",
          { taskId: task.taskId, name: "Plan", content: "# Plan\n\nShip it." },
          scope
        )
        const [attached] = yield* nextFrames(changes, 1)
        expect(attached?.data).toEqual({ ...nothing, taskIds: [task.taskId], artifactIds: [artifact.artifactId] })

        yield* ok(owner.key, "create_artifact_comment", { artifactId: artifact.artifactId, anchorText: "Ship it", content: "When?" }, scope)
        const [discussed] = yield* nextFrames(changes, 1)
        expect(discussed?.data).toEqual({ ...nothing, artifactIds: [artifact.artifactId] })

        const list = yield* ok(owner.key, "create_task_list", { name: "Next" }, scope)
        const label = yield* ok(owner.key, "create_task_label", { name: "urgent", color: "red" }, scope)
        const { frames, named } = yield* framesNamingAny(changes, [list.listId, label.labelId])
        expect(frames.flatMap((frame) => idsOf(frame, "listIds"))).toContain(list.listId)
        expect(frames.flatMap((frame) => idsOf(frame, "labelIds"))).toContain(label.labelId)
        expect(named.size).toBeGreaterThanOrEqual(2)
      }).pipe(Effect.scoped))

    it.effect("a project agent, prompt or Skill written comes as a frame naming it", () =>
      Effect.gen(function*() {
        // No machine: its registration's own notice, delivered late (PostgreSQL delivers NOTIFY
        // asynchronously, after the stream opened), would be named in the first frame.
        const owner = yield* seedOwner("changes-settings")
        const scope = scopedTo(owner.project.id)
        const changes = yield* connect(owner.key, changesPath(owner.project.id))

        const agent = yield* ok(owner.key, "create_project_agent", { name: "Builder", appearance: { color: "teal" } }, scope)
        const [created] = yield* nextFrames(changes, 1)
        expect(created?.data).toEqual({ ...nothing, agentIds: [agent.projectAgentId] })

        const prompt = yield* ok(owner.key, "create_prompt", { key: "review", content: "Review it" }, scope)
        const [prompted] = yield* nextFrames(changes, 1)
        expect(prompted?.data).toEqual({ ...nothing, promptIds: [prompt.promptId] })

        const skill = yield* ok(owner.key, "create_skill", { name: "deploy", content: "---\nname: deploy\n---\nShip.\n" }, scope)
        const [skilled] = yield* nextFrames(changes, 1)
        expect(skilled?.data).toEqual({ ...nothing, skillIds: [skill.skillId] })
        yield* okNull(owner.key, "delete_skill", { skillId: skill.skillId }, scope)
        const [deleted] = yield* nextFrames(changes, 1)
        expect(deleted?.data).toEqual({ ...nothing, skillIds: [skill.skillId] })
      }).pipe(Effect.scoped))

    it.effect("an organization's prompt and Skill reach each of its projects; its Skills not a key narrowed to projects", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("changes-organization")
        const other = yield* secondProject(owner, "SECOND")
        const narrowed = yield* createKey(owner.user.id, [other.project.id])
        const onFirst = yield* connect(owner.key, changesPath(owner.project.id))
        const onSecond = yield* connect(owner.key, changesPath(other.project.id))
        const narrowedOnSecond = yield* connect(narrowed.secret, changesPath(other.project.id))
        const organization = { ...scopedTo(owner.project.id) }

        const prompt = yield* ok(owner.key, "create_prompt", { scope: "organization", key: "triage", content: "Triage" }, organization)
        const skill = yield* ok(
          owner.key,
          "create_skill",
          { scope: "organization", name: "shared", content: "---\nname: shared\n---\nShared.\n" },
          organization
        )
        for (const changes of [onFirst, onSecond]) {
          const { frames } = yield* framesNamingAny(changes, [prompt.promptId, skill.skillId])
          expect(frames.flatMap((frame) => idsOf(frame, "promptIds"))).toContain(prompt.promptId)
          expect(frames.flatMap((frame) => idsOf(frame, "skillIds"))).toContain(skill.skillId)
        }
        // The narrowed key hears of the prompt, never of the Skill: a later change shows the stream went on past it.
        const later = yield* ok(owner.key, "create_task", { name: "After" }, scopedTo(other.project.id))
        const { frames } = yield* framesNamingAny(narrowedOnSecond, [prompt.promptId, later.taskId])
        expect(frames.flatMap((frame) => idsOf(frame, "promptIds"))).toContain(prompt.promptId)
        expect(frames.flatMap((frame) => idsOf(frame, "skillIds"))).toEqual([])
      }).pipe(Effect.scoped))

    it.effect("a project the key's user cannot see is 404, one the key is narrowed away from 403, a malformed projectId 400", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("changes-refused")
        const stranger = yield* ownerWithCli("changes-stranger")
        const other = yield* secondProject(owner, "NARROW")
        const narrowed = yield* createKey(owner.user.id, [other.project.id])

        expect(yield* statusOf(stranger.key, changesPath(owner.project.id))).toBe(404)
        expect(yield* statusOf(narrowed.secret, changesPath(owner.project.id))).toBe(403)
        expect(yield* statusOf(owner.key, "/api/projects/not-a-project/changes")).toBe(400)
      }))

    it.effect("the stream ends when its key is revoked", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("changes-revoked")
        const reader = yield* createKey(owner.user.id, null)
        const changes = yield* connect(reader.secret, changesPath(owner.project.id))
        const ended = yield* Effect.fork(Stream.runCollect(changes).pipe(Effect.timeout("6 seconds")))

        yield* (yield* ApiKeys).revoke(reader.record.id)
        yield* Effect.flatMap(ended.await, (exit) => Effect.sync(() => expect(exit._tag).toBe("Success")))
      }).pipe(Effect.scoped))
  })
})
