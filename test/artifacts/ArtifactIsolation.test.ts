import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Memberships } from "../../src/orgs/Memberships.js"
import { Projects } from "../../src/projects/Projects.js"
import { Users } from "../../src/orgs/Users.js"
import { comment, createArtifact, getArtifact, seedTask } from "../support/ArtifactTools.js"
import { TestServer } from "../support/TestServer.js"
import { createKey } from "../support/Seed.js"
import { call, createTask, ok, type Scope, type ToolErrorBody } from "../support/TaskTools.js"

/** Words only organization A's artifacts and comments contain: no answer to anyone else may carry them. */
const SECRETS = ["Alpha design", "classified roadmap", "alpha remark", "alpha answer", "Alpha notes"]

/** Organization A: a task with a markdown artifact, a thread with a reply, and an html artifact. */
const seedA = (slug: string) =>
  Effect.gen(function*() {
    const a = yield* seedTask(slug)
    const artifact = yield* createArtifact(a.key, a.task.taskId, { name: "Alpha design", content: "The classified roadmap." })
    yield* createArtifact(a.key, a.task.taskId, { name: "Alpha notes", contentType: "html", content: "<p>x</p>" })
    const thread = yield* comment(a.key, artifact.artifactId, "classified roadmap", { content: "alpha remark" })
    const reply = yield* ok(a.key, "reply_to_artifact_comment", { commentId: thread.commentId, content: "alpha answer" })
    return { ...a, artifactId: artifact.artifactId, commentId: thread.commentId, replyId: reply.commentId }
  })

/** Everything A's owner can read about A's artifacts. */
const stateOf = (key: string, taskId: string, artifactId: string) =>
  Effect.gen(function*() {
    return {
      task: yield* ok(key, "get_task", { taskId }),
      list: yield* ok(key, "list_task_artifacts", { taskId }),
      artifact: yield* getArtifact(key, artifactId, { includeComments: true })
    }
  })

/** Every artifact tool, aimed at A's task, artifact and comments. */
const casesAgainst = (
  a: { taskId: string; artifactId: string; commentId: string; replyId: string; scoped: string; projectId: string },
  ownTask: string
) =>
  [
    ["list_task_artifacts", { taskId: a.taskId }],
    ["list_task_artifacts", { taskId: a.scoped }],
    ["list_task_artifacts", { taskId: "MAIN-1", projectId: a.projectId }],
    ["get_task_artifact", { artifactId: a.artifactId, includeComments: true }],
    ["create_task_artifact", { taskId: a.taskId, name: "Planted" }],
    ["create_task_artifact", { taskId: a.scoped, name: "Planted" }],
    ["update_task_artifact", { artifactId: a.artifactId, content: "Hijacked" }],
    ["replace_in_task_artifact", { artifactId: a.artifactId, oldString: "The", newString: "Hijacked" }],
    ["move_task_artifact", { artifactId: a.artifactId, taskId: ownTask }],
    ["delete_task_artifact", { artifactId: a.artifactId }],
    ["list_artifact_comments", { artifactId: a.artifactId }],
    ["create_artifact_comment", { artifactId: a.artifactId, anchorText: "The", content: "Planted" }],
    ["reply_to_artifact_comment", { commentId: a.commentId, content: "Planted" }],
    ["reply_to_artifact_comment", { commentId: a.replyId, content: "Planted" }],
    ["set_artifact_comment_status", { commentIds: [a.commentId], status: "resolved" }]
  ] as const

const expectError = (key: string, name: string, args: Record<string, unknown>, code: string, scope: Scope = {}) =>
  Effect.gen(function*() {
    const result = yield* call(key, name, args, scope)
    const label = `${name} ${JSON.stringify(args)}`
    expect(result.isError, `${label} → ${JSON.stringify(result.structuredContent)}`).toBe(true)
    const error = (result.structuredContent as { readonly error: ToolErrorBody }).error
    expect(error.code, `${label} → ${error.message}`).toBe(code)
    for (const secret of SECRETS) expect(JSON.stringify(result), label).not.toContain(secret)
    return error
  })

