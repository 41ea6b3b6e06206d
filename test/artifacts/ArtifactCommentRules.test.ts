import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { CONTEXT_LENGTH } from "../../catalog/domain/Anchor.js"
import { MAX_COMMENT_IDS_PER_STATUS_BATCH } from "../../catalog/domain/Artifact.js"
import type { ToolError } from "../../catalog/domain/Errors.js"
import { ArtifactCommentId } from "../../catalog/domain/Ids.js"
import type { ArtifactComments, ThreadRows } from "../../src/artifacts/ArtifactComments.js"
import { ArtifactServices, memberAs, seedArtifact } from "../support/ArtifactServices.js"
import { ServiceTest } from "../support/ServiceTest.js"

/** The rules of SPEC.md's "Artifact comments", checked on the ArtifactComments and Artifacts services themselves. */

/** Each thread's ID and status, oldest first. */
const statusesOf = (comments: ArtifactComments, artifactId: string) =>
  Effect.map(comments.threadsOf(artifactId), (threads) => threads.map(({ root }) => [root.commentId, root.status]))

/** What each thread's stored offsets point at in `content`, or "lost". */
const pointedAt = (content: string, threads: ReadonlyArray<ThreadRows>) =>
  threads.map(({ root }) => root.anchorLost ? "lost" : content.slice(root.anchorStart, root.anchorEnd))

const storedContext = (commentId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ prefix: string; suffix: string }>`SELECT anchor_prefix AS prefix, anchor_suffix AS suffix
      FROM artifact_comments WHERE id = ${commentId}`.pipe(Effect.orDie, Effect.map(([row]) => row))
  )

const paragraph = (topic: string) => `The section on the ${topic} page says this: fix it before the release reaches the ${topic} users.\n`

