import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Projects } from "../../src/projects/Projects.js"
import { comment, createArtifact, seedTask, updateContent } from "../support/ArtifactTools.js"
import { connectCli, createThread, getThread, listMessages } from "../support/FakeCli.js"
import { ok } from "../support/TaskTools.js"
import { refuses, succeedsAs } from "../support/ToolCalls.js"
import { TestServer } from "../support/TestServer.js"

/**
 * Issue 31 §3: "Send open threads to an agent". An artifact's open comment threads go to one of
 * the caller's threads as one user message, queued as any message is; the agent answers them with
 * the artifact comment tools.
 */

const PLAN = "# Plan\n\nShip the login page.\n\nThen the export.\n\nLast, the billing page."

/** A task's artifact and one thread of the owner's, in the same project. */
const seeded = (slug: string) =>
  Effect.gen(function*() {
    const owner = yield* seedTask(slug)
    const { artifactId } = yield* createArtifact(owner.key, owner.task.taskId, { name: "Plan", content: PLAN })
    const cli = yield* connectCli(owner.key, owner.project.id)
    const thread = yield* createThread(owner.key, cli.target, "Write the plan")
    return { ...owner, artifactId, cli, threadId: thread.threadId }
  })

describe("send_artifact_comments", () => {
  layer(TestServer())((it) => {
    it.effect("sends the open threads as one message in document order, replies and lost snippets included, resolved ones left out", () =>
      Effect.gen(function*() {
        const { artifactId, key, threadId, user } = yield* seeded("send-artifact")
        const billing = yield* comment(key, artifactId, "the billing page", { content: "Which provider?" })
        const login = yield* comment(key, artifactId, "the login page", { content: "Add SSO." })
        const exported = yield* comment(key, artifactId, "the export", { content: "CSV or JSON?" })
        const done = yield* comment(key, artifactId, "# Plan", { content: "Title is fine." })
        yield* ok(key, "reply_to_artifact_comment", { commentId: login.commentId, content: "Google first." })
        yield* ok(key, "set_artifact_comment_status", { commentIds: [done.commentId], status: "resolved" })
        yield* updateContent(key, artifactId, PLAN.replace("Then the export.", "Then the reports."))

        const sent = yield* succeedsAs(key, "send_artifact_comments", { artifactId, threadId })
        expect(sent).toEqual({
          messageId: expect.any(String),
          threadId,
          commentIds: [login.commentId, billing.commentId, exported.commentId]
        })
        const message = (yield* listMessages(key, threadId)).find((m) => m.messageId === sent.messageId)
        expect(message?.text).toBe([
          `Comments on the artifact "Plan" (artifactId: ${artifactId}): 3 open comment threads. Address each, then answer it with ` +
          "reply_to_artifact_comment and resolve it with set_artifact_comment_status (its commentId); get_task_artifact reads the document.",
          "### 1. On:",
          "> the login page",
          `${user.name}: Add SSO.`,
          `${user.name} replied: Google first.`,
          `(commentId: ${login.commentId})`,
          "### 2. On:",
          "> the billing page",
          `${user.name}: Which provider?`,
          `(commentId: ${billing.commentId})`,
          "### 3. On:",
          "> the export",
          "(This text is no longer in the document: it was edited away.)",
          `${user.name}: CSV or JSON?`,
          `(commentId: ${exported.commentId})`
        ].join("\n\n"))
        expect((yield* getThread(key, threadId)).hasPendingUserMessages).toBe(true)
      }))

    it.effect("a snippet of several lines is quoted line by line", () =>
      Effect.gen(function*() {
        const { artifactId, key, threadId } = yield* seeded("send-artifact-lines")
        yield* comment(key, artifactId, "login page.\n\nThen", { content: "Order?" })
        const sent = yield* succeedsAs(key, "send_artifact_comments", { artifactId, threadId })
        const message = (yield* listMessages(key, threadId)).find((m) => m.messageId === sent.messageId)
        expect(message?.text).toContain("### 1. On:\n\n> login page.\n> \n> Then\n\n")
      }))

    it.effect("an artifact with no open thread is refused and nothing is queued", () =>
      Effect.gen(function*() {
        const { artifactId, key, threadId } = yield* seeded("send-artifact-none")
        const before = (yield* listMessages(key, threadId)).length
        expect(yield* refuses(key, "send_artifact_comments", { artifactId, threadId })).toEqual({
          code: "conflict",
          message: `artifactId: artifact ${artifactId} has no open comment thread to send`
        })
        const resolved = yield* comment(key, artifactId, "the export")
        yield* ok(key, "set_artifact_comment_status", { commentIds: [resolved.commentId], status: "resolved" })
        expect((yield* refuses(key, "send_artifact_comments", { artifactId, threadId })).code).toBe("conflict")
        expect(yield* listMessages(key, threadId)).toHaveLength(before)
      }))

    it.effect("a thread of another project is refused, naming threadId", () =>
      Effect.gen(function*() {
        const { artifactId, key, organization } = yield* seeded("send-artifact-elsewhere")
        yield* comment(key, artifactId, "the export")
        const side = yield* (yield* Projects).create({ organizationId: organization.id, name: "Side", ref: "SIDE" })
        const cli = yield* connectCli(key, side.id)
        const elsewhere = yield* createThread(key, cli.target, "Elsewhere")
        expect(yield* refuses(key, "send_artifact_comments", { artifactId, threadId: elsewhere.threadId })).toEqual({
          code: "invalid_argument",
          message:
            `threadId: thread ${elsewhere.threadId} is in another project than artifact ${artifactId}; send to a thread of its project`
        })
      }))

    it.effect("an unknown thread, an unknown artifact and a project out of the caller's reach are not found", () =>
      Effect.gen(function*() {
        const { artifactId, key, threadId } = yield* seeded("send-artifact-missing")
        yield* comment(key, artifactId, "the export")
        const unknownThread = yield* refuses(key, "send_artifact_comments", { artifactId, threadId: "thread_missing" })
        expect(unknownThread).toEqual({ code: "not_found", message: "threadId: thread thread_missing not found" })
        const missing = "artifact_00000000000000000000000000000000"
        const unknownArtifact = yield* refuses(key, "send_artifact_comments", { artifactId: missing, threadId })
        expect(unknownArtifact.code).toBe("not_found")
        expect(unknownArtifact.message).toContain("artifactId")
        const stranger = yield* seedTask("send-artifact-stranger")
        expect((yield* refuses(stranger.key, "send_artifact_comments", { artifactId, threadId })).code).toBe("not_found")
        expect(yield* listMessages(key, threadId)).toHaveLength(1)
      }))

    it.effect("bad arguments name the field and the rule", () =>
      Effect.gen(function*() {
        const { artifactId, key } = yield* seeded("send-artifact-args")
        const missing = yield* refuses(key, "send_artifact_comments", { artifactId })
        expect(missing.code).toBe("invalid_argument")
        expect(missing.message).toContain("threadId")
        const empty = yield* refuses(key, "send_artifact_comments", { artifactId, threadId: "" })
        expect(empty.message).toContain("threadId")
        expect(empty.message).toContain("must not be empty")
      }))
  })
})
