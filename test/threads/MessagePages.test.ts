/**
 * `GET /api/threads/:threadId/messages` and `…/messages/:messageId`: the client route that reads a
 * whole conversation in pages (the web app's), beside the MCP tool's window of 20.
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import { MAX_MESSAGE_PAGE } from "../../catalog/bridge/MessagePage.js"
import { TestServer } from "../support/TestServer.js"
import {
  chunks,
  type Cli,
  createWorkflowRun,
  missingThreadId,
  ownerWithCli,
  runToCompletion,
  sendMessage,
  share,
  softDelete,
  spawn,
  teammate,
  threadOn
} from "../support/ThreadFixtures.js"

const noRateLimit = { rateLimit: Option.none() }

type PageParams = { readonly order?: "newest" | "oldest"; readonly cursor?: string; readonly limit?: number }

const page = (cli: Cli, threadId: string, urlParams: PageParams = {}) => cli.client.threads.messages({ path: { threadId }, urlParams })

const texts = (messages: ReadonlyArray<{ readonly text: string }>) => messages.map((m) => m.text)

/** Every page in `order`, following nextCursor: the texts of each page. */
const allPages = (cli: Cli, threadId: string, order: "newest" | "oldest", limit: number) =>
  Effect.gen(function*() {
    const pages: Array<ReadonlyArray<string>> = []
    let cursor: string | undefined
    for (;;) {
      const next = yield* page(cli, threadId, { order, limit, ...(cursor === undefined ? {} : { cursor }) }).pipe(Effect.orDie)
      pages.push(texts(next.messages))
      if (next.nextCursor === null) return pages
      cursor = next.nextCursor
    }
  })

const ErrorBody = Schema.Struct({ _tag: Schema.String, message: Schema.String })

/** A raw GET with the key: the status and the body's `_tag` and `message`. */
const rawGet = (key: string, url: string) =>
  Effect.gen(function*() {
    const http = yield* HttpClient.HttpClient
    const response = yield* http.execute(HttpClientRequest.get(url).pipe(HttpClientRequest.bearerToken(key))).pipe(Effect.orDie)
    const body = yield* response.json.pipe(Effect.flatMap(Schema.decodeUnknown(ErrorBody)), Effect.orDie)
    return { status: response.status, ...body }
  })

/** A thread of `count` user messages m0…m{count-1}, none answered (each sent after the last). */
const threadOfMessages = (owner: { readonly key: string; readonly cli: Cli }, count: number) =>
  Effect.gen(function*() {
    const thread = yield* threadOn(owner.key, owner.cli, { content: "m0" })
    yield* Effect.forEach(Array.from({ length: count - 1 }, (_, i) => i + 1), (i) =>
      sendMessage(owner.key, { threadId: thread.threadId, content: `m${i}` }), { concurrency: 1, discard: true })
    return thread
  })

const names = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `m${from + i}`)

