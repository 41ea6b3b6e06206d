import type { HttpClient } from "@effect/platform"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, FastCheck, Option, Runtime } from "effect"
import {
  type Artifact,
  comment,
  createArtifact,
  getArtifact,
  pointedAt,
  replaceIn,
  seedTask,
  threadsOf,
  updateContent
} from "../support/ArtifactTools.js"
import { TestServer } from "../support/TestServer.js"
import { call, fails, joinAs, ok } from "../support/TaskTools.js"

/** An artifact with the given markdown content on a fresh task. */
const seedArtifact = (slug: string, content: string) =>
  Effect.gen(function*() {
    const seeded = yield* seedTask(slug)
    const { artifactId } = yield* createArtifact(seeded.key, seeded.task.taskId, { content })
    return { ...seeded, artifactId }
  })

const setStatus = (key: string, commentIds: ReadonlyArray<string>, status: "open" | "resolved") =>
  ok(key, "set_artifact_comment_status", { commentIds, status })

const statusesOf = (key: string, artifactId: string) =>
  Effect.map(threadsOf(key, artifactId), (threads) => threads.map((thread) => [thread.commentId, thread.status]))

describe("artifact comment tools", () => {
  // The property test makes hundreds of calls in a few seconds; the per-key rate limit is not under test here.
  layer(TestServer({ rateLimit: Option.none() }))((it) => {
    it.effect("create_artifact_comment anchors a thread to an exact snippet and returns it with its fields", () =>
      Effect.gen(function*() {
        const { artifactId, key, user } = yield* seedArtifact("ac-create", "# Plan\n\nShip the **login** page.")
        const thread = yield* comment(key, artifactId, "the **login**", { content: "  Which login?  " })
        expect(thread).toEqual({
          commentId: expect.stringMatching(/^acomment_/),
          status: "open",
          anchorText: "the **login**",
          anchorStart: 13,
          anchorEnd: 26,
          anchorLost: false,
          authorId: user.id,
          authorName: user.name,
          content: "Which login?",
          createdAt: expect.any(String),
          isEdited: false,
          replies: []
        })
        expect(yield* threadsOf(key, artifactId)).toEqual([thread])
      }))

    it.effect("occurrence picks the nth match, 1-based, default 1", () =>
      Effect.gen(function*() {
        const { artifactId, key } = yield* seedArtifact("ac-occurrence", "foo bar foo bar foo")
        expect((yield* comment(key, artifactId, "foo")).anchorStart).toBe(0)
        expect((yield* comment(key, artifactId, "foo", { occurrence: 1 })).anchorStart).toBe(0)
        expect((yield* comment(key, artifactId, "foo", { occurrence: 2 })).anchorStart).toBe(8)
        expect((yield* comment(key, artifactId, "foo", { occurrence: 3 })).anchorStart).toBe(16)
        for (const occurrence of [0, -1, 1.5]) {
          const error = yield* fails(key, "create_artifact_comment", { artifactId, anchorText: "foo", content: "x", occurrence })
          expect(error.code).toBe("invalid_argument")
          expect(error.message).toContain("occurrence")
        }
      }))

    it.effect("an occurrence beyond the matches fails saying how many there are, and creates nothing", () =>
      Effect.gen(function*() {
        const { artifactId, key } = yield* seedArtifact("ac-beyond", "foo bar foo")
        const error = yield* fails(key, "create_artifact_comment", { artifactId, anchorText: "foo", content: "x", occurrence: 3 })
        expect(error.code).toBe("invalid_argument")
        expect(error.message).toContain("occurrence: 3 asked, but anchorText occurs 2 times")
        expect(yield* threadsOf(key, artifactId)).toEqual([])
      }))

    it.effect("anchorText must match exactly (whitespace, newlines, casing): otherwise it is not found and nothing is created", () =>
      Effect.gen(function*() {
        const { artifactId, key } = yield* seedArtifact("ac-exact", "Hello World\nnext line")
        for (const anchorText of ["hello world", "Hello  World", "World next", "Hello World\r\nnext", "missing"]) {
          const error = yield* fails(key, "create_artifact_comment", { artifactId, anchorText, content: "x" })
          expect(error.code, anchorText).toBe("invalid_argument")
          expect(error.message, anchorText).toContain("anchorText: not found")
        }
        expect((yield* fails(key, "create_artifact_comment", { artifactId, anchorText: "", content: "x" })).message).toContain("anchorText")
        expect(yield* threadsOf(key, artifactId)).toEqual([])
        expect((yield* comment(key, artifactId, "World\nnext")).anchorStart).toBe(6)
      }))

    it.effect("snippets may hold any character; one that splits a character (a lone surrogate) is refused", () =>
      Effect.gen(function*() {
        const { artifactId, key } = yield* seedArtifact("ac-unicode", "Ship it 🚀 now, café ✓")
        const thread = yield* comment(key, artifactId, "🚀 now")
        expect(thread).toMatchObject({ anchorStart: 8, anchorEnd: 14 })
        yield* replaceIn(key, artifactId, "Ship", "Launch 🛰️")
        const content = (yield* getArtifact(key, artifactId)).content
        expect(pointedAt(content, (yield* threadsOf(key, artifactId))[0]!)).toBe("🚀 now")
        for (
          const [name, args] of [
            ["create_artifact_comment", { artifactId, anchorText: "🚀".slice(0, 1), content: "x" }],
            ["replace_in_task_artifact", { artifactId, oldString: "🚀".slice(1), newString: "x" }]
          ] as const
        ) {
          const error = yield* fails(key, name, args)
          expect(error.code, name).toBe("invalid_argument")
          expect(error.message, name).toContain("unpaired UTF-16 surrogate")
        }
        expect((yield* getArtifact(key, artifactId)).content).toBe(content)
      }))

    it.effect("comments anchor only to markdown artifacts: an html artifact is refused", () =>
      Effect.gen(function*() {
        const { key, task } = yield* seedTask("ac-html")
        const { artifactId } = yield* createArtifact(key, task.taskId, { content: "<p>Hello</p>", contentType: "html" })
        const error = yield* fails(key, "create_artifact_comment", { artifactId, anchorText: "Hello", content: "x" })
        expect(error.code).toBe("invalid_argument")
        expect(error.message).toContain("html")
        expect(yield* threadsOf(key, artifactId)).toEqual([])
      }))

    it.effect("comment content must not be blank", () =>
      Effect.gen(function*() {
        const { artifactId, key } = yield* seedArtifact("ac-blank", "text")
        const thread = yield* comment(key, artifactId, "text")
        for (
          const [name, args] of [
            ["create_artifact_comment", { artifactId, anchorText: "text", content: " \n " }],
            ["reply_to_artifact_comment", { commentId: thread.commentId, content: "" }]
          ] as const
        ) {
          const error = yield* fails(key, name, args)
          expect(error.code, name).toBe("invalid_argument")
          expect(error.message, name).toContain("content")
        }
      }))

    it.effect("replies are flat: they join the root's thread in order; replying to a reply fails naming the root", () =>
      Effect.gen(function*() {
        const { artifactId, key, project, user } = yield* seedArtifact("ac-replies", "some text")
        const thread = yield* comment(key, artifactId, "some")
        const first = yield* ok(key, "reply_to_artifact_comment", { commentId: thread.commentId, content: "First" })
        expect(first).toMatchObject({ threadId: thread.commentId, artifactId })
        const member = yield* joinAs(project.id, "ac-replies", "member")
        yield* ok(member.key, "reply_to_artifact_comment", { commentId: thread.commentId, content: "Second" })
        const error = yield* fails(key, "reply_to_artifact_comment", { commentId: first.commentId, content: "Nested" })
        expect(error.code).toBe("invalid_argument")
        expect(error.message).toContain(`${first.commentId} is a reply`)
        expect(error.message).toContain(thread.commentId)
        const [listed] = yield* threadsOf(key, artifactId)
        expect(listed?.replies.map((reply) => [reply.content, reply.authorName])).toEqual([["First", user.name], [
          "Second",
          member.user.name
        ]])
        expect(listed?.replies[0]).toEqual({
          commentId: first.commentId,
          authorId: user.id,
          authorName: user.name,
          content: "First",
          createdAt: expect.any(String),
          isEdited: false
        })
        expect(
          (yield* fails(key, "reply_to_artifact_comment", { commentId: "acomment_00000000000000000000000000000000", content: "x" })).code
        ).toBe("not_found")
      }))

    it.effect("list_artifact_comments lists threads oldest first; status keeps open or resolved ones", () =>
      Effect.gen(function*() {
        const { artifactId, key } = yield* seedArtifact("ac-list", "one two three")
        const ids = [] as Array<string>
        for (const word of ["three", "one", "two"]) ids.push((yield* comment(key, artifactId, word)).commentId)
        yield* setStatus(key, [ids[1]!], "resolved")
        expect((yield* threadsOf(key, artifactId)).map((thread) => thread.commentId)).toEqual(ids)
        expect((yield* threadsOf(key, artifactId, { status: "open" })).map((thread) => thread.commentId)).toEqual([ids[0], ids[2]])
        expect((yield* threadsOf(key, artifactId, { status: "resolved" })).map((thread) => thread.commentId)).toEqual([ids[1]])
        expect((yield* fails(key, "list_artifact_comments", { artifactId, status: "closed" })).message).toContain("status")
      }))

    it.effect("set_artifact_comment_status resolves and reopens several threads at once", () =>
      Effect.gen(function*() {
        const { artifactId, key, task } = yield* seedArtifact("ac-status", "alpha beta gamma")
        const other = yield* createArtifact(key, task.taskId, { content: "delta" })
        const a = yield* comment(key, artifactId, "alpha")
        const b = yield* comment(key, artifactId, "beta")
        const c = yield* comment(key, artifactId, "gamma")
        const d = yield* comment(key, other.artifactId, "delta")
        expect(yield* setStatus(key, [a.commentId, d.commentId, a.commentId], "resolved"))
          .toEqual({ commentIds: [a.commentId, d.commentId], status: "resolved", lostCommentIds: [] })
        expect(yield* statusesOf(key, artifactId)).toEqual([[a.commentId, "resolved"], [b.commentId, "open"], [c.commentId, "open"]])
        expect(yield* statusesOf(key, other.artifactId)).toEqual([[d.commentId, "resolved"]])
        // Setting the status a thread already has is harmless.
        yield* setStatus(key, [a.commentId, b.commentId], "resolved")
        yield* setStatus(key, [a.commentId, d.commentId], "open")
        expect(yield* statusesOf(key, artifactId)).toEqual([[a.commentId, "open"], [b.commentId, "resolved"], [c.commentId, "open"]])
        expect(yield* statusesOf(key, other.artifactId)).toEqual([[d.commentId, "open"]])
      }))

    it.effect("set_artifact_comment_status is atomic: one reply, unknown ID or unreachable comment in the batch changes nothing", () =>
      Effect.gen(function*() {
        const { artifactId, key } = yield* seedArtifact("ac-atomic", "alpha beta")
        const stranger = yield* seedArtifact("ac-atomic-other", "foreign")
        const foreign = yield* comment(stranger.key, stranger.artifactId, "foreign")
        const a = yield* comment(key, artifactId, "alpha")
        const b = yield* comment(key, artifactId, "beta")
        const reply = yield* ok(key, "reply_to_artifact_comment", { commentId: a.commentId, content: "r" })
        const before = yield* threadsOf(key, artifactId)
        for (
          const [bad, code] of [
            [reply.commentId, "invalid_argument"],
            ["acomment_00000000000000000000000000000000", "not_found"],
            [foreign.commentId, "not_found"]
          ] as const
        ) {
          const error = yield* fails(key, "set_artifact_comment_status", {
            commentIds: [a.commentId, bad, b.commentId],
            status: "resolved"
          })
          expect(error.code, bad).toBe(code)
          expect(error.message, bad).toContain(bad)
          expect(yield* threadsOf(key, artifactId)).toEqual(before)
        }
        expect(yield* threadsOf(stranger.key, stranger.artifactId)).toEqual([foreign])
      }))

    it.effect("set_artifact_comment_status takes 1 to 100 comment IDs", () =>
      Effect.gen(function*() {
        const { artifactId, key } = yield* seedArtifact("ac-batch-limit", "alpha")
        const a = yield* comment(key, artifactId, "alpha")
        for (const commentIds of [[], Array(101).fill(a.commentId)]) {
          const error = yield* fails(key, "set_artifact_comment_status", { commentIds, status: "resolved" })
          expect(error.code).toBe("invalid_argument")
          expect(error.message).toContain("commentIds")
        }
        expect(yield* statusesOf(key, artifactId)).toEqual([[a.commentId, "open"]])
        yield* setStatus(key, Array(100).fill(a.commentId), "resolved")
        expect(yield* statusesOf(key, artifactId)).toEqual([[a.commentId, "resolved"]])
      }))

    it.effect("edits elsewhere in the document leave each open anchor on its snippet", () =>
      Effect.gen(function*() {
        const { artifactId, key } = yield* seedArtifact("ac-follow", "Intro.\n\nThe API must be fast.\n\nOutro.")
        const thread = yield* comment(key, artifactId, "must be fast")
        yield* replaceIn(key, artifactId, "Intro.", "A much longer introduction paragraph.")
        yield* updateContent(key, artifactId, "# Title\n\n" + (yield* getArtifact(key, artifactId)).content + "\n\nAppendix.")
        yield* replaceIn(key, artifactId, "Outro.", "")
        const artifact = yield* getArtifact(key, artifactId, { includeComments: true })
        const [moved] = artifact.comments ?? []
        expect(moved?.anchorStart).toBe(artifact.content.indexOf("must be fast"))
        expect(pointedAt(artifact.content, moved!)).toBe(thread.anchorText)
      }))

    it.effect("when the snippet appears several times, its surrounding context decides where the thread goes", () =>
      Effect.gen(function*() {
        // More than CONTEXT_LENGTH (32) characters of each paragraph on both sides of its TODO.
        const first = "In the parser chapter we wrote this: TODO check the parser grammar rules again."
        const second = "In the network chapter we wrote this: TODO check the network retry logic again."
        const { artifactId, key } = yield* seedArtifact("ac-context", `${first}\n\n${second}`)
        const thread = yield* comment(key, artifactId, "TODO", { occurrence: 2 })
        // The paragraphs swap: the second one's TODO is now the first match, far from its old offset.
        yield* updateContent(key, artifactId, `${second}\n\n${first}`)
        const [moved] = yield* threadsOf(key, artifactId)
        expect(moved?.anchorStart).toBe(second.indexOf("TODO"))
        expect(moved?.anchorLost).toBe(false)
        expect(thread.anchorStart).toBe(first.length + 2 + second.indexOf("TODO"))
      }))

    it.effect("a thread whose snippet is gone is kept with anchorLost: true, reported by the edit, and re-anchored if the snippet returns", () =>
      Effect.gen(function*() {
        const { artifactId, key, task } = yield* seedArtifact("ac-lost", "Keep this. Drop that.")
        const kept = yield* comment(key, artifactId, "Keep this.")
        const dropped = yield* comment(key, artifactId, "Drop that.")
        const result = yield* replaceIn(key, artifactId, " Drop that.", "")
        expect(result.lostCommentIds).toEqual([dropped.commentId])
        const threads = yield* threadsOf(key, artifactId)
        expect(threads.map((thread) => [thread.commentId, thread.anchorLost, thread.anchorStart, thread.status])).toEqual([
          [kept.commentId, false, 0, "open"],
          [dropped.commentId, true, null, "open"]
        ])
        expect(threads[1]).toMatchObject({ anchorText: "Drop that.", anchorEnd: null, content: dropped.content })
        // Lost threads still count as open on the task.
        const { artifacts } = yield* ok(key, "get_task", { taskId: task.taskId })
        expect(artifacts[0]?.openCommentCount).toBe(2)
        expect((yield* updateContent(key, artifactId, "Intro. Keep this. Drop that.")).lostCommentIds).toEqual([])
        const back = yield* threadsOf(key, artifactId)
        expect(back.map((thread) => [thread.anchorLost, thread.anchorStart])).toEqual([[false, 7], [false, 18]])
      }))

    it.effect("resolved threads are not re-anchored by edits; reopening re-anchors them to the current content", () =>
      Effect.gen(function*() {
        const { artifactId, key } = yield* seedArtifact("ac-resolved", "alpha beta")
        const resolved = yield* comment(key, artifactId, "beta")
        const open = yield* comment(key, artifactId, "alpha")
        yield* setStatus(key, [resolved.commentId], "resolved")
        yield* replaceIn(key, artifactId, "alpha", "a much longer alpha")
        const threads = yield* threadsOf(key, artifactId)
        expect(threads.find((thread) => thread.commentId === resolved.commentId)?.anchorStart).toBe(6)
        expect(threads.find((thread) => thread.commentId === open.commentId)?.anchorStart).toBe(14)
        yield* setStatus(key, [resolved.commentId], "open")
        const content = (yield* getArtifact(key, artifactId)).content
        const reopened = (yield* threadsOf(key, artifactId)).find((thread) => thread.commentId === resolved.commentId)
        expect(reopened?.anchorStart).toBe(content.indexOf("beta"))
        expect(pointedAt(content, reopened!)).toBe("beta")
      }))

    it.effect("reopening a thread whose snippet is gone keeps it with anchorLost: true and reports it in lostCommentIds", () =>
      Effect.gen(function*() {
        const { artifactId, key } = yield* seedArtifact("ac-reopen-lost", "alpha beta gamma")
        const gone = yield* comment(key, artifactId, "beta")
        const kept = yield* comment(key, artifactId, "gamma")
        expect((yield* setStatus(key, [gone.commentId, kept.commentId], "resolved")).lostCommentIds).toEqual([])
        yield* updateContent(key, artifactId, "alpha gamma")
        const reopened = yield* setStatus(key, [gone.commentId, kept.commentId], "open")
        expect(reopened.lostCommentIds).toEqual([gone.commentId])
        const threads = yield* threadsOf(key, artifactId)
        expect(threads.map((thread) => [thread.commentId, thread.status, thread.anchorLost])).toEqual([
          [gone.commentId, "open", true],
          [kept.commentId, "open", false]
        ])
      }))

    it.effect("property: random edits through update_task_artifact and replace_in_task_artifact keep every surviving anchor on text equal to its anchorText", () =>
      Effect.gen(function*() {
        const { key, task } = yield* seedTask("ac-property")
        const runtime = yield* Effect.runtime<HttpClient.HttpClient>()
        const text = FastCheck.stringMatching(/^[ab \n]{0,6}$/)
        const edit = FastCheck.oneof(
          FastCheck.record({
            kind: FastCheck.constant("update" as const),
            at: FastCheck.nat(),
            remove: FastCheck.nat({ max: 8 }),
            insert: text
          }),
          FastCheck.record({
            kind: FastCheck.constant("replace" as const),
            at: FastCheck.nat(),
            length: FastCheck.integer({ min: 1, max: 4 }),
            insert: text,
            replaceAll: FastCheck.boolean()
          })
        )
        const scenario = FastCheck.record({
          content: FastCheck.stringMatching(/^[ab \n]{4,40}$/),
          anchors: FastCheck.array(
            FastCheck.record({
              at: FastCheck.nat(),
              length: FastCheck.integer({ min: 1, max: 5 }),
              occurrence: FastCheck.integer({ min: 1, max: 2 })
            }),
            { minLength: 1, maxLength: 4 }
          ),
          edits: FastCheck.array(edit, { minLength: 1, maxLength: 6 })
        })

        type Scenario = typeof scenario extends FastCheck.Arbitrary<infer T> ? T : never

        const check = (artifact: Artifact, created: number) => {
          expect(artifact.comments).toHaveLength(created)
          for (const thread of artifact.comments ?? []) {
            if (thread.anchorLost) expect(thread.anchorStart).toBeNull()
            else expect(pointedAt(artifact.content, thread)).toBe(thread.anchorText)
          }
        }

        const run = (input: Scenario) =>
          Effect.gen(function*() {
            const { artifactId } = yield* createArtifact(key, task.taskId, { content: input.content })
            let created = 0
            for (const anchor of input.anchors) {
              const start = anchor.at % input.content.length
              const anchorText = input.content.slice(start, start + anchor.length)
              const result = yield* call(key, "create_artifact_comment", {
                artifactId,
                anchorText,
                content: "c",
                occurrence: anchor.occurrence
              })
              if (result.isError !== true) created++
            }
            let content = input.content
            for (const change of input.edits) {
              const at = content.length === 0 ? 0 : change.at % content.length
              if (change.kind === "update") {
                content = content.slice(0, at) + change.insert + content.slice(at + change.remove)
                yield* updateContent(key, artifactId, content)
              } else {
                const oldString = content.slice(at, at + change.length)
                if (oldString.length === 0) continue
                const result = yield* call(key, "replace_in_task_artifact", {
                  artifactId,
                  oldString,
                  newString: change.insert,
                  replaceAll: change.replaceAll
                })
                // Refused (several matches without replaceAll) means unchanged.
                if (result.isError !== true) {
                  content = change.replaceAll
                    ? content.split(oldString).join(change.insert)
                    : content.replace(oldString, () => change.insert)
                }
              }
              const artifact = yield* getArtifact(key, artifactId, { includeComments: true, commentsStatus: "open" })
              expect(artifact.content).toBe(content)
              check(artifact, created)
            }
          })

        yield* Effect.promise(() =>
          FastCheck.assert(FastCheck.asyncProperty(scenario, (input) => Runtime.runPromise(runtime)(run(input))), {
            numRuns: 25
          })
        )
      }))
  })
})
