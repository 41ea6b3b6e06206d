import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { TestServer } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"
import { fails, ok, scopedTo } from "../support/TaskTools.js"
import { createTask, getTask, noRateLimit, url } from "./TaskFixtures.js"

describe("update_task_link", () => {
  layer(TestServer(noRateLimit))((it) => {
    it.effect("update_task_link upsert adds a link and returns { taskId, externalLinks } with the full list", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("links-add")
        const { taskId } = yield* createTask(key, project.id, { externalLinks: [url("first")] })
        const result = yield* ok(key, "update_task_link", {
          taskId: "MAIN-1",
          op: "upsert",
          id: "pr:42",
          link: {
            kind: "pull_request",
            url: "https://git.example.com/pr/42",
            title: "Fix",
            identifier: "#42",
            repo: "acme/app",
            branch: "fix"
          }
        }, scopedTo(project.id))
        expect(result).toEqual({
          taskId,
          externalLinks: [
            expect.objectContaining({ id: "first" }),
            {
              id: "pr:42",
              kind: "pull_request",
              url: "https://git.example.com/pr/42",
              title: "Fix",
              identifier: "#42",
              repo: "acme/app",
              branch: "fix",
              createdAt: expect.any(String),
              updatedAt: expect.any(String)
            }
          ]
        })
        expect((yield* getTask(key, taskId)).externalLinks).toEqual(result.externalLinks)
      }))

    it.effect("upserting an existing link id replaces the link in place and keeps its createdAt", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("links-replace")
        const { taskId } = yield* createTask(key, project.id)
        for (const id of ["a", "b", "c"]) {
          yield* ok(key, "update_task_link", {
            taskId,
            op: "upsert",
            id,
            link: { kind: "url", url: `https://example.com/${id}`, title: `Title ${id}` }
          })
        }
        const before = (yield* getTask(key, taskId)).externalLinks
        // Real time must pass for updatedAt to move (it.effect runs on the TestClock).
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
        const { externalLinks } = yield* ok(key, "update_task_link", {
          taskId,
          op: "upsert",
          id: "b",
          link: { kind: "commit", sha: "abcdef1" }
        })
        expect(externalLinks.map((link) => link.id)).toEqual(["a", "b", "c"])
        expect(externalLinks[1]).toEqual({
          id: "b",
          kind: "commit",
          sha: "abcdef1",
          createdAt: before[1]!.createdAt,
          updatedAt: expect.any(String)
        })
        expect(Date.parse(externalLinks[1]!.updatedAt)).toBeGreaterThan(Date.parse(before[1]!.updatedAt))
        expect(externalLinks[0]).toEqual(before[0])
        expect(externalLinks[2]).toEqual(before[2])
      }))

    it.effect("update_task_link delete removes a link and is idempotent", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("links-delete")
        const { taskId } = yield* createTask(key, project.id, { externalLinks: [url("a"), url("b"), url("c")] })
        const first = yield* ok(key, "update_task_link", { taskId, op: "delete", id: "b" })
        expect(first).toEqual({ taskId, externalLinks: [expect.objectContaining({ id: "a" }), expect.objectContaining({ id: "c" })] })
        expect(yield* ok(key, "update_task_link", { taskId, op: "delete", id: "b" })).toEqual(first)
        expect(yield* ok(key, "update_task_link", { taskId, op: "delete", id: "never-there" })).toEqual(first)
        // A re-added id goes last.
        const readded = yield* ok(key, "update_task_link", {
          taskId,
          op: "upsert",
          id: "b",
          link: { kind: "url", url: "https://example.com/b2" }
        })
        expect(readded.externalLinks.map((link) => link.id)).toEqual(["a", "c", "b"])
      }))

    it.effect("a task holds at most 20 links: the 21st upsert is limit_exceeded, replacing one still works", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("links-limit")
        const { taskId } = yield* createTask(key, project.id, { externalLinks: Array.from({ length: 19 }, (_, i) => url(`l${i}`)) })
        yield* ok(key, "update_task_link", { taskId, op: "upsert", id: "l19", link: { kind: "url", url: "https://example.com/19" } })
        expect(
          yield* fails(key, "update_task_link", { taskId, op: "upsert", id: "l20", link: { kind: "url", url: "https://example.com/20" } })
        )
          .toMatchObject({ code: "limit_exceeded", message: expect.stringContaining("20") })
        const replaced = yield* ok(key, "update_task_link", { taskId, op: "upsert", id: "l0", link: { kind: "branch", name: "main" } })
        expect(replaced.externalLinks).toHaveLength(20)
        expect(replaced.externalLinks[0]).toMatchObject({ id: "l0", kind: "branch", name: "main" })
        yield* ok(key, "update_task_link", { taskId, op: "delete", id: "l5" })
        const again = yield* ok(key, "update_task_link", {
          taskId,
          op: "upsert",
          id: "l20",
          link: { kind: "url", url: "https://example.com/20" }
        })
        expect(again.externalLinks).toHaveLength(20)
        expect((yield* getTask(key, taskId)).externalLinks.map((link) => link.id)).not.toContain("l5")
      }))

    it.effect("links are validated by kind: commit sha of 7–64 hex, branch name, http(s) URLs only", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("links-kinds")
        const { taskId } = yield* createTask(key, project.id)
        const upsert = (id: string, link: unknown) => ({ taskId, op: "upsert", id, link })
        for (
          const link of [
            { kind: "commit", sha: "abc123" },
            { kind: "commit", sha: "a".repeat(65) },
            { kind: "commit", sha: "ghijklm" },
            { kind: "commit" },
            { kind: "commit", sha: "abcdef1", url: "ftp://example.com/c" },
            { kind: "branch" },
            { kind: "branch", name: "" },
            { kind: "branch", name: "main", url: "javascript:alert(1)" },
            { kind: "pull_request" },
            { kind: "pull_request", url: "ftp://example.com/pr/1" },
            { kind: "pull_request", url: "javascript:alert(1)" },
            { kind: "pull_request", url: "not a url" },
            { kind: "url", url: "ftp://example.com/file" },
            { kind: "url", url: "javascript:alert(1)" },
            { kind: "url", url: "mailto:a@example.com" },
            { kind: "url" },
            { kind: "issue", url: "https://example.com/1" },
            { kind: "branch", name: "main", sha: "abcdef1" }
          ]
        ) {
          expect(yield* fails(key, "update_task_link", upsert("x", link)), JSON.stringify(link)).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("link")
          })
        }
        expect((yield* getTask(key, taskId)).externalLinks).toEqual([])
        for (
          const [id, link] of [
            ["c7", { kind: "commit", sha: "ABCDEF1" }],
            ["c64", {
              kind: "commit",
              sha: "0123456789abcdef".repeat(4),
              title: "t",
              repo: "r",
              branch: "b",
              url: "https://example.com/c"
            }],
            ["br", { kind: "branch", name: "feat/x", repo: "acme/app", url: "http://example.com/br" }],
            ["pr", { kind: "pull_request", url: "http://example.com/pr/1" }],
            ["u", { kind: "url", url: "https://example.com/page?q=1#h", title: "Page" }]
          ] as const
        ) {
          yield* ok(key, "update_task_link", upsert(id, link))
        }
        const { externalLinks } = yield* getTask(key, taskId)
        expect(externalLinks.map((link) => link.id)).toEqual(["c7", "c64", "br", "pr", "u"])
        expect(externalLinks[1]).toMatchObject({
          kind: "commit",
          sha: "0123456789abcdef".repeat(4),
          title: "t",
          repo: "r",
          branch: "b",
          url: "https://example.com/c"
        })
      }))

    it.effect("a link id is 1–160 characters of a-zA-Z0-9._:-", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("link-ids")
        const { taskId } = yield* createTask(key, project.id)
        const link = { kind: "url", url: "https://example.com" }
        for (const id of ["", "x".repeat(161), "a/b", "has space", "é", "a#b"]) {
          expect(yield* fails(key, "update_task_link", { taskId, op: "upsert", id, link })).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("id: ")
          })
          expect(yield* fails(key, "update_task_link", { taskId, op: "delete", id })).toMatchObject({ code: "invalid_argument" })
        }
        expect(yield* fails(key, "create_task", { name: "X", externalLinks: [{ ...link, id: "a b" }] }, scopedTo(project.id)))
          .toMatchObject({
            code: "invalid_argument"
          })
        const longest = "aZ09._:-".repeat(20)
        for (const id of ["a", longest]) yield* ok(key, "update_task_link", { taskId, op: "upsert", id, link })
        expect((yield* getTask(key, taskId)).externalLinks.map((l) => l.id)).toEqual(["a", longest])
      }))

    it.effect("op upsert without link is rejected naming link; an unknown op is rejected", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("link-missing")
        const { taskId } = yield* createTask(key, project.id)
        expect(yield* fails(key, "update_task_link", { taskId, op: "upsert", id: "x" })).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("link")
        })
        expect(yield* fails(key, "update_task_link", { taskId, op: "replace", id: "x", link: { kind: "url", url: "https://x.example" } }))
          .toMatchObject({ code: "invalid_argument", message: expect.stringContaining("op: ") })
        expect((yield* getTask(key, taskId)).externalLinks).toEqual([])
      }))
  })
})