describe("thread message pages (client route)", () => {
  layer(TestServer(noRateLimit))((it) => {
    it.effect("messages: by default the newest page, oldest first within it, and a cursor to the older ones", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("pages-default")
        const thread = yield* threadOfMessages(owner, 55)
        const first = yield* page(owner.cli, thread.threadId)
        expect(texts(first.messages)).toEqual(names(5, 55))
        expect(first.nextCursor).toBe(first.messages[0]?.messageId)
        const older = yield* page(owner.cli, thread.threadId, { cursor: first.nextCursor ?? "" })
        expect(texts(older.messages)).toEqual(names(0, 5))
        expect(older.nextCursor).toBeNull()
      }))

    it.effect("messages: paging across page boundaries returns every message exactly once, newest or oldest first", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("pages-boundary")
        const thread = yield* threadOfMessages(owner, 23)
        const newest = yield* allPages(owner.cli, thread.threadId, "newest", 10)
        expect(newest).toEqual([names(13, 23), names(3, 13), names(0, 3)])
        const oldest = yield* allPages(owner.cli, thread.threadId, "oldest", 10)
        expect(oldest).toEqual([names(0, 10), names(10, 20), names(20, 23)])
        // A page exactly as long as what is left has no next page.
        expect((yield* page(owner.cli, thread.threadId, { order: "oldest", limit: 23 })).nextCursor).toBeNull()
        expect((yield* page(owner.cli, thread.threadId, { order: "oldest", limit: 22 })).nextCursor).not.toBeNull()
      }))

    it.effect("messages: a cursor is a message ID and the page starts past it, so messages written meanwhile do not shift pages", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("pages-cursor")
        const thread = yield* threadOfMessages(owner, 6)
        const first = yield* page(owner.cli, thread.threadId, { limit: 3 })
        expect(texts(first.messages)).toEqual(["m3", "m4", "m5"])
        yield* sendMessage(owner.key, { threadId: thread.threadId, content: "m6" })
        const older = yield* page(owner.cli, thread.threadId, { limit: 3, cursor: first.nextCursor ?? "" })
        expect(texts(older.messages)).toEqual(["m0", "m1", "m2"])
        // Reading forward past the newest one known gives only what came since.
        const since = yield* page(owner.cli, thread.threadId, { order: "oldest", cursor: first.messages[2]?.messageId ?? "" })
        expect(texts(since.messages)).toEqual(["m6"])
        expect(since.nextCursor).toBeNull()
      }))

    it.effect("messages: a turn's user message comes before its answer, each with its own status", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("pages-order")
        const thread = yield* threadOn(owner.key, owner.cli, { content: "Question 1" })
        yield* runToCompletion(owner.cli, thread.threadId, [chunks.text("Answer 1")])
        yield* sendMessage(owner.key, { threadId: thread.threadId, content: "Question 2" })
        yield* runToCompletion(owner.cli, thread.threadId, [chunks.text("Answer 2")])
        const all = (yield* page(owner.cli, thread.threadId)).messages
        expect(all.map((m) => [m.role, m.status, m.text])).toEqual([
          ["user", "completed", "Question 1"],
          ["assistant", "completed", "Answer 1"],
          ["user", "completed", "Question 2"],
          ["assistant", "completed", "Answer 2"]
        ])
      }))

    it.effect("messages: text is capped with truncated: true, and the message route gives the whole text", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("pages-full-text")
        const prompt = Array.from({ length: 400 }, (_, i) => `Line ${i + 1}: the quick brown fox jumps over the lazy dog`).join("\n")
        const thread = yield* threadOn(owner.key, owner.cli, { content: prompt })
        const answer = Array.from({ length: 3 }, (_, i) => `${"a".repeat(2500)} part ${i + 1}`)
        yield* runToCompletion(owner.cli, thread.threadId, answer.map(chunks.text))
        const [question, reply] = (yield* page(owner.cli, thread.threadId)).messages
        expect(question?.truncated).toBe(true)
        expect(question?.text.length).toBeLessThanOrEqual(4000)
        expect(reply?.truncated).toBe(true)
        const wholeQuestion = yield* owner.cli.client.threads.message({
          path: { threadId: thread.threadId, messageId: question?.messageId ?? "" }
        })
        expect(wholeQuestion.text).toBe(prompt)
        expect(wholeQuestion.truncated).toBeUndefined()
        const wholeReply = yield* owner.cli.client.threads.message({
          path: { threadId: thread.threadId, messageId: reply?.messageId ?? "" }
        })
        expect(wholeReply.text).toBe(answer.join("\n\n"))
        expect(wholeReply).toMatchObject({ role: "assistant", status: "completed" })
      }))

    it.effect("messages: only a readable thread's messages; someone else's, a deleted or a missing thread is 404, a shared one readable", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("pages-readable")
        const mate = yield* teammate(owner, "pagemate")
        const theirs = yield* threadOn(mate.key, mate.cli, { content: "private notes" })
        const deleted = yield* threadOn(owner.key, owner.cli)
        yield* softDelete(deleted.threadId)
        for (const threadId of [theirs.threadId, deleted.threadId, missingThreadId]) {
          const refused = yield* Effect.flip(page(owner.cli, threadId))
          expect(refused._tag, threadId).toBe("NotFound")
        }
        const mine = yield* threadOn(mate.key, mate.cli, { content: "mine" })
        const messageId = (yield* page(mate.cli, mine.threadId)).messages[0]?.messageId ?? ""
        expect((yield* Effect.flip(owner.cli.client.threads.message({ path: { threadId: mine.threadId, messageId } })))._tag).toBe(
          "NotFound"
        )
        // Another thread's message ID names no message of this thread.
        const own = yield* threadOn(owner.key, owner.cli)
        expect((yield* Effect.flip(owner.cli.client.threads.message({ path: { threadId: own.threadId, messageId } })))._tag).toBe(
          "NotFound"
        )
        yield* share(mate.cli, theirs.threadId)
        expect(texts((yield* page(owner.cli, theirs.threadId)).messages)).toEqual(["private notes"])
      }))

    it.effect("messages: a group or workflow run has no messages (400 naming threadId)", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("pages-container")
        const origin = yield* threadOn(owner.key, owner.cli)
        const groupId = (yield* spawn(owner.key, origin.threadId)).parentThreadId ?? ""
        const run = yield* createWorkflowRun(owner.cli, owner.project.id, "A run")
        for (const threadId of [groupId, run.threadId]) {
          const refused = yield* rawGet(owner.key, `/api/threads/${threadId}/messages`)
          expect(refused).toMatchObject({ status: 400, _tag: "InvalidArgument" })
          expect(refused.message).toMatch(/^threadId: /)
        }
      }))

    it.effect("messages: a cursor that is not a message of the thread is a typed 400 naming cursor", () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("pages-bad-cursor")
        const thread = yield* threadOfMessages(owner, 2)
        const other = yield* threadOn(owner.key, owner.cli)
        const othersMessage = (yield* page(owner.cli, other.threadId)).messages[0]?.messageId ?? ""
        for (const cursor of ["msg_nope", othersMessage]) {
          const refused = yield* Effect.flip(page(owner.cli, thread.threadId, { cursor }))
          expect(refused).toMatchObject({ _tag: "InvalidArgument", message: expect.stringMatching(/^cursor: /) })
        }
        const empty = yield* rawGet(owner.key, `/api/threads/${thread.threadId}/messages?cursor=`)
        expect(empty.status).toBe(400)
        expect(empty.message).toContain("cursor")
      }))

    it.effect(`messages: limit is an integer from 1 to ${MAX_MESSAGE_PAGE}, else a typed 400 naming limit; order is newest or oldest`, () =>
      Effect.gen(function*() {
        const owner = yield* ownerWithCli("pages-bad-limit")
        const thread = yield* threadOfMessages(owner, 2)
        for (const limit of ["0", "101", "2.5", "-1", "ten"]) {
          const refused = yield* rawGet(owner.key, `/api/threads/${thread.threadId}/messages?limit=${limit}`)
          expect(refused.status, limit).toBe(400)
          expect(refused._tag, limit).toBe("HttpApiDecodeError")
          expect(refused.message, limit).toContain("limit")
        }
        const badOrder = yield* rawGet(owner.key, `/api/threads/${thread.threadId}/messages?order=sideways`)
        expect(badOrder.status).toBe(400)
        expect(badOrder.message).toContain("order")
        expect((yield* page(owner.cli, thread.threadId, { limit: 1 })).messages).toHaveLength(1)
        expect((yield* page(owner.cli, thread.threadId, { limit: MAX_MESSAGE_PAGE })).messages).toHaveLength(2)
      }))
  })
})
