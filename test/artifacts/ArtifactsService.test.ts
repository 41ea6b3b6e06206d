import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Either, Exit } from "effect"
import { ArtifactServices, seedArtifact } from "../support/ArtifactServices.js"
import { concurrently } from "../support/TestDatabase.js"
import { ServiceTest } from "../support/ServiceTest.js"

/**
 * Runs `effect` with a row trigger on `table` in place (`event`, `condition`, plpgsql `body`), so a
 * test can make a write fail, or another transaction land, at an exact point of a service call.
 */
const withTrigger = (event: string, table: string, condition: string, body: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const run = (statement: string) => Effect.orDie(sql.unsafe(statement))
    yield* run(`CREATE FUNCTION test_trigger() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${body} END $$`)
    yield* run(`CREATE TRIGGER test_trigger ${event} ON ${table} FOR EACH ROW WHEN (${condition}) EXECUTE FUNCTION test_trigger()`)
    return yield* effect.pipe(
      Effect.ensuring(Effect.zip(run(`DROP TRIGGER test_trigger ON ${table}`), run("DROP FUNCTION test_trigger()")))
    )
  })

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1)

describe("Artifacts", () => {
  layer(ServiceTest(ArtifactServices))((it) => {
    it.effect("resolving an artifact (for comment calls, moves, deletes and edits) leaves its content unread; read loads it", () =>
      Effect.gen(function*() {
        const { artifactId, artifacts, principal } = yield* seedArtifact("art-resolve", "Body")
        const resolved = yield* artifacts.resolve(principal, artifactId)
        expect(resolved.artifact.id).toBe(artifactId)
        expect(Object.keys(resolved.artifact)).not.toContain("content")
        expect((yield* artifacts.read(principal, artifactId)).artifact).toEqual({ ...resolved.artifact, content: "Body" })
      }))

    it.effect(
      concurrently("replacements in one artifact all land: content writers take turns on the artifact's row"),
      () =>
        Effect.gen(function*() {
          const { artifacts, current } = yield* seedArtifact("art-concurrent", range(10).map((n) => `[t${n}]`).join(" "))
          const resolved = yield* current()
          yield* Effect.all(range(10).map((n) => artifacts.replace(resolved, { oldString: `[t${n}]`, newString: `<done ${n}>` })), {
            concurrency: "unbounded"
          })
          expect((yield* current()).artifact.content).toBe(range(10).map((n) => `<done ${n}>`).join(" "))
        })
    )

    it.effect(
      concurrently("comment threads created while the content is being edited still point at their snippets"),
      () =>
        Effect.gen(function*() {
          const { artifacts, comments, current, principal } = yield* seedArtifact("art-race", range(8).map((n) => `word${n}`).join(" "))
          const resolved = yield* current()
          yield* Effect.all([
            ...range(8).map((n) => comments.create(principal, resolved, { content: "c", anchorText: `word${n}` })),
            ...range(8).map((n) => artifacts.replace(resolved, { oldString: `word${n}`, newString: `longer-word${n}` }))
          ], { concurrency: "unbounded" })
          const { artifact } = yield* current()
          const threads = yield* comments.threadsOf(artifact.id)
          expect(threads).toHaveLength(8)
          for (const { root } of threads) {
            expect(root.anchorLost).toBe(false)
            expect(artifact.content.slice(root.anchorStart, root.anchorEnd)).toBe(root.anchorText)
          }
        })
    )

    it.effect("an update that fails after writing the content writes none of its fields and moves no anchor", () =>
      Effect.gen(function*() {
        const { artifacts, comments, current, principal } = yield* seedArtifact("art-atomic", "Body alpha")
        yield* comments.create(principal, yield* current(), { content: "c", anchorText: "alpha" })
        const resolved = yield* current()
        const threadsBefore = yield* comments.threadsOf(resolved.artifact.id)
        // The content and the open anchors are written first; the name's write then fails.
        const result = yield* Effect.exit(artifacts.update(resolved, { content: "New body, alpha", name: "Renamed", runId: "run" })).pipe(
          withTrigger("BEFORE UPDATE", "task_artifacts", "NEW.name = 'Renamed'", "RAISE EXCEPTION 'refused';")
        )
        expect(Exit.isFailure(result)).toBe(true)
        expect((yield* current()).artifact).toEqual(resolved.artifact)
        expect(yield* comments.threadsOf(resolved.artifact.id)).toEqual(threadsBefore)
      }))

    it.effect("a move racing the deletion of its target task or of the artifact itself is not found and moves nothing", () =>
      Effect.gen(function*() {
        const { artifacts, current, newTask, task, tree } = yield* seedArtifact("art-move-race", "Body")
        const resolved = yield* current()
        const doomed = yield* newTask("Deleted meanwhile")
        yield* tree.remove(doomed, "delete_all")
        const toDeletedTask = yield* Effect.either(artifacts.move(resolved, doomed))
        expect(Either.isLeft(toDeletedTask) && toDeletedTask.left._tag).toBe("NotFound")
        expect((yield* current()).artifact.taskId).toBe(task.task.id)
        const live = yield* newTask("Live")
        yield* artifacts.remove(resolved)
        const deletedArtifact = yield* Effect.either(artifacts.move(resolved, live))
        expect(Either.isLeft(deletedArtifact) && deletedArtifact.left._tag).toBe("NotFound")
      }))

    it.effect("a reply racing the deletion of its artifact is not found, not an internal error", () =>
      Effect.gen(function*() {
        const { comments, current, principal } = yield* seedArtifact("art-reply-race", "alpha")
        const thread = yield* comments.create(principal, yield* current(), { content: "c", anchorText: "alpha" })
        // The artifact goes away after the reply's checks passed, just before its row is written.
        const result = yield* Effect.either(comments.reply(principal, thread.root.commentId, "raced")).pipe(
          withTrigger(
            "BEFORE INSERT",
            "artifact_comments",
            "NEW.content = 'raced'",
            "DELETE FROM task_artifacts WHERE id = NEW.artifact_id; RETURN NEW;"
          )
        )
        expect(Either.isLeft(result) && result.left._tag).toBe("NotFound")
      }))

    it.effect("summariesOf gives each of several tasks its artifacts in one call, oldest first, with open thread counts", () =>
      Effect.gen(function*() {
        const { access, artifactId, artifacts, comments, current, principal, task, reads, writes } = yield* seedArtifact(
          "art-summaries",
          "alpha beta"
        )
        const other = yield* reads.resolve(principal, (yield* writes.create(principal, access, { name: "Other" })).taskId, null)
        const second = yield* artifacts.create(principal, task, { name: "Second" })
        yield* comments.create(principal, yield* current(), { content: "c", anchorText: "alpha" })
        const byTask = yield* artifacts.summariesOf([task.task.id, other.task.id])
        expect(byTask.get(task.task.id)?.map((row) => [row.id, row.openCommentCount])).toEqual([[artifactId, 1], [second.artifactId, 0]])
        expect(byTask.get(other.task.id)).toBeUndefined()
        expect((yield* artifacts.summariesOf([])).size).toBe(0)
      }))

    it.effect("purging a deleted task removes its artifacts and their comments for good", () =>
      Effect.gen(function*() {
        const { artifactId, comments, current, principal, task, tree } = yield* seedArtifact("art-purge", "alpha")
        const thread = yield* comments.create(principal, yield* current(), { content: "c", anchorText: "alpha" })
        yield* comments.reply(principal, thread.root.commentId, "r")
        yield* tree.remove(task, "delete_all")
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE tasks SET deleted_at = now() - interval '31 days' WHERE id = ${task.task.id}`.pipe(Effect.orDie)
        expect(yield* tree.purgeDeleted()).toBe(1)
        const [left] = yield* sql<{ artifacts: number; comments: number }>`SELECT
          (SELECT count(*)::int FROM task_artifacts WHERE task_id = ${task.task.id}) AS artifacts,
          (SELECT count(*)::int FROM artifact_comments WHERE artifact_id = ${artifactId}) AS comments`.pipe(Effect.orDie)
        expect(left).toEqual({ artifacts: 0, comments: 0 })
      }))
  })
})
