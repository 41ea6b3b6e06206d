import { describe, expect, layer } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { Catalog } from "../../catalog/index.js"
import { MAX_ARTIFACT_CONTENT_LENGTH } from "../../catalog/domain/Artifact.js"
import { Projects } from "../../src/projects/Projects.js"
import { comment, createArtifact, getArtifact, replaceIn, seedTask, threadsOf } from "../support/ArtifactTools.js"
import { callTool, TestServer } from "../support/TestServer.js"
import { call, createTask, fails, getTask, joinAs, listTasks, ok, scopedTo } from "../support/TaskTools.js"
import { succeeds } from "../support/ToolCalls.js"

const summariesOf = (key: string, taskId: string) => Effect.map(ok(key, "get_task", { taskId }), (task) => task.artifacts)

describe("artifact tools", () => {
  layer(TestServer())((it) => {
    it.effect("create_task_artifact defaults: empty content, markdown, no runId; the caller is the author", () =>
      Effect.gen(function*() {
        const { key, task, user } = yield* seedTask("art-defaults")
        const created = yield* createArtifact(key, task.taskId, { name: "  Plan  " })
        expect(created.taskId).toBe(task.taskId)
        const artifact = yield* getArtifact(key, created.artifactId)
        expect(artifact).toMatchObject({
          artifactId: created.artifactId,
          taskId: task.taskId,
          name: "Plan",
          content: "",
          contentType: "markdown",
          runId: null,
          authorId: user.id,
          authorName: user.name,
          openCommentCount: 0
        })
        expect(Date.parse(artifact.createdAt)).toBeGreaterThan(0)
        expect(artifact.updatedAt).toBe(artifact.createdAt)
        expect(artifact.comments).toBeUndefined()
      }))

    it.effect("create_task_artifact takes content, contentType html and a runId", () =>
      Effect.gen(function*() {
        const { key, task } = yield* seedTask("art-html")
        const { artifactId } = yield* createArtifact(key, task.taskId, { content: "<p>Hi</p>", contentType: "html", runId: "thread_1" })
        expect(yield* getArtifact(key, artifactId)).toMatchObject({ content: "<p>Hi</p>", contentType: "html", runId: "thread_1" })
        const bad = yield* fails(key, "create_task_artifact", { taskId: task.taskId, name: "X", contentType: "pdf" })
        expect(bad.code).toBe("invalid_argument")
        expect(bad.message).toContain("contentType")
      }))

    it.effect("a task is addressed by ID, bare ref (projectId or ?project=) or scoped ref; a bare ref without a project is refused naming projectId", () =>
      Effect.gen(function*() {
        const { key, organization, project, scope, task } = yield* seedTask("art-address")
        const ref = (yield* getTask(key, task.taskId)).refId
        for (
          const [args, options] of [
            [{ taskId: task.taskId }, {}],
            [{ taskId: ref, projectId: project.id }, {}],
            [{ taskId: ref }, scope],
            [{ taskId: `${organization.slug}/${ref}` }, {}]
          ] as const
        ) {
          expect((yield* createArtifact(key, args.taskId, args, options)).taskId).toBe(task.taskId)
          expect((yield* ok(key, "list_task_artifacts", args, options)).artifacts.length).toBeGreaterThan(0)
        }
        const error = yield* fails(key, "create_task_artifact", { taskId: ref, name: "X" })
        expect(error).toMatchObject({ code: "invalid_argument" })
        expect(error.message).toContain("projectId")
        expect((yield* fails(key, "list_task_artifacts", { taskId: "task_00000000000000000000000000000000" })).code).toBe("not_found")
      }))

    it.effect("contentType is immutable: update_task_artifact does not take it", () =>
      Effect.gen(function*() {
        const { key, task } = yield* seedTask("art-immutable")
        const { artifactId } = yield* createArtifact(key, task.taskId, { content: "# Title" })
        const error = yield* fails(key, "update_task_artifact", { artifactId, contentType: "html" })
        expect(error.code).toBe("invalid_argument")
        expect(error.message).toContain("contentType: is unexpected")
        expect((yield* getArtifact(key, artifactId)).contentType).toBe("markdown")
      }))

    it.effect("update_task_artifact changes only the given fields; runId null clears it; updatedAt moves", () =>
      Effect.gen(function*() {
        const { key, task } = yield* seedTask("art-update")
        const { artifactId } = yield* createArtifact(key, task.taskId, { name: "Draft", content: "Body", runId: "run-1" })
        const before = yield* getArtifact(key, artifactId)
        yield* ok(key, "update_task_artifact", { artifactId, name: "Final" })
        const renamed = yield* getArtifact(key, artifactId)
        expect(renamed).toMatchObject({ name: "Final", content: "Body", runId: "run-1", createdAt: before.createdAt })
        expect(Date.parse(renamed.updatedAt)).toBeGreaterThanOrEqual(Date.parse(before.updatedAt))
        yield* ok(key, "update_task_artifact", { artifactId, content: "New body" })
        expect(yield* getArtifact(key, artifactId)).toMatchObject({ name: "Final", content: "New body", runId: "run-1" })
        yield* ok(key, "update_task_artifact", { artifactId, runId: "run-2" })
        expect((yield* getArtifact(key, artifactId)).runId).toBe("run-2")
        yield* ok(key, "update_task_artifact", { artifactId, runId: null })
        expect(yield* getArtifact(key, artifactId)).toMatchObject({ name: "Final", content: "New body", runId: null })
        yield* ok(key, "update_task_artifact", { artifactId, content: "" })
        expect((yield* getArtifact(key, artifactId)).content).toBe("")
      }))

    it.effect("names must not be blank and content has a size limit", () =>
      Effect.gen(function*() {
        const { key, task } = yield* seedTask("art-limits")
        const { artifactId } = yield* createArtifact(key, task.taskId)
        for (
          const [name, args] of [
            ["create_task_artifact", { taskId: task.taskId, name: "   " }],
            ["update_task_artifact", { artifactId, name: "" }],
            ["create_task_artifact", { taskId: task.taskId, name: "x".repeat(201) }],
            ["create_task_artifact", { taskId: task.taskId, name: "Big", content: "x".repeat(MAX_ARTIFACT_CONTENT_LENGTH + 1) }],
            ["update_task_artifact", { artifactId, content: "x".repeat(MAX_ARTIFACT_CONTENT_LENGTH + 1) }],
            ["update_task_artifact", { artifactId, runId: "" }]
          ] as const
        ) {
          const error = yield* fails(key, name, args)
          expect(error.code, name).toBe("invalid_argument")
          expect(error.message, name).toMatch(/name|content|runId/)
        }
        // A replacement that would grow the content past the limit is refused and writes nothing.
        yield* ok(key, "update_task_artifact", { artifactId, content: "ab".repeat(MAX_ARTIFACT_CONTENT_LENGTH / 2) })
        const tooBig = yield* fails(key, "replace_in_task_artifact", { artifactId, oldString: "a", newString: "aa", replaceAll: true })
        expect(tooBig.code).toBe("limit_exceeded")
        expect((yield* getArtifact(key, artifactId)).content.length).toBe(MAX_ARTIFACT_CONTENT_LENGTH)
      }))

    it.effect("list_task_artifacts lists a task's artifacts oldest first, without content", () =>
      Effect.gen(function*() {
        const { key, task, user } = yield* seedTask("art-list")
        const first = yield* createArtifact(key, task.taskId, { name: "First", content: "one" })
        const second = yield* createArtifact(key, task.taskId, { name: "Second", contentType: "html", runId: "r" })
        const other = yield* createTask(key, scopedTo((yield* getTask(key, task.taskId)).projectId), { name: "Other" })
        yield* createArtifact(key, other.taskId, { name: "Elsewhere" })
        const { artifacts } = yield* ok(key, "list_task_artifacts", { taskId: task.taskId })
        expect(artifacts.map((artifact) => artifact["artifactId"])).toEqual([first.artifactId, second.artifactId])
        expect(artifacts[1]).toMatchObject({
          name: "Second",
          contentType: "html",
          runId: "r",
          taskId: task.taskId,
          authorName: user.name,
          openCommentCount: 0
        })
        for (const artifact of artifacts) expect(artifact).not.toHaveProperty("content")
      }))

    it.effect("get_task lists artifact summaries with their open comment counts; list_tasks does not", () =>
      Effect.gen(function*() {
        const { key, scope, task } = yield* seedTask("art-get-task")
        expect(yield* summariesOf(key, task.taskId)).toEqual([])
        const { artifactId } = yield* createArtifact(key, task.taskId, { name: "Spec", content: "alpha beta gamma", runId: "run-9" })
        yield* createArtifact(key, task.taskId, { name: "Page", contentType: "html" })
        const open = yield* comment(key, artifactId, "alpha")
        yield* comment(key, artifactId, "beta")
        yield* comment(key, artifactId, "gamma")
        yield* ok(key, "set_artifact_comment_status", { commentIds: [open.commentId], status: "resolved" })
        const artifact = yield* getArtifact(key, artifactId)
        expect(yield* summariesOf(key, task.taskId)).toEqual([
          { artifactId, name: "Spec", contentType: "markdown", runId: "run-9", updatedAt: artifact.updatedAt, openCommentCount: 2 },
          expect.objectContaining({ name: "Page", contentType: "html", runId: null, openCommentCount: 0 })
        ])
        for (const row of yield* listTasks(key, scope)) expect(row).not.toHaveProperty("artifacts")
      }))

    it.effect("get_tasks gives each task its own artifact summaries", () =>
      Effect.gen(function*() {
        const { key, scope, task } = yield* seedTask("art-get-tasks")
        const tasks = [task, ...(yield* Effect.forEach([1, 2, 3, 4], (n) => createTask(key, scope, { name: `Task ${n}` })))]
        yield* Effect.forEach(tasks, (item, i) =>
          Effect.forEach(Array.from({ length: i }, (_, n) => n), (n) => createArtifact(key, item.taskId, { name: `A${i}.${n}` })))
        const identifiers = [
          ...tasks.map((item) =>
            item.taskId
          ),
          "task_00000000000000000000000000000000"
        ]
        const { tasks: results } = yield* ok(
          key,
          "get_tasks",
          { identifiers }
        )
        expect(results.map((result) => result.identifier)).toEqual(identifiers)
        tasks.forEach((_, i) => {
          const entry = results[i]
          expect(entry !== undefined && "task" in entry ? entry.task.artifacts.map((artifact) => artifact.name) : entry)
            .toEqual(Array.from({ length: i }, (_, n) => `A${i}.${n}`))
        })
        const missing = results[5]
        expect(missing !== undefined && "error" in missing ? missing.error : missing).toMatchObject({ code: "not_found" })
      }))

    it.effect("get_task_artifact with includeComments adds the threads as list_artifact_comments gives them; commentsStatus filters", () =>
      Effect.gen(function*() {
        const { key, task } = yield* seedTask("art-include")
        const { artifactId } = yield* createArtifact(key, task.taskId, { content: "one two three" })
        const one = yield* comment(key, artifactId, "one")
        const two = yield* comment(key, artifactId, "two")
        yield* ok(key, "reply_to_artifact_comment", { commentId: two.commentId, content: "Agreed" })
        yield* ok(key, "set_artifact_comment_status", { commentIds: [one.commentId], status: "resolved" })
        const all = yield* getArtifact(key, artifactId, { includeComments: true })
        expect(all.comments).toEqual(yield* threadsOf(key, artifactId))
        expect(all.comments?.map((thread) => thread.commentId)).toEqual([one.commentId, two.commentId])
        expect((yield* getArtifact(key, artifactId, { includeComments: true, commentsStatus: "open" })).comments)
          .toEqual(yield* threadsOf(key, artifactId, { status: "open" }))
        expect(
          (yield* getArtifact(key, artifactId, { includeComments: true, commentsStatus: "resolved" })).comments?.map((thread) =>
            thread.commentId
          )
        )
          .toEqual([one.commentId])
        expect((yield* getArtifact(key, artifactId, { includeComments: false })).comments).toBeUndefined()
        const error = yield* fails(key, "get_task_artifact", { artifactId, commentsStatus: "open" })
        expect(error).toMatchObject({ code: "invalid_argument" })
        expect(error.message).toContain("commentsStatus")
      }))

    it.effect("replace_in_task_artifact swaps exactly one exact match; newString may be empty and is taken literally", () =>
      Effect.gen(function*() {
        const { key, task } = yield* seedTask("art-replace")
        const { artifactId } = yield* createArtifact(key, task.taskId, { content: "Hello World\nBye  world" })
        const result = yield* replaceIn(key, artifactId, "Hello World", "Hi $& $1")
        expect(result).toMatchObject({ artifactId, replacements: 1, lostCommentIds: [] })
        expect((yield* getArtifact(key, artifactId)).content).toBe("Hi $& $1\nBye  world")
        yield* replaceIn(key, artifactId, "\nBye  world", "")
        expect((yield* getArtifact(key, artifactId)).content).toBe("Hi $& $1")
        expect((yield* fails(key, "replace_in_task_artifact", { artifactId, oldString: "", newString: "x" })).message).toContain(
          "oldString"
        )
      }))

    it.effect("a zero-match replace is a tool error inside a successful JSON-RPC response that says 0 matches were found; nothing changes", () =>
      Effect.gen(function*() {
        const { key, task } = yield* seedTask("art-zero")
        const { artifactId } = yield* createArtifact(key, task.taskId, { content: "Hello World\nnext line" })
        for (const oldString of ["hello world", "Hello  World", "World next", "Hello World\r\nnext", "absent"]) {
          const response = yield* callTool(key, "replace_in_task_artifact", { artifactId, oldString, newString: "x" })
          expect(response.status).toBe(200)
          const body = response.json as {
            error?: unknown
            result?: { isError?: boolean; structuredContent: { error: { code: string; message: string } } }
          }
          expect(body.error).toBeUndefined()
          expect(body.result?.isError, oldString).toBe(true)
          expect(body.result?.structuredContent.error.message).toContain("found 0 matches")
        }
        expect((yield* getArtifact(key, artifactId)).content).toBe("Hello World\nnext line")
      }))

    it.effect("several matches without replaceAll are a tool error saying how many; replaceAll swaps them all and counts them", () =>
      Effect.gen(function*() {
        const { key, task } = yield* seedTask("art-multi")
        const { artifactId } = yield* createArtifact(key, task.taskId, { content: "a-b a-b a-b" })
        const result = yield* call(key, "replace_in_task_artifact", { artifactId, oldString: "a-b", newString: "c" })
        expect(result.isError).toBe(true)
        expect((result.structuredContent as { error: { message: string } }).error.message).toContain("found 3 matches")
        expect((yield* getArtifact(key, artifactId)).content).toBe("a-b a-b a-b")
        expect((yield* replaceIn(key, artifactId, "a-b", "c", true)).replacements).toBe(3)
        expect((yield* getArtifact(key, artifactId)).content).toBe("c c c")
        const none = yield* fails(key, "replace_in_task_artifact", { artifactId, oldString: "zz", newString: "c", replaceAll: true })
        expect(none.message).toContain("found 0 matches")
      }))

    it.effect("move_task_artifact moves the artifact with its comments to another task of the project, by ID or ref", () =>
      Effect.gen(function*() {
        const { key, organization, project, scope, task } = yield* seedTask("art-move")
        const target = yield* createTask(key, scope, { name: "Target" })
        const { artifactId } = yield* createArtifact(key, task.taskId, { content: "move me" })
        const thread = yield* comment(key, artifactId, "move")
        yield* ok(key, "reply_to_artifact_comment", { commentId: thread.commentId, content: "ok" })
        expect(yield* ok(key, "move_task_artifact", { artifactId, taskId: target.taskId })).toEqual({ artifactId, taskId: target.taskId })
        expect((yield* getArtifact(key, artifactId)).taskId).toBe(target.taskId)
        expect(yield* summariesOf(key, task.taskId)).toEqual([])
        expect((yield* summariesOf(key, target.taskId)).map((artifact) => [artifact.artifactId, artifact.openCommentCount])).toEqual([[
          artifactId,
          1
        ]])
        const threads = yield* threadsOf(key, artifactId)
        expect(threads.map((item) => [item.commentId, item.replies.length])).toEqual([[thread.commentId, 1]])
        // Back by bare ref: with projectId, with ?project=, and with neither (the artifact's own project).
        const ref = (yield* getTask(key, task.taskId)).refId
        const targetRef = (yield* getTask(key, target.taskId)).refId
        expect((yield* ok(key, "move_task_artifact", { artifactId, taskId: ref, projectId: project.id })).taskId).toBe(task.taskId)
        expect((yield* ok(key, "move_task_artifact", { artifactId, taskId: targetRef }, scope)).taskId).toBe(target.taskId)
        expect((yield* ok(key, "move_task_artifact", { artifactId, taskId: ref })).taskId).toBe(task.taskId)
        expect((yield* ok(key, "move_task_artifact", { artifactId, taskId: `${organization.slug}/${targetRef}` })).taskId).toBe(
          target.taskId
        )
        expect((yield* fails(key, "move_task_artifact", { artifactId, taskId: "MAIN-999" })).code).toBe("not_found")
      }))

    it.effect("moving an artifact to a task of another project is refused and changes nothing", () =>
      Effect.gen(function*() {
        const { key, organization, task } = yield* seedTask("art-move-across")
        const other = yield* (yield* Projects).create({ organizationId: organization.id, name: "Other", ref: "OTHER" })
        const foreign = yield* createTask(key, scopedTo(other.id), { name: "Foreign" })
        const { artifactId } = yield* createArtifact(key, task.taskId)
        for (
          const args of [{ taskId: foreign.taskId }, { taskId: "OTHER-1", projectId: other.id }, { taskId: `${organization.slug}/OTHER-1` }]
        ) {
          const error = yield* fails(key, "move_task_artifact", { artifactId, ...args })
          expect(error.code).toBe("invalid_argument")
          expect(error.message).toContain("another project")
        }
        expect((yield* getArtifact(key, artifactId)).taskId).toBe(task.taskId)
      }))

    it.effect("delete_task_artifact removes the artifact and its comments", () =>
      Effect.gen(function*() {
        const { key, task } = yield* seedTask("art-delete")
        const { artifactId } = yield* createArtifact(key, task.taskId, { content: "doomed text" })
        const kept = yield* createArtifact(key, task.taskId, { content: "kept text" })
        const thread = yield* comment(key, artifactId, "doomed")
        yield* ok(key, "reply_to_artifact_comment", { commentId: thread.commentId, content: "bye" })
        const keptThread = yield* comment(key, kept.artifactId, "kept")
        expect(yield* ok(key, "delete_task_artifact", { artifactId })).toEqual({ artifactId, deletedCommentCount: 2 })
        for (
          const [name, args] of [
            ["get_task_artifact", { artifactId }],
            ["list_artifact_comments", { artifactId }],
            ["delete_task_artifact", { artifactId }],
            ["reply_to_artifact_comment", { commentId: thread.commentId, content: "late" }],
            ["set_artifact_comment_status", { commentIds: [thread.commentId], status: "resolved" }]
          ] as const
        ) expect((yield* fails(key, name, args)).code, name).toBe("not_found")
        expect((yield* summariesOf(key, task.taskId)).map((artifact) => artifact.artifactId)).toEqual([kept.artifactId])
        expect((yield* threadsOf(key, kept.artifactId)).map((item) => item.commentId)).toEqual([keptThread.commentId])
      }))

    it.effect("the artifacts of a deleted task are not found", () =>
      Effect.gen(function*() {
        const { key, task } = yield* seedTask("art-deleted-task")
        const { artifactId } = yield* createArtifact(key, task.taskId, { content: "text" })
        const thread = yield* comment(key, artifactId, "text")
        yield* ok(key, "delete_task", { taskId: task.taskId })
        for (
          const [name, args] of [
            ["get_task_artifact", { artifactId }],
            ["update_task_artifact", { artifactId, name: "x" }],
            ["reply_to_artifact_comment", { commentId: thread.commentId, content: "x" }]
          ] as const
        ) expect((yield* fails(key, name, args)).code, name).toBe("not_found")
      }))

    it.effect("a viewer reads artifacts and comments but every write is forbidden and changes nothing", () =>
      Effect.gen(function*() {
        const { key, project, scope, task } = yield* seedTask("art-viewer")
        const target = yield* createTask(key, scope, { name: "Target" })
        const { artifactId } = yield* createArtifact(key, task.taskId, { content: "review me" })
        const thread = yield* comment(key, artifactId, "review")
        const viewer = yield* joinAs(project.id, "art-viewer", "viewer")
        const before = yield* getArtifact(key, artifactId, { includeComments: true })
        expect(yield* getArtifact(viewer.key, artifactId, { includeComments: true })).toEqual(before)
        expect((yield* ok(viewer.key, "list_task_artifacts", { taskId: task.taskId })).artifacts).toHaveLength(1)
        expect(yield* threadsOf(viewer.key, artifactId)).toEqual(before.comments)
        for (
          const [name, args] of [
            ["create_task_artifact", { taskId: task.taskId, name: "Nope" }],
            ["update_task_artifact", { artifactId, name: "Nope" }],
            ["replace_in_task_artifact", { artifactId, oldString: "review", newString: "x" }],
            ["move_task_artifact", { artifactId, taskId: target.taskId }],
            ["delete_task_artifact", { artifactId }],
            ["create_artifact_comment", { artifactId, anchorText: "me", content: "Nope" }],
            ["reply_to_artifact_comment", { commentId: thread.commentId, content: "Nope" }],
            ["set_artifact_comment_status", { commentIds: [thread.commentId], status: "resolved" }]
          ] as const
        ) {
          const error = yield* fails(viewer.key, name, args)
          expect(error.code, name).toBe("forbidden")
          expect(error.message, name).toContain("viewer")
        }
        expect(yield* getArtifact(key, artifactId, { includeComments: true })).toEqual(before)
        expect(yield* summariesOf(key, task.taskId)).toHaveLength(1)
        // A member may write.
        const member = yield* joinAs(project.id, "art-viewer", "member")
        yield* ok(member.key, "update_task_artifact", { artifactId, name: "By a member" })
        expect((yield* getArtifact(key, artifactId)).name).toBe("By a member")
      }))

    it.effect("every artifact and comment tool answers exactly its declared output schema, with no extra fields", () =>
      Effect.gen(function*() {
        const { key, scope, task } = yield* seedTask("art-output")
        const target = yield* createTask(key, scope, { name: "Target" })
        const { artifactId } = yield* createArtifact(key, task.taskId, { content: "alpha beta alpha", runId: "r" })
        const thread = yield* comment(key, artifactId, "beta")
        const calls: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
          ["create_task_artifact", { taskId: task.taskId, name: "Other" }],
          ["list_task_artifacts", { taskId: task.taskId }],
          ["get_task_artifact", { artifactId }],
          ["get_task_artifact", { artifactId, includeComments: true }],
          ["update_task_artifact", { artifactId, name: "Renamed" }],
          ["replace_in_task_artifact", { artifactId, oldString: "alpha", newString: "gamma", replaceAll: true }],
          ["create_artifact_comment", { artifactId, anchorText: "gamma", content: "c" }],
          ["reply_to_artifact_comment", { commentId: thread.commentId, content: "r" }],
          ["list_artifact_comments", { artifactId }],
          ["set_artifact_comment_status", { commentIds: [thread.commentId], status: "resolved" }],
          ["get_task", { taskId: task.taskId }],
          ["move_task_artifact", { artifactId, taskId: target.taskId }],
          ["delete_task_artifact", { artifactId }]
        ]
        for (const [name, args] of calls) {
          const output: Schema.Schema.AnyNoContext | undefined = Catalog.find((candidate) => candidate.name === name)?.output
          if (output === undefined) return yield* Effect.dieMessage(`${name} is not in the catalog`)
          const result = yield* succeeds(key, name, args)
          const decoded = Schema.decodeUnknownEither(output, { onExcessProperty: "error" })(result)
          expect(Either.isRight(decoded) ? "ok" : String(decoded.left), name).toBe("ok")
        }
      }))

    it.effect("text that splits a character (an unpaired UTF-16 surrogate) is refused in every text argument, naming the field; nothing is written", () =>
      Effect.gen(function*() {
        const { key, task } = yield* seedTask("art-surrogates")
        const { artifactId } = yield* createArtifact(key, task.taskId, { content: "alpha 🚀 beta", runId: "run" })
        const thread = yield* comment(key, artifactId, "beta")
        const before = yield* getArtifact(key, artifactId, { includeComments: true })
        const lone = "🚀".slice(0, 1)
        for (
          const [name, args, field] of [
            ["create_task_artifact", { taskId: task.taskId, name: `Plan ${lone}` }, "name"],
            ["create_task_artifact", { taskId: task.taskId, name: "Plan", content: `x${lone}` }, "content"],
            ["create_task_artifact", { taskId: task.taskId, name: "Plan", runId: lone }, "runId"],
            ["update_task_artifact", { artifactId, name: lone }, "name"],
            ["update_task_artifact", { artifactId, content: `alpha ${lone} beta` }, "content"],
            ["update_task_artifact", { artifactId, runId: lone }, "runId"],
            ["replace_in_task_artifact", { artifactId, oldString: "alpha", newString: `a${lone}` }, "newString"],
            ["replace_in_task_artifact", { artifactId, oldString: lone, newString: "x" }, "oldString"],
            ["create_artifact_comment", { artifactId, anchorText: "alpha", content: `see ${lone}` }, "content"],
            ["create_artifact_comment", { artifactId, anchorText: lone, content: "see" }, "anchorText"],
            ["reply_to_artifact_comment", { commentId: thread.commentId, content: lone }, "content"]
          ] as const
        ) {
          const error = yield* fails(key, name, args)
          expect(error.code, `${name} ${field}`).toBe("invalid_argument")
          expect(error.message, `${name} ${field}`).toContain(`${field}: must not split a character`)
        }
        expect(yield* getArtifact(key, artifactId, { includeComments: true })).toEqual(before)
        const listed = yield* ok(key, "list_task_artifacts", { taskId: task.taskId })
        expect(listed.artifacts).toHaveLength(1)
      }))

    it.effect("IDs of the wrong kind are refused by the argument check, naming the field", () =>
      Effect.gen(function*() {
        const { key, task } = yield* seedTask("art-ids")
        for (
          const [name, args, field] of [
            ["get_task_artifact", { artifactId: task.taskId }, "artifactId"],
            ["reply_to_artifact_comment", { commentId: "comment_00000000000000000000000000000000", content: "x" }, "commentId"],
            ["set_artifact_comment_status", { commentIds: ["nope"], status: "open" }, "commentIds"]
          ] as const
        ) {
          const error = yield* fails(key, name, args)
          expect(error.code, name).toBe("invalid_argument")
          expect(error.message, name).toContain(field)
        }
      }))
  })
})
