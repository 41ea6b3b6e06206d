import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { TestServer } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"
import { fails, ok, scopedTo } from "../support/TaskTools.js"
import { createTask, getTask, joinAs, noRateLimit } from "./TaskFixtures.js"

describe("create_task_comment", () => {
  layer(TestServer(noRateLimit))((it) => {
    it.effect("create_task_comment takes non-blank Markdown; the comment appears in get_task with its authorName", () =>
      Effect.gen(function*() {
        const { key, project, user } = yield* seedOwner("comments")
        const member = yield* joinAs(project.id, "comments", "member", "Mel Member")
        const { taskId } = yield* createTask(key, project.id)
        const first = yield* ok(key, "create_task_comment", { taskId: "MAIN-1", content: "  Looks **good**\n" }, scopedTo(project.id))
        expect(first).toEqual({ commentId: expect.stringMatching(/^comment_[0-9a-f]{32}$/), taskId })
        yield* ok(member.key, "create_task_comment", { taskId, content: "Agreed" })
        for (const content of ["", "   ", "\n\t "]) {
          expect(yield* fails(key, "create_task_comment", { taskId, content })).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("content: ")
          })
        }
        const { comments } = yield* getTask(key, taskId)
        expect(comments).toEqual([
          {
            commentId: first.commentId,
            authorId: user.id,
            authorName: "Owner of comments",
            content: "Looks **good**",
            createdAt: expect.any(String)
          },
          {
            commentId: expect.any(String),
            authorId: member.user.id,
            authorName: "Mel Member",
            content: "Agreed",
            createdAt: expect.any(String)
          }
        ])
      }))

    it.effect("get_task returns the latest 50 comments, oldest first", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("many-comments")
        const { taskId } = yield* createTask(key, project.id)
        for (let n = 1; n <= 52; n++) yield* ok(key, "create_task_comment", { taskId, content: `comment ${n}` })
        const { comments } = yield* getTask(key, taskId)
        expect(comments.map((comment) => comment.content)).toEqual(Array.from({ length: 50 }, (_, i) => `comment ${i + 3}`))
      }))
  })
})
