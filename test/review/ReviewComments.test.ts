import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { ChangedFile } from "../../catalog/domain/ChangeReport.js"
import { MAX_REVIEW_BODY, MAX_REVIEW_DRAFTS, MAX_REVIEW_RANGE } from "../../catalog/domain/ReviewComment.js"
import { claimThread, connectCli, createThread, type FakeCli, getThread, listMessages, startBatch } from "../support/FakeCli.js"
import { concurrently } from "../support/TestDatabase.js"
import { answer, refuses, succeedsAs } from "../support/ToolCalls.js"
import { callTool, TestServer } from "../support/TestServer.js"
import { createKey, seedOwner } from "../support/Seed.js"

/**
 * Issue 31 §2: review comments on a thread's change report. Drafts are saved as they are written,
 * tied to the report, the file and its lines with the lines quoted; sending the review queues them
 * on the thread as one message; the agent lists and resolves them; a later report that changes the
 * quoted lines marks a comment "maybe addressed".
 */

const BASE = "a".repeat(40)
const HEAD = "b".repeat(40)

/** A patch of `file`: one context line, then `removed` replaced by `added`, then one more context line. */
const modified = (file: string, removed: ReadonlyArray<string>, added: ReadonlyArray<string>): ChangedFile => ({
  path: file,
  status: "modified",
  additions: added.length,
  deletions: removed.length,
  binary: false,
  patch: [
    `diff --git a/${file} b/${file}`,
    `--- a/${file}`,
    `+++ b/${file}`,
    `@@ -1,${removed.length + 2} +1,${added.length + 2} @@`,
    " export const unchanged = 1",
    ...removed.map((line) => `-${line}`),
    ...added.map((line) => `+${line}`),
    " export const tail = 2",
    ""
  ].join("\n")
})

const CSV = modified("src/csv.ts", ["const sep = \";\""], ["const sep = \",\"", "const quote = '\"'"])
const LOCK: ChangedFile = {
  path: "package-lock.json",
  status: "modified",
  additions: 3,
  deletions: 1,
  binary: false,
  patch: null,
  summarized: "lockfile"
}

/** A thread of the owner's, claimed by their CLI, with one change report. */
const reviewed = (slug: string, files: ReadonlyArray<ChangedFile> = [CSV, LOCK]) =>
  Effect.gen(function*() {
    const owner = yield* seedOwner(slug)
    const cli = yield* connectCli(owner.key, owner.project.id)
    const thread = yield* createThread(owner.key, cli.target, "Export as CSV")
    const claim = yield* claimThread(cli, thread.threadId)
    const { reportId } = yield* report(cli, thread.threadId, claim.epoch, files)
    return { owner, cli, threadId: thread.threadId, claim, reportId }
  })

const report = (cli: FakeCli, threadId: string, epoch: number, files: ReadonlyArray<ChangedFile>) =>
  cli.client.agent.reportChanges({
    path: { threadId },
    payload: { sessionId: cli.sessionId, epoch, baseCommit: BASE, headCommit: HEAD, branch: "csv", files, truncated: false }
  }).pipe(Effect.orDie)

const save = (key: string, args: Record<string, unknown>) => succeedsAs(key, "save_review_comment", args)
const list = (key: string, args: Record<string, unknown>) =>
  Effect.map(succeedsAs(key, "list_review_comments", args), (result) => result.comments)

