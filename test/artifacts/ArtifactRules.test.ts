import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { MAX_ARTIFACT_CONTENT_LENGTH } from "../../catalog/domain/Artifact.js"
import type { ToolError } from "../../catalog/domain/Errors.js"
import { Projects } from "../../src/projects/Projects.js"
import { ArtifactServices, memberAs, seedArtifact } from "../support/ArtifactServices.js"
import { ServiceTest } from "../support/ServiceTest.js"
import { seedOwner } from "../support/Seed.js"

/** The rules of SPEC.md's "Artifacts", checked on the Artifacts service itself (the MCP tools are tested in test/tools). */

const commentCount = (artifactId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ n: number }>`SELECT count(*)::int AS n FROM artifact_comments WHERE artifact_id = ${artifactId}`.pipe(
        Effect.orDie,
        Effect.map(([row]) => row?.n)
      )
  )

describe("Artifacts rules", () => {
  layer(ServiceTest(ArtifactServices))((it) => {
    it.effect("an artifact has a trimmed name, empty content, contentType markdown and no runId by default; timestamps; the creator is its author", () =>
      Effect.gen(function*() {
        const { artifacts, principal, task, user } = yield* seedArtifact("ar-defaults", "")
        const { artifactId, taskId } = yield* artifacts.create(principal, task, { name: "  Plan  " })
        expect(taskId).toBe(task.task.id)
        const { artifact } = yield* artifacts.read(principal, artifactId)
        const { authorId, authorName, content, contentType, id, name, runId } = artifact
        expect({ id, name, content, contentType, runId }).toEqual({
          id: artifactId,
          name: "Plan",
          content: "",
          contentType: "markdown",
          runId: null
        })
        expect([artifact.taskId, authorId, authorName, artifact.openCommentCount]).toEqual([task.task.id, user.id, user.name, 0])
        expect(artifact.createdAt).toBeInstanceOf(Date)
        expect(artifact.updatedAt.getTime()).toBe(artifact.createdAt.getTime())
      }))

    it.effect("content, contentType html and a runId are stored as given", () =>
      Effect.gen(function*() {
        const { artifacts, principal, task } = yield* seedArtifact("ar-given", "")
        const { artifactId } = yield* artifacts.create(principal, task, {
          name: "Report",
          content: "<p>Hi</p>\n",
          contentType: "html",
          runId: "run-42"
        })
        expect((yield* artifacts.read(principal, artifactId)).artifact).toMatchObject({
          content: "<p>Hi</p>\n",
          contentType: "html",
          runId: "run-42"
        })
      }))

    it.effect("contentType is immutable: an update leaves it as created, whatever else the changes hold", () =>
      Effect.gen(function*() {
        const { artifacts, current } = yield* seedArtifact("ar-immutable", "<p>old</p>", "html")
        // Not a literal, so the compiler lets the stray field through, as a careless caller would.
        const changes = { content: "# new", contentType: "markdown" }
        yield* artifacts.update(yield* current(), changes)
        expect((yield* current()).artifact).toMatchObject({ content: "# new", contentType: "html" })
      }))

    it.effect("runId null clears it on update; an update without runId keeps it", () =>
      Effect.gen(function*() {
        const { artifacts, current, principal, task } = yield* seedArtifact("ar-runid", "")
        const { artifactId } = yield* artifacts.create(principal, task, { name: "Log", runId: "run-1" })
        const resolved = yield* artifacts.resolve(principal, artifactId)
        yield* artifacts.update(resolved, { name: "Log 2" })
        expect((yield* artifacts.read(principal, artifactId)).artifact.runId).toBe("run-1")
        yield* artifacts.update(resolved, { runId: null })
        expect((yield* artifacts.read(principal, artifactId)).artifact.runId).toBeNull()
        yield* artifacts.update(yield* current(), { runId: "run-2" })
        expect((yield* current()).artifact.runId).toBe("run-2")
      }))

    it.effect("an update changes only the fields it is given and moves updatedAt", () =>
      Effect.gen(function*() {
        const { artifacts, current } = yield* seedArtifact("ar-partial", "Body")
        const before = (yield* current()).artifact
        const renamed = yield* artifacts.update(yield* current(), { name: " Renamed " })
        const afterRename = (yield* current()).artifact
        expect(afterRename).toMatchObject({ name: "Renamed", content: "Body", runId: null, contentType: "markdown" })
        expect(new Date(renamed.updatedAt).getTime()).toBe(afterRename.updatedAt.getTime())
        expect(afterRename.updatedAt.getTime()).toBeGreaterThan(before.updatedAt.getTime())
        yield* artifacts.update(yield* current(), { content: "New body" })
        expect((yield* current()).artifact).toMatchObject({ name: "Renamed", content: "New body", runId: null })
        expect((yield* current()).artifact.createdAt).toEqual(before.createdAt)
      }))

    it.effect("content is limited in size on create, update and replace; an oversized write changes nothing", () =>
      Effect.gen(function*() {
        const { artifacts, current, principal, task } = yield* seedArtifact("ar-size", "x")
        const huge = "y".repeat(MAX_ARTIFACT_CONTENT_LENGTH + 1)
        const limited = {
          _tag: "LimitExceeded",
          message: expect.stringContaining(`content: ${MAX_ARTIFACT_CONTENT_LENGTH + 1} characters`)
        }
        expect(yield* Effect.flip(artifacts.create(principal, task, { name: "Big", content: huge }))).toMatchObject(limited)
        expect(yield* Effect.flip(artifacts.update(yield* current(), { content: huge, name: "Big" }))).toMatchObject(limited)
        const fill = "z".repeat(MAX_ARTIFACT_CONTENT_LENGTH)
        expect(yield* Effect.flip(artifacts.replace(yield* current(), { oldString: "x", newString: fill + "!" }))).toMatchObject({
          _tag: "LimitExceeded"
        })
        expect((yield* current()).artifact).toMatchObject({ name: "Doc", content: "x" })
        expect(yield* artifacts.listOf(task)).toHaveLength(1)
        yield* artifacts.replace(yield* current(), { oldString: "x", newString: fill })
        expect((yield* current()).artifact.content).toHaveLength(MAX_ARTIFACT_CONTENT_LENGTH)
      }))

    it.effect("a replace swaps the one exact match, and newString is taken literally", () =>
      Effect.gen(function*() {
        const { artifacts, current } = yield* seedArtifact("ar-replace-one", "Ship the login page.")
        const result = yield* artifacts.replace(yield* current(), { oldString: "login", newString: "$& signup $1" })
        expect(result).toMatchObject({ replacements: 1, lostCommentIds: [] })
        expect((yield* current()).artifact.content).toBe("Ship the $& signup $1 page.")
        yield* artifacts.replace(yield* current(), { oldString: " $& signup $1", newString: "" })
        expect((yield* current()).artifact.content).toBe("Ship the page.")
      }))

    it.effect("oldString must match exactly (whitespace, newlines, casing): otherwise it fails saying 0 matches were found, and nothing changes", () =>
      Effect.gen(function*() {
        const { artifacts, current } = yield* seedArtifact("ar-replace-zero", "Line one\nLine  two")
        const before = (yield* current()).artifact
        for (const oldString of ["line one", "Line one Line", "Line two", "Line one\r\nLine", ""]) {
          expect(yield* Effect.flip(artifacts.replace(yield* current(), { oldString, newString: "X" })), JSON.stringify(oldString))
            .toMatchObject({
              _tag: "InvalidArgument",
              message: expect.stringMatching(/^oldString: found 0 matches/)
            })
        }
        expect((yield* current()).artifact).toEqual(before)
        yield* artifacts.replace(yield* current(), { oldString: "Line one\nLine  two", newString: "X" })
        expect((yield* current()).artifact.content).toBe("X")
      }))

    it.effect("several matches without replaceAll fail saying how many were found, and nothing changes", () =>
      Effect.gen(function*() {
        const { artifacts, current } = yield* seedArtifact("ar-replace-many", "a-b a-b a-b")
        const before = (yield* current()).artifact
        for (const replaceAll of [undefined, false]) {
          expect(yield* Effect.flip(artifacts.replace(yield* current(), { oldString: "a-b", newString: "c", replaceAll }))).toMatchObject({
            _tag: "InvalidArgument",
            message: expect.stringMatching(/^oldString: found 3 matches.*replaceAll: true/)
          })
        }
        expect((yield* current()).artifact).toEqual(before)
      }))

    it.effect("replaceAll swaps every match and counts them; one match is fine too", () =>
      Effect.gen(function*() {
        const { artifacts, current } = yield* seedArtifact("ar-replace-all", "a-b a-b a-b")
        expect((yield* artifacts.replace(yield* current(), { oldString: "a-b", newString: "a-b-a-b", replaceAll: true })).replacements)
          .toBe(3)
        expect((yield* current()).artifact.content).toBe("a-b-a-b a-b-a-b a-b-a-b")
        expect((yield* artifacts.replace(yield* current(), { oldString: " a-b-a-b a", newString: "x", replaceAll: true })).replacements)
          .toBe(1)
        expect((yield* current()).artifact.content).toBe("a-b-a-bx-b-a-b")
      }))

    it.effect("a move takes the artifact with its comment threads to another task of its project", () =>
      Effect.gen(function*() {
        const { artifactId, artifacts, comments, current, newTask, principal, task } = yield* seedArtifact("ar-move", "alpha beta")
        const thread = yield* comments.create(principal, yield* current(), { content: "c", anchorText: "beta" })
        yield* comments.reply(principal, thread.root.commentId, "r")
        const threadsBefore = yield* comments.threadsOf(artifactId)
        const target = yield* newTask("Target")
        expect(yield* artifacts.move(yield* current(), target)).toEqual({ artifactId, taskId: target.task.id })
        expect((yield* current()).artifact.taskId).toBe(target.task.id)
        expect(yield* artifacts.listOf(task)).toEqual([])
        expect((yield* artifacts.listOf(target)).map((row) => [row.id, row.openCommentCount])).toEqual([[artifactId, 1]])
        expect(yield* comments.threadsOf(artifactId)).toEqual(threadsBefore)
      }))

    it.effect("moving an artifact to a task of another project is refused naming taskId, and moves nothing", () =>
      Effect.gen(function*() {
        const { artifactId, artifacts, current, organization, principal, task, reads, writes } = yield* seedArtifact(
          "ar-move-across",
          "Body"
        )
        const projects = yield* Projects
        const other = yield* projects.create({ organizationId: organization.id, name: "Other", ref: "OTHER" })
        const { taskId } = yield* writes.create(principal, yield* projects.access(principal, other.id), { name: "Elsewhere" })
        const elsewhere = yield* reads.resolve(principal, taskId, null)
        expect(yield* Effect.flip(artifacts.move(yield* current(), elsewhere))).toMatchObject({
          _tag: "InvalidArgument",
          message: expect.stringMatching(/^taskId: .*another project/)
        })
        expect((yield* current()).artifact.taskId).toBe(task.task.id)
        expect(yield* artifacts.listOf(elsewhere)).toEqual([])
        expect((yield* artifacts.listOf(task)).map((row) => row.id)).toEqual([artifactId])
      }))

    it.effect("delete removes the artifact and every comment on it, counting them", () =>
      Effect.gen(function*() {
        const { artifactId, artifacts, comments, current, principal } = yield* seedArtifact("ar-delete", "alpha beta")
        const first = yield* comments.create(principal, yield* current(), { content: "c", anchorText: "alpha" })
        yield* comments.create(principal, yield* current(), { content: "c", anchorText: "beta" })
        yield* comments.reply(principal, first.root.commentId, "r")
        expect(yield* artifacts.remove(yield* current())).toEqual({ artifactId, deletedCommentCount: 3 })
        expect(yield* Effect.flip(current())).toMatchObject({ _tag: "NotFound", message: expect.stringContaining(artifactId) })
        expect(yield* commentCount(artifactId)).toBe(0)
      }))

    it.effect("a viewer reads artifacts, but creating, updating, replacing, moving and deleting are forbidden and change nothing", () =>
      Effect.gen(function*() {
        const { artifactId, artifacts, current, newTask, project, task, reads } = yield* seedArtifact("ar-viewer", "Body")
        const target = yield* newTask("Target")
        const viewer = yield* memberAs(project.id, "ar-viewer", "viewer")
        const before = (yield* current()).artifact
        const seen = yield* artifacts.read(viewer.principal, artifactId)
        expect(seen.artifact).toEqual(before)
        const viewersTask = yield* reads.resolve(viewer.principal, task.task.id, null)
        const attempts: ReadonlyArray<readonly [string, Effect.Effect<unknown, ToolError>]> = [
          ["create", artifacts.create(viewer.principal, viewersTask, { name: "Mine" })],
          ["update", artifacts.update(seen, { name: "Mine" })],
          ["replace", artifacts.replace(seen, { oldString: "Body", newString: "Mine" })],
          ["move", artifacts.move(seen, target)],
          ["remove", artifacts.remove(seen)]
        ]
        for (const [name, attempt] of attempts) {
          expect(yield* Effect.flip(attempt), name).toMatchObject({
            _tag: "Forbidden",
            message: expect.stringContaining("the caller is viewer")
          })
        }
        expect((yield* current()).artifact).toEqual(before)
        expect((yield* artifacts.listOf(task)).map((row) => row.id)).toEqual([artifactId])
      }))

    it.effect("a member may write artifacts", () =>
      Effect.gen(function*() {
        const { artifacts, current, project } = yield* seedArtifact("ar-member", "Body")
        const member = yield* memberAs(project.id, "ar-member", "member")
        yield* artifacts.update(yield* artifacts.resolve(member.principal, (yield* current()).artifact.id), { content: "Edited" })
        expect((yield* current()).artifact.content).toBe("Edited")
      }))

    it.effect("a caller outside the artifact's organization does not find it (not found, not forbidden)", () =>
      Effect.gen(function*() {
        const { artifactId, artifacts } = yield* seedArtifact("ar-outsider", "Body")
        const outsider = yield* seedOwner("ar-outsider-other")
        for (const attempt of [artifacts.resolve(outsider.principal, artifactId), artifacts.read(outsider.principal, artifactId)]) {
          expect(yield* Effect.flip(attempt)).toMatchObject({ _tag: "NotFound", message: `artifactId: artifact ${artifactId} not found` })
        }
      }))
  })
})