describe("ArtifactComments rules", () => {
  layer(ServiceTest(ArtifactServices))((it) => {
    it.effect("a thread is a root comment anchored to the first match of an exact snippet, with its fields", () =>
      Effect.gen(function*() {
        const { artifactId, comments, current, principal, user } = yield* seedArtifact(
          "acr-create",
          "Ship the login page; the login form too."
        )
        const thread = yield* comments.create(principal, yield* current(), { content: "  Which login?  ", anchorText: "login" })
        expect(thread).toEqual({
          root: {
            commentId: expect.stringMatching(/^acomment_/),
            parentId: null,
            status: "open",
            anchorText: "login",
            anchorStart: 9,
            anchorEnd: 14,
            anchorLost: false,
            authorId: user.id,
            authorName: user.name,
            content: "Which login?",
            createdAt: expect.any(Date),
            isEdited: false
          },
          replies: []
        })
        expect(yield* comments.threadsOf(artifactId)).toEqual([thread])
      }))

    it.effect("the server stores the anchor's surrounding context, so it can find the snippet again", () =>
      Effect.gen(function*() {
        const before = "b".repeat(CONTEXT_LENGTH + 5)
        const after = "a".repeat(CONTEXT_LENGTH + 5)
        const { comments, current, principal } = yield* seedArtifact("acr-context", `${before}SNIPPET${after}`)
        const thread = yield* comments.create(principal, yield* current(), { content: "c", anchorText: "SNIPPET" })
        expect(yield* storedContext(thread.root.commentId)).toEqual({
          prefix: "b".repeat(CONTEXT_LENGTH),
          suffix: "a".repeat(CONTEXT_LENGTH)
        })
        const short = yield* seedArtifact("acr-context-short", "xSNIPPETy")
        const atEdges = yield* short.comments.create(short.principal, yield* short.current(), { content: "c", anchorText: "SNIPPET" })
        expect(yield* storedContext(atEdges.root.commentId)).toEqual({ prefix: "x", suffix: "y" })
      }))

    it.effect("occurrence picks the nth match of the snippet, 1-based, default 1", () =>
      Effect.gen(function*() {
        const { comments, current, principal } = yield* seedArtifact("acr-occurrence", "todo one, todo two, todo three")
        const starts = []
        for (const occurrence of [undefined, 1, 2, 3]) {
          starts.push(
            (yield* comments.create(principal, yield* current(), { content: "c", anchorText: "todo", occurrence })).root.anchorStart
          )
        }
        expect(starts).toEqual([0, 0, 10, 20])
      }))

    it.effect("an occurrence beyond the matches fails naming occurrence and saying how many there are; nothing is created", () =>
      Effect.gen(function*() {
        const { artifactId, comments, current, principal } = yield* seedArtifact("acr-beyond", "todo one, todo two")
        expect(yield* Effect.flip(comments.create(principal, yield* current(), { content: "c", anchorText: "todo", occurrence: 3 })))
          .toMatchObject({
            _tag: "InvalidArgument",
            message: expect.stringMatching(/^occurrence: 3 asked, but anchorText occurs 2 times/)
          })
        expect(yield* Effect.flip(comments.create(principal, yield* current(), { content: "c", anchorText: "one", occurrence: 2 })))
          .toMatchObject({
            message: expect.stringContaining("occurs 1 time in")
          })
        expect(yield* comments.threadsOf(artifactId)).toEqual([])
      }))

    it.effect("a snippet that is not in the content exactly (whitespace, newlines, casing) fails naming anchorText; nothing is created", () =>
      Effect.gen(function*() {
        const { artifactId, comments, current, principal } = yield* seedArtifact("acr-missing", "Ship the\nlogin  page")
        for (const anchorText of ["ship the", "the login", "login page", "Ship the\r\nlogin", "logout"]) {
          expect(yield* Effect.flip(comments.create(principal, yield* current(), { content: "c", anchorText })), anchorText).toMatchObject({
            _tag: "InvalidArgument",
            message: expect.stringMatching(/^anchorText: not found in artifact/)
          })
        }
        expect(yield* comments.threadsOf(artifactId)).toEqual([])
        yield* comments.create(principal, yield* current(), { content: "c", anchorText: "the\nlogin  page" })
        expect(yield* comments.threadsOf(artifactId)).toHaveLength(1)
      }))

    it.effect("comments anchor only to markdown artifacts: an html artifact is refused naming artifactId", () =>
      Effect.gen(function*() {
        const { artifactId, comments, current, principal } = yield* seedArtifact("acr-html", "<p>login</p>", "html")
        expect(yield* Effect.flip(comments.create(principal, yield* current(), { content: "c", anchorText: "login" }))).toMatchObject({
          _tag: "InvalidArgument",
          message: expect.stringMatching(/^artifactId: .* is html; comments anchor only to markdown artifacts/)
        })
        expect(yield* comments.threadsOf(artifactId)).toEqual([])
      }))

    it.effect("replies are flat: they join their root's thread oldest first, with no status or anchor of their own", () =>
      Effect.gen(function*() {
        const { artifactId, comments, current, principal } = yield* seedArtifact("acr-replies", "alpha beta")
        const first = yield* comments.create(principal, yield* current(), { content: "one", anchorText: "alpha" })
        const second = yield* comments.create(principal, yield* current(), { content: "two", anchorText: "beta" })
        const a = yield* comments.reply(principal, first.root.commentId, " first reply ")
        const b = yield* comments.reply(principal, first.root.commentId, "second reply")
        expect(a).toEqual({ commentId: expect.stringMatching(/^acomment_/), threadId: first.root.commentId, artifactId })
        const threads = yield* comments.threadsOf(artifactId)
        expect(threads.map(({ replies, root }) => [root.commentId, replies.map((reply) => [reply.commentId, reply.content])])).toEqual([
          [first.root.commentId, [[a.commentId, "first reply"], [b.commentId, "second reply"]]],
          [second.root.commentId, []]
        ])
        expect(threads[0]?.replies[0]).toMatchObject({ parentId: first.root.commentId, status: null, anchorText: null })
      }))

    it.effect("replying to a reply fails naming commentId and the thread's root; nothing is written", () =>
      Effect.gen(function*() {
        const { artifactId, comments, current, principal } = yield* seedArtifact("acr-reply-reply", "alpha")
        const thread = yield* comments.create(principal, yield* current(), { content: "c", anchorText: "alpha" })
        const reply = yield* comments.reply(principal, thread.root.commentId, "r")
        expect(yield* Effect.flip(comments.reply(principal, reply.commentId, "nested"))).toMatchObject({
          _tag: "InvalidArgument",
          message: expect.stringMatching(new RegExp(`^commentId: ${reply.commentId} is a reply.*${thread.root.commentId}`))
        })
        expect((yield* comments.threadsOf(artifactId)).flatMap(({ replies }) => replies.map((row) => row.content))).toEqual(["r"])
      }))

    it.effect("replying to an unknown comment is not found, naming commentId", () =>
      Effect.gen(function*() {
        const { comments, principal } = yield* seedArtifact("acr-reply-unknown", "alpha")
        const unknown = ArtifactCommentId.generate()
        expect(yield* Effect.flip(comments.reply(principal, unknown, "r"))).toMatchObject({
          _tag: "NotFound",
          message: `commentId: comment ${unknown} not found`
        })
      }))

    it.effect("threads come oldest first with their replies (as includeComments shows them); a status keeps only open or resolved ones", () =>
      Effect.gen(function*() {
        const { artifactId, comments, current, principal } = yield* seedArtifact("acr-status-filter", "alpha beta gamma")
        const ids = []
        for (const anchorText of ["alpha", "beta", "gamma"]) {
          ids.push((yield* comments.create(principal, yield* current(), { content: anchorText, anchorText })).root.commentId)
        }
        const [alpha, beta, gamma] = ids
        if (alpha === undefined || beta === undefined || gamma === undefined) return yield* Effect.dieMessage("three threads expected")
        yield* comments.reply(principal, beta, "r")
        yield* comments.setStatus(principal, [beta], "resolved")
        const idsOf = (threads: ReadonlyArray<ThreadRows>) => threads.map(({ root }) => root.commentId)
        expect(idsOf(yield* comments.threadsOf(artifactId))).toEqual([alpha, beta, gamma])
        expect(idsOf(yield* comments.threadsOf(artifactId, "open"))).toEqual([alpha, gamma])
        const resolved = yield* comments.threadsOf(artifactId, "resolved")
        expect(idsOf(resolved)).toEqual([beta])
        expect(resolved[0]?.replies.map((reply) => reply.content)).toEqual(["r"])
      }))

    it.effect("an edit before, after or elsewhere than a snippet keeps each open anchor on its snippet", () =>
      Effect.gen(function*() {
        const { artifactId, artifacts, comments, current, principal } = yield* seedArtifact(
          "acr-shift",
          "Intro.\n\nShip the login page.\n\nOutro."
        )
        for (const anchorText of ["login", "Outro"]) yield* comments.create(principal, yield* current(), { content: "c", anchorText })
        yield* artifacts.update(yield* current(), { content: "A much longer introduction.\n\nShip the login page.\n\nOutro." })
        yield* artifacts.replace(yield* current(), { oldString: "page", newString: "screen and its tests" })
        yield* artifacts.replace(yield* current(), { oldString: "Ship", newString: "Please ship" })
        const { artifact } = yield* current()
        const threads = yield* comments.threadsOf(artifactId)
        expect(pointedAt(artifact.content, threads)).toEqual(["login", "Outro"])
        expect(threads[0]?.root.anchorStart).toBe(artifact.content.indexOf("login"))
      }))

    it.effect("re-location tries the snippet with its context first: a rewrite that reorders the text follows the anchored occurrence", () =>
      Effect.gen(function*() {
        const first = paragraph("login")
        const second = paragraph("billing")
        const { artifactId, artifacts, comments, current, principal } = yield* seedArtifact("acr-context-first", first + second)
        yield* comments.create(principal, yield* current(), { content: "c", anchorText: "fix it", occurrence: 2 })
        yield* artifacts.update(yield* current(), { content: second + first })
        const [thread] = yield* comments.threadsOf(artifactId)
        // The nearest "fix it" to the old offset is now the login paragraph's; the context says billing.
        expect(thread?.root.anchorStart).toBe(second.indexOf("fix it"))
        expect(thread?.root.anchorLost).toBe(false)
      }))

    it.effect("re-location falls back to the snippet alone when its context is gone", () =>
      Effect.gen(function*() {
        const { artifactId, artifacts, comments, current, principal } = yield* seedArtifact("acr-snippet-alone", paragraph("login"))
        yield* comments.create(principal, yield* current(), { content: "c", anchorText: "release" })
        const result = yield* artifacts.update(yield* current(), { content: "Entirely new words; the release is all that is left." })
        expect(result.lostCommentIds).toEqual([])
        const { artifact } = yield* current()
        expect(pointedAt(artifact.content, yield* comments.threadsOf(artifactId))).toEqual(["release"])
      }))

    it.effect("a thread whose snippet is gone is kept, open, with anchorLost, reported by the edit in lostCommentIds, and found again if the snippet returns", () =>
      Effect.gen(function*() {
        const { artifactId, artifacts, comments, current, principal } = yield* seedArtifact("acr-lost", "keep alpha and beta")
        const alpha = yield* comments.create(principal, yield* current(), { content: "c", anchorText: "alpha" })
        yield* comments.create(principal, yield* current(), { content: "c", anchorText: "beta" })
        const replaced = yield* artifacts.replace(yield* current(), { oldString: "alpha", newString: "gamma" })
        expect(replaced.lostCommentIds).toEqual([alpha.root.commentId])
        const threads = yield* comments.threadsOf(artifactId)
        expect(threads.map(({ root }) => [root.status, root.anchorText, root.anchorLost])).toEqual([["open", "alpha", true], [
          "open",
          "beta",
          false
        ]])
        expect((yield* current()).artifact.openCommentCount).toBe(2)
        const updated = yield* artifacts.update(yield* current(), { content: "keep beta" })
        expect(updated.lostCommentIds).toEqual([alpha.root.commentId])
        yield* artifacts.update(yield* current(), { content: "beta, then alpha again" })
        const { artifact } = yield* current()
        expect(pointedAt(artifact.content, yield* comments.threadsOf(artifactId))).toEqual(["alpha", "beta"])
      }))

    it.effect("resolved threads are not re-anchored by edits; reopening re-anchors them, reporting those whose snippet is gone", () =>
      Effect.gen(function*() {
        const { artifactId, artifacts, comments, current, principal } = yield* seedArtifact("acr-reopen", "alpha beta")
        const alpha = yield* comments.create(principal, yield* current(), { content: "c", anchorText: "alpha" })
        const beta = yield* comments.create(principal, yield* current(), { content: "c", anchorText: "beta" })
        const both = [alpha.root.commentId, beta.root.commentId]
        yield* comments.setStatus(principal, both, "resolved")
        const edit = yield* artifacts.update(yield* current(), { content: "intro, then beta" })
        expect(edit.lostCommentIds).toEqual([])
        expect((yield* comments.threadsOf(artifactId)).map(({ root }) => [root.anchorStart, root.anchorLost])).toEqual([[0, false], [
          6,
          false
        ]])
        const reopened = yield* comments.setStatus(principal, both, "open")
        expect(reopened).toEqual({ commentIds: both, status: "open", lostCommentIds: [alpha.root.commentId] })
        const { artifact } = yield* current()
        expect(pointedAt(artifact.content, yield* comments.threadsOf(artifactId))).toEqual(["lost", "beta"])
      }))

    it.effect("set status resolves and reopens several root comments at once, across artifacts; a repeated ID counts once", () =>
      Effect.gen(function*() {
        const { artifactId, artifacts, comments, current, principal, task } = yield* seedArtifact("acr-set-status", "alpha beta")
        const second = yield* artifacts.create(principal, task, { name: "Second", content: "gamma" })
        const a = yield* comments.create(principal, yield* current(), { content: "c", anchorText: "alpha" })
        const b = yield* comments.create(principal, yield* current(), { content: "c", anchorText: "beta" })
        const g = yield* comments.create(principal, yield* artifacts.resolve(principal, second.artifactId), {
          content: "c",
          anchorText: "gamma"
        })
        const ids = [a.root.commentId, g.root.commentId]
        expect(yield* comments.setStatus(principal, [...ids, a.root.commentId], "resolved")).toEqual({
          commentIds: ids,
          status: "resolved",
          lostCommentIds: []
        })
        expect(yield* statusesOf(comments, artifactId)).toEqual([[a.root.commentId, "resolved"], [b.root.commentId, "open"]])
        expect(yield* statusesOf(comments, second.artifactId)).toEqual([[g.root.commentId, "resolved"]])
        yield* comments.setStatus(principal, ids, "open")
        expect(yield* statusesOf(comments, artifactId)).toEqual([[a.root.commentId, "open"], [b.root.commentId, "open"]])
        expect(yield* statusesOf(comments, second.artifactId)).toEqual([[g.root.commentId, "open"]])
      }))

    it.effect("set status is atomic: a reply, an unknown ID or another organization's comment in the batch fails it and changes nothing", () =>
      Effect.gen(function*() {
        const { artifactId, comments, current, principal } = yield* seedArtifact("acr-atomic", "alpha beta")
        const alpha = yield* comments.create(principal, yield* current(), { content: "c", anchorText: "alpha" })
        const beta = yield* comments.create(principal, yield* current(), { content: "c", anchorText: "beta" })
        const reply = yield* comments.reply(principal, beta.root.commentId, "r")
        const unknown = ArtifactCommentId.generate()
        const elsewhere = yield* seedArtifact("acr-atomic-other", "delta")
        const foreign = yield* elsewhere.comments.create(elsewhere.principal, yield* elsewhere.current(), {
          content: "c",
          anchorText: "delta"
        })
        const before = yield* statusesOf(comments, artifactId)
        const bad = [
          [reply.commentId, {
            _tag: "InvalidArgument",
            message: `commentIds: ${reply.commentId} is a reply; only a thread's root comment has a status`
          }],
          [unknown, { _tag: "NotFound", message: `commentIds: comment ${unknown} not found` }],
          [foreign.root.commentId, { _tag: "NotFound", message: `commentIds: comment ${foreign.root.commentId} not found` }]
        ] as const
        for (const [id, error] of bad) {
          expect(yield* Effect.flip(comments.setStatus(principal, [alpha.root.commentId, id, beta.root.commentId], "resolved"))).toEqual(
            expect.objectContaining(error)
          )
          expect(yield* statusesOf(comments, artifactId)).toEqual(before)
        }
        expect(yield* statusesOf(elsewhere.comments, elsewhere.artifactId)).toEqual([[foreign.root.commentId, "open"]])
      }))

    it.effect("a status batch names 1 to 100 root comments: 100 change at once; none or more than 100 are refused naming commentIds and change nothing", () =>
      Effect.gen(function*() {
        const words = Array.from({ length: MAX_COMMENT_IDS_PER_STATUS_BATCH }, (_, i) => `w${i}.`)
        const { artifactId, comments, current, principal } = yield* seedArtifact("acr-batch", words.join(" "))
        const ids = []
        for (const anchorText of words) {
          ids.push((yield* comments.create(principal, yield* current(), { content: "c", anchorText })).root.commentId)
        }
        const before = yield* statusesOf(comments, artifactId)
        for (const batch of [[], [...ids, ...ids.slice(0, 1)]]) {
          expect(yield* Effect.flip(comments.setStatus(principal, batch, "resolved")), `${batch.length} IDs`).toMatchObject({
            _tag: "InvalidArgument",
            message: expect.stringMatching(
              new RegExp(`^commentIds: ${batch.length} given; a batch names 1 to ${MAX_COMMENT_IDS_PER_STATUS_BATCH}`)
            )
          })
        }
        expect(yield* statusesOf(comments, artifactId)).toEqual(before)
        expect((yield* comments.setStatus(principal, ids, "resolved")).commentIds).toHaveLength(MAX_COMMENT_IDS_PER_STATUS_BATCH)
        expect(yield* comments.threadsOf(artifactId, "open")).toEqual([])
      }))

    it.effect("a viewer reads threads, but opening, replying to and resolving them are forbidden and change nothing", () =>
      Effect.gen(function*() {
        const { artifactId, artifacts, comments, current, principal, project } = yield* seedArtifact("acr-viewer", "alpha")
        const thread = yield* comments.create(principal, yield* current(), { content: "c", anchorText: "alpha" })
        const viewer = yield* memberAs(project.id, "acr-viewer", "viewer")
        const before = yield* comments.threadsOf(artifactId)
        const seen = yield* artifacts.resolve(viewer.principal, artifactId)
        const attempts: ReadonlyArray<readonly [string, Effect.Effect<unknown, ToolError>]> = [
          ["create", comments.create(viewer.principal, seen, { content: "mine", anchorText: "alpha" })],
          ["reply", comments.reply(viewer.principal, thread.root.commentId, "mine")],
          ["setStatus", comments.setStatus(viewer.principal, [thread.root.commentId], "resolved")]
        ]
        for (const [name, attempt] of attempts) {
          expect(yield* Effect.flip(attempt), name).toMatchObject({
            _tag: "Forbidden",
            message: expect.stringContaining("the caller is viewer")
          })
        }
        expect(yield* comments.threadsOf(artifactId)).toEqual(before)
      }))

    it.effect("a caller outside the artifact's organization cannot find its comments to reply to or resolve", () =>
      Effect.gen(function*() {
        const { artifactId, comments, current, principal } = yield* seedArtifact("acr-outsider", "alpha")
        const thread = yield* comments.create(principal, yield* current(), { content: "c", anchorText: "alpha" })
        const outsider = yield* seedArtifact("acr-outsider-other", "x")
        const notFound = { _tag: "NotFound", message: expect.stringContaining(`comment ${thread.root.commentId} not found`) }
        expect(yield* Effect.flip(comments.reply(outsider.principal, thread.root.commentId, "r"))).toMatchObject(notFound)
        expect(yield* Effect.flip(comments.setStatus(outsider.principal, [thread.root.commentId], "resolved"))).toMatchObject(notFound)
        expect(yield* statusesOf(comments, artifactId)).toEqual([[thread.root.commentId, "open"]])
      }))
  })
})