const storedComments = (threadId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT id, status FROM review_comments WHERE thread_id = ${threadId}`).pipe(
    Effect.orDie
  )

describe("review comments", () => {
  layer(TestServer({ rateLimit: Option.none() }), { timeout: 120_000 })((it) => {
    it.effect("a draft on a range of lines quotes them from the report, and is listed to its author only with includeDrafts", () =>
      Effect.gen(function*() {
        const { owner, reportId, threadId } = yield* reviewed("review-draft")
        const draft = yield* save(owner.key, { threadId, path: "src/csv.ts", startLine: 2, endLine: 3, body: "Why a comma?" })
        expect(draft).toMatchObject({
          threadId,
          reportId,
          path: "src/csv.ts",
          side: "additions",
          startLine: 2,
          endLine: 3,
          quote: ["+const sep = \",\"", "+const quote = '\"'"],
          body: "Why a comma?",
          status: "draft",
          sentAt: null,
          placement: { reportId, startLine: 2, endLine: 3 },
          maybeAddressed: false
        })
        expect(yield* list(owner.key, { threadId })).toEqual([])
        expect((yield* list(owner.key, { threadId, includeDrafts: true })).map((c) => c.commentId)).toEqual([draft.commentId])
        expect((yield* list(owner.key, { threadId, status: "draft" })).map((c) => c.commentId)).toEqual([draft.commentId])
      }))

    it.effect("a range on the deletions side quotes the removed lines with the added ones between them", () =>
      Effect.gen(function*() {
        const { owner, threadId } = yield* reviewed("review-deletions")
        const draft = yield* save(owner.key, { threadId, path: "src/csv.ts", side: "deletions", startLine: 1, endLine: 3, body: "Keep ;" })
        expect(draft.quote).toEqual([
          " export const unchanged = 1",
          "-const sep = \";\"",
          "+const sep = \",\"",
          "+const quote = '\"'",
          " export const tail = 2"
        ])
      }))

    it.effect("rewriting a draft changes its body only; a discarded draft is gone", () =>
      Effect.gen(function*() {
        const { owner, threadId } = yield* reviewed("review-rewrite")
        const draft = yield* save(owner.key, { threadId, path: "src/csv.ts", startLine: 2, body: "First words" })
        const rewritten = yield* save(owner.key, { threadId, commentId: draft.commentId, body: "Second words", startLine: 3 })
        expect(rewritten).toMatchObject({ commentId: draft.commentId, body: "Second words", startLine: 2, endLine: 2 })
        expect(yield* succeedsAs(owner.key, "discard_review_comment", { commentId: draft.commentId })).toEqual({
          commentId: draft.commentId
        })
        expect(yield* list(owner.key, { threadId, includeDrafts: true })).toEqual([])
        expect(yield* refuses(owner.key, "discard_review_comment", { commentId: draft.commentId })).toEqual({
          code: "not_found",
          message: `commentId: review comment ${draft.commentId} not found`
        })
      }))

    it.effect("sending the review queues one message holding each comment's path:lines, quoted lines and body; the drafts become open", () =>
      Effect.gen(function*() {
        const { owner, threadId } = yield* reviewed("review-send")
        const first = yield* save(owner.key, { threadId, path: "src/csv.ts", startLine: 2, endLine: 3, body: "Why a comma?" })
        const second = yield* save(owner.key, { threadId, path: "src/csv.ts", side: "deletions", startLine: 2, body: "Was ; wrong?" })
        const before = (yield* listMessages(owner.key, threadId)).length
        const sent = yield* succeedsAs(owner.key, "send_review", { threadId })
        expect(sent.comments.map((c) => [c.commentId, c.status, c.messageId])).toEqual([
          [first.commentId, "open", sent.messageId],
          [second.commentId, "open", sent.messageId]
        ])
        const messages = yield* listMessages(owner.key, threadId)
        expect(messages).toHaveLength(before + 1)
        const message = messages[messages.length - 1]
        expect(message).toMatchObject({ messageId: sent.messageId, role: "user", status: "pending" })
        expect(message?.text).toBe([
          "Review of your changes: 2 comments. Address each, then resolve it with resolve_review_comment (its commentId, and a resolution saying what you did); list_review_comments lists them.",
          [
            "### 1. src/csv.ts:2-3",
            "```diff",
            "+const sep = \",\"",
            "+const quote = '\"'",
            "```",
            "Why a comma?",
            `(commentId: ${first.commentId})`
          ]
            .join("\n"),
          ["### 2. src/csv.ts:2 (old lines)", "```diff", "-const sep = \";\"", "```", "Was ; wrong?", `(commentId: ${second.commentId})`]
            .join(
              "\n"
            )
        ].join("\n\n"))
        expect((yield* list(owner.key, { threadId })).map((c) => c.status)).toEqual(["open", "open"])
        expect((yield* getThread(owner.key, threadId)).hasPendingUserMessages).toBe(true)
      }))

    it.effect("a review sent while the agent is busy is queued for its next turn", () =>
      Effect.gen(function*() {
        const { claim, cli, owner, threadId } = yield* reviewed("review-busy")
        yield* startBatch(cli, claim)
        expect((yield* getThread(owner.key, threadId)).status).toBe("running")
        yield* save(owner.key, { threadId, path: "src/csv.ts", startLine: 2, body: "Later" })
        const sent = yield* succeedsAs(owner.key, "send_review", { threadId })
        const thread = yield* getThread(owner.key, threadId)
        expect({ status: thread.status, pending: thread.hasPendingUserMessages }).toEqual({ status: "running", pending: true })
        expect((yield* listMessages(owner.key, threadId)).find((m) => m.messageId === sent.messageId)?.status).toBe("pending")
      }))

    it.effect("sending with no drafts is refused", () =>
      Effect.gen(function*() {
        const { owner, threadId } = yield* reviewed("review-empty")
        expect(yield* refuses(owner.key, "send_review", { threadId })).toEqual({
          code: "conflict",
          message: `threadId: you have no draft review comments on thread ${threadId} to send`
        })
      }))

    it.effect("a send that fails keeps every draft a draft and queues no message", () =>
      Effect.gen(function*() {
        const { owner, threadId } = yield* reviewed("review-failed-send")
        yield* save(owner.key, { threadId, path: "src/csv.ts", startLine: 2, body: "Keep me" })
        const before = (yield* listMessages(owner.key, threadId)).length
        const sql = yield* SqlClient.SqlClient
        // The message's insert fails after the drafts were read: the whole send must roll back.
        yield* sql`CREATE FUNCTION refuse_message() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$`
        yield* sql`CREATE TRIGGER refuse_message BEFORE INSERT ON thread_messages FOR EACH ROW EXECUTE FUNCTION refuse_message()`
        const answer = yield* callTool(owner.key, "send_review", { threadId })
        yield* sql`DROP TRIGGER refuse_message ON thread_messages`
        yield* sql`DROP FUNCTION refuse_message()`
        expect(answer.text).not.toContain("\"status\":\"open\"")
        expect((yield* storedComments(threadId)).map((row) => row["status"])).toEqual(["draft"])
        expect(yield* listMessages(owner.key, threadId)).toHaveLength(before)
        // Sent again once the database takes it.
        expect((yield* succeedsAs(owner.key, "send_review", { threadId })).comments).toHaveLength(1)
      }).pipe(Effect.orDie))

    it.effect(
      concurrently("two sends of the same drafts at once queue one message; the other is refused and leaves nothing"),
      () =>
        Effect.gen(function*() {
          const { owner, threadId } = yield* reviewed("review-send-race")
          yield* save(owner.key, { threadId, path: "src/csv.ts", startLine: 2, body: "Once" })
          const before = (yield* listMessages(owner.key, threadId)).length
          const results = yield* Effect.all([1, 2].map(() => answer(owner.key, "send_review", { threadId })), { concurrency: "unbounded" })
          expect(results.map((result) => result.isError === true).sort()).toEqual([false, true])
          expect(yield* listMessages(owner.key, threadId)).toHaveLength(before + 1)
          expect((yield* list(owner.key, { threadId })).map((c) => c.status)).toEqual(["open"])
        })
    )

    it.effect("a later report that changes the quoted lines marks the sent comment maybe addressed; one that keeps them places it again", () =>
      Effect.gen(function*() {
        const { claim, cli, owner, threadId } = yield* reviewed("review-addressed")
        const sep = yield* save(owner.key, { threadId, path: "src/csv.ts", startLine: 2, body: "Why a comma?" })
        const quote = yield* save(owner.key, { threadId, path: "src/csv.ts", startLine: 3, body: "Name it quoteChar" })
        yield* succeedsAs(owner.key, "send_review", { threadId })
        // The next turn rewrites line 3 and moves line 2 down by one.
        const next = modified("src/csv.ts", ["const sep = \";\""], ["// the separator", "const sep = \",\"", "const quoteChar = '\"'"])
        const { reportId } = yield* report(cli, threadId, claim.epoch, [next])
        const [sepNow, quoteNow] = yield* list(owner.key, { threadId })
        expect(sepNow).toMatchObject({ commentId: sep.commentId, maybeAddressed: false, placement: { reportId, startLine: 3, endLine: 3 } })
        expect(quoteNow).toMatchObject({ commentId: quote.commentId, maybeAddressed: true, placement: null })
        // A file the newer report no longer lists (reverted) is maybe addressed too.
        yield* report(cli, threadId, claim.epoch, [LOCK])
        expect((yield* list(owner.key, { threadId })).map((c) => c.maybeAddressed)).toEqual([true, true])
      }))

    it.effect("a sent comment is resolved with what was done, and opened again; a draft cannot be resolved, a sent one not rewritten or discarded", () =>
      Effect.gen(function*() {
        const { owner, threadId } = yield* reviewed("review-resolve")
        const draft = yield* save(owner.key, { threadId, path: "src/csv.ts", startLine: 2, body: "Why a comma?" })
        expect(yield* refuses(owner.key, "resolve_review_comment", { commentId: draft.commentId })).toEqual({
          code: "conflict",
          message: `commentId: review comment ${draft.commentId} is a draft; send the review before resolving it`
        })
        yield* succeedsAs(owner.key, "send_review", { threadId })
        const resolved = yield* succeedsAs(owner.key, "resolve_review_comment", {
          commentId: draft.commentId,
          resolution: "Kept the comma: RFC 4180"
        })
        expect(resolved).toMatchObject({ status: "resolved", resolution: "Kept the comma: RFC 4180" })
        expect(resolved.resolvedAt).not.toBeNull()
        expect((yield* list(owner.key, { threadId, status: "resolved" })).map((c) => c.commentId)).toEqual([draft.commentId])
        expect(yield* succeedsAs(owner.key, "resolve_review_comment", { commentId: draft.commentId, resolved: false })).toMatchObject({
          status: "open",
          resolvedAt: null,
          resolution: null
        })
        expect(yield* refuses(owner.key, "save_review_comment", { threadId, commentId: draft.commentId, body: "Edited" })).toEqual({
          code: "conflict",
          message: `commentId: review comment ${draft.commentId} was sent; only a draft changes`
        })
        expect(yield* refuses(owner.key, "discard_review_comment", { commentId: draft.commentId })).toEqual({
          code: "conflict",
          message: `commentId: review comment ${draft.commentId} was sent; only a draft changes`
        })
        const unknown = "review_0192aaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        expect(yield* refuses(owner.key, "resolve_review_comment", { commentId: unknown })).toEqual({
          code: "not_found",
          message: `commentId: review comment ${unknown} not found`
        })
        expect((yield* refuses(owner.key, "resolve_review_comment", { commentId: "acomment_x" })).message).toContain("commentId")
      }))

    it.effect("an unknown thread, report or path and lines out of the diff are refused naming the field, and nothing is saved", () =>
      Effect.gen(function*() {
        const { owner, reportId, threadId } = yield* reviewed("review-unknown")
        const draft = { threadId, path: "src/csv.ts", startLine: 2, body: "Hm" }
        const missingThread = "thread_0192aaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        expect(yield* refuses(owner.key, "save_review_comment", { ...draft, threadId: missingThread })).toEqual({
          code: "not_found",
          message: `threadId: thread ${missingThread} not found`
        })
        expect(yield* refuses(owner.key, "list_review_comments", { threadId: missingThread })).toEqual({
          code: "not_found",
          message: "Thread not found"
        })
        expect(yield* refuses(owner.key, "save_review_comment", { ...draft, reportId: "changes_nope" })).toEqual({
          code: "not_found",
          message: `reportId: change report changes_nope not found on thread ${threadId}`
        })
        expect(yield* refuses(owner.key, "save_review_comment", { ...draft, path: "src/other.ts" })).toEqual({
          code: "not_found",
          message: `path: src/other.ts is not in change report ${reportId}`
        })
        expect(yield* refuses(owner.key, "save_review_comment", { ...draft, path: "package-lock.json" })).toEqual({
          code: "invalid_argument",
          message: `path: change report ${reportId} holds no diff of package-lock.json (lockfile): there are no lines to comment on`
        })
        expect(yield* refuses(owner.key, "save_review_comment", { ...draft, startLine: 3, endLine: 9 })).toEqual({
          code: "invalid_argument",
          message: "startLine: lines 3-9 on the additions side are not in one hunk of src/csv.ts's diff (its hunks show lines 1-4)"
        })
        expect(yield* refuses(owner.key, "save_review_comment", { ...draft, startLine: 3, endLine: 2 })).toEqual({
          code: "invalid_argument",
          message: "endLine: must be at least startLine (3)"
        })
        expect((yield* refuses(owner.key, "save_review_comment", { ...draft, endLine: 2 + MAX_REVIEW_RANGE })).message).toBe(
          `endLine: a comment spans at most ${MAX_REVIEW_RANGE} lines`
        )
        expect((yield* refuses(owner.key, "save_review_comment", { ...draft, startLine: 0 })).message).toContain("startLine")
        expect(yield* refuses(owner.key, "save_review_comment", { threadId, body: "No lines" })).toEqual({
          code: "invalid_argument",
          message: "path: is required to start a draft (without commentId)"
        })
        expect(yield* storedComments(threadId)).toEqual([])
      }))

    it.effect("an empty or too long body is refused naming the field and the rule", () =>
      Effect.gen(function*() {
        const { owner, threadId } = yield* reviewed("review-body")
        const draft = { threadId, path: "src/csv.ts", startLine: 2 }
        const blank = yield* refuses(owner.key, "save_review_comment", { ...draft, body: "  \n" })
        expect(blank.code).toBe("invalid_argument")
        expect(blank.message).toContain("body")
        expect(blank.message).toContain("must not be empty or blank")
        const long = yield* refuses(owner.key, "save_review_comment", { ...draft, body: "x".repeat(MAX_REVIEW_BODY + 1) })
        expect(long.message).toContain("body")
        expect(long.message).toContain(`must be at most ${MAX_REVIEW_BODY} characters`)
        expect((yield* save(owner.key, { ...draft, body: "x".repeat(MAX_REVIEW_BODY) })).body).toHaveLength(MAX_REVIEW_BODY)
      }))

    it.effect(`a person holds at most ${MAX_REVIEW_DRAFTS} drafts on a thread`, () =>
      Effect.gen(function*() {
        const { owner, threadId } = yield* reviewed("review-cap")
        for (let i = 0; i < MAX_REVIEW_DRAFTS; i++) yield* save(owner.key, { threadId, path: "src/csv.ts", startLine: 2, body: `n${i}` })
        expect(yield* refuses(owner.key, "save_review_comment", { threadId, path: "src/csv.ts", startLine: 2, body: "one more" })).toEqual({
          code: "limit_exceeded",
          message:
            `threadId: you hold ${MAX_REVIEW_DRAFTS} draft review comments on thread ${threadId}, the most there can be; send or discard some first`
        })
        expect(yield* storedComments(threadId)).toHaveLength(MAX_REVIEW_DRAFTS)
      }))

    it.effect("a read-only key lists the comments and cannot write one", () =>
      Effect.gen(function*() {
        const { owner, threadId } = yield* reviewed("review-readonly")
        const draft = yield* save(owner.key, { threadId, path: "src/csv.ts", startLine: 2, body: "Sent" })
        yield* succeedsAs(owner.key, "send_review", { threadId })
        const reader = yield* createKey(owner.user.id, null, { readOnly: true })
        expect((yield* list(reader.secret, { threadId })).map((c) => c.commentId)).toEqual([draft.commentId])
        for (
          const [name, args] of [
            ["save_review_comment", { threadId, path: "src/csv.ts", startLine: 2, body: "No" }],
            ["send_review", { threadId }],
            ["resolve_review_comment", { commentId: draft.commentId }],
            ["discard_review_comment", { commentId: draft.commentId }]
          ] as const
        ) {
          const answer = yield* callTool(reader.secret, name, args)
          expect(answer.text, name).toContain(`${name} writes, and this API key is read-only`)
        }
        expect((yield* list(owner.key, { threadId })).map((c) => c.status)).toEqual(["open"])
      }))

    it.effect("a key that cannot read the thread gets not found and changes nothing", () =>
      Effect.gen(function*() {
        const { owner, threadId } = yield* reviewed("review-stranger")
        const draft = yield* save(owner.key, { threadId, path: "src/csv.ts", startLine: 2, body: "Mine" })
        const stranger = yield* seedOwner("review-stranger-other")
        expect((yield* refuses(stranger.key, "list_review_comments", { threadId })).code).toBe("not_found")
        expect((yield* refuses(stranger.key, "save_review_comment", { threadId, path: "src/csv.ts", startLine: 2, body: "x" })).code).toBe(
          "not_found"
        )
        expect((yield* refuses(stranger.key, "send_review", { threadId })).code).toBe("not_found")
        expect(yield* refuses(stranger.key, "discard_review_comment", { commentId: draft.commentId })).toEqual({
          code: "not_found",
          message: `commentId: review comment ${draft.commentId} not found`
        })
        expect((yield* storedComments(threadId)).map((row) => row["status"])).toEqual(["draft"])
      }))
  })
})