describe("tenant isolation of the artifact tools", () => {
  layer(TestServer())((it) => {
    it.effect("every artifact tool called by organization B with A's task, artifact and comment IDs is not found and changes nothing", () =>
      Effect.gen(function*() {
        const a = yield* seedA("art-tenant-a")
        const b = yield* seedTask("art-tenant-b")
        const bArtifact = yield* createArtifact(b.key, b.task.taskId, { content: "The bravo text" })
        const bThread = yield* comment(b.key, bArtifact.artifactId, "bravo")
        const before = yield* stateOf(a.key, a.task.taskId, a.artifactId)
        const beforeB = yield* stateOf(b.key, b.task.taskId, bArtifact.artifactId)
        const target = { ...a, taskId: a.task.taskId, scoped: "art-tenant-a/MAIN-1", projectId: a.project.id }
        const tools = new Set<string>()
        for (const [name, args] of casesAgainst(target, b.task.taskId)) {
          tools.add(name)
          yield* expectError(b.key, name, args, "not_found")
        }
        // B's own artifact cannot be moved onto A's task, by ID or scoped ref.
        for (const taskId of [a.task.taskId, "art-tenant-a/MAIN-1"]) {
          yield* expectError(b.key, "move_task_artifact", { artifactId: bArtifact.artifactId, taskId }, "not_found")
        }
        // A's comment in a batch with B's own fails the whole batch.
        yield* expectError(
          b.key,
          "set_artifact_comment_status",
          { commentIds: [bThread.commentId, a.commentId], status: "resolved" },
          "not_found"
        )
        expect(tools.size).toBe(11)
        expect(yield* stateOf(a.key, a.task.taskId, a.artifactId)).toEqual(before)
        // B's own data is untouched by the refused calls, and nothing was created on its behalf.
        expect(yield* stateOf(b.key, b.task.taskId, bArtifact.artifactId)).toEqual(beforeB)
      }))

    it.effect("the not-found answer for A's artifact and comment IDs is the same as for IDs that do not exist", () =>
      Effect.gen(function*() {
        const a = yield* seedA("art-tenant-a2")
        const b = yield* seedTask("art-tenant-b2")
        for (
          const [name, args, real, ghost] of [
            ["get_task_artifact", (id: string) => ({ artifactId: id }), a.artifactId, "artifact_00000000000000000000000000000000"],
            [
              "reply_to_artifact_comment",
              (id: string) => ({ commentId: id, content: "x" }),
              a.commentId,
              "acomment_00000000000000000000000000000000"
            ],
            [
              "set_artifact_comment_status",
              (id: string) => ({ commentIds: [id], status: "open" }),
              a.commentId,
              "acomment_00000000000000000000000000000000"
            ]
          ] as const
        ) {
          const seen = yield* expectError(b.key, name, args(real), "not_found")
          const unseen = yield* expectError(b.key, name, args(ghost), "not_found")
          expect(seen.message.replaceAll(real, "<id>")).toBe(unseen.message.replaceAll(ghost, "<id>"))
        }
      }))

    it.effect("a member of A's organization outside the project gets not found on A's artifacts and comments", () =>
      Effect.gen(function*() {
        const a = yield* seedA("art-tenant-a3")
        const outsider = yield* (yield* Users).create({ name: "Org member", email: "member@art-tenant-a3.test" })
        yield* (yield* Memberships).addToOrganization(a.organization.id, outsider.id, "member")
        const key = (yield* createKey(outsider.id, null)).secret
        const own = yield* (yield* Projects).create({ organizationId: a.organization.id, name: "Own", ref: "OWN" })
        yield* (yield* Memberships).addToProject(own.id, outsider.id, "admin")
        const ownTask = yield* createTask(key, { path: `/api/mcp?project=${own.id}` }, { name: "Mine" })
        const before = yield* stateOf(a.key, a.task.taskId, a.artifactId)
        const target = { ...a, taskId: a.task.taskId, scoped: "art-tenant-a3/MAIN-1", projectId: a.project.id }
        for (const [name, args] of casesAgainst(target, ownTask.taskId)) yield* expectError(key, name, args, "not_found")
        expect(yield* stateOf(a.key, a.task.taskId, a.artifactId)).toEqual(before)
      }))

    it.effect("a key narrowed away from A's project is forbidden on its artifacts and comments and changes nothing", () =>
      Effect.gen(function*() {
        const a = yield* seedA("art-tenant-a4")
        const elsewhere = yield* (yield* Projects).create({ organizationId: a.organization.id, name: "Elsewhere", ref: "ELSE" })
        const narrowed = (yield* createKey(a.user.id, [elsewhere.id])).secret
        const elsewhereTask = yield* createTask(a.key, { path: `/api/mcp?project=${elsewhere.id}` }, { name: "Else" })
        const before = yield* stateOf(a.key, a.task.taskId, a.artifactId)
        const target = { ...a, taskId: a.task.taskId, scoped: "art-tenant-a4/MAIN-1", projectId: a.project.id }
        for (const [name, args] of casesAgainst(target, elsewhereTask.taskId)) yield* expectError(narrowed, name, args, "forbidden")
        expect(yield* stateOf(a.key, a.task.taskId, a.artifactId)).toEqual(before)
      }))
  })
})
