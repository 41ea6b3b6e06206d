import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Projects } from "../../src/projects/Projects.js"
import { TestServer } from "../support/TestServer.js"
import { createKey, seedOwner } from "../support/Seed.js"
import { call, fails, ok, scopedTo, type ToolErrorBody } from "../support/TaskTools.js"
import { createTask, getTask, joinAs, listTasks, noRateLimit, refsOf, url } from "./TaskFixtures.js"

describe("task tools: permissions and isolation", () => {
  layer(TestServer(noRateLimit))((it) => {
    it.effect("a viewer can read tasks, but every write tool is a forbidden tool error and nothing changes", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("viewer")
        const scope = scopedTo(project.id)
        const { taskId } = yield* createTask(key, project.id, { name: "Visible", externalLinks: [url("a")] })
        const viewer = yield* joinAs(project.id, "viewer", "viewer")
        const seen = yield* getTask(viewer.key, "MAIN-1", scope)
        expect(seen).toMatchObject({ taskId, name: "Visible" })
        expect(refsOf(yield* listTasks(viewer.key, project.id))).toEqual(["MAIN-1"])
        const { tasks } = yield* ok(viewer.key, "get_tasks", { identifiers: [taskId] })
        expect(tasks).toEqual([{ identifier: taskId, task: seen }])
        for (
          const [name, args] of [
            ["create_task", { name: "Mine" }],
            ["update_task", { taskId, name: "Mine" }],
            ["update_task", { taskId }],
            ["update_task_link", { taskId, op: "upsert", id: "b", link: { kind: "url", url: "https://example.com/b" } }],
            ["update_task_link", { taskId, op: "delete", id: "a" }],
            ["create_task_comment", { taskId, content: "Mine" }]
          ] as const
        ) {
          expect(yield* fails(viewer.key, name, args, scope), name).toMatchObject({
            code: "forbidden",
            message: expect.stringContaining("viewer")
          })
        }
        expect(yield* getTask(key, taskId)).toEqual(seen)
        expect(yield* listTasks(key, project.id)).toHaveLength(1)
      }))

    it.effect("a task of another organization is not found for a stranger, by ID or scoped ref, and nothing changes", () =>
      Effect.gen(function*() {
        const owner = yield* seedOwner("iso-owner")
        const stranger = yield* seedOwner("iso-stranger")
        const { taskId } = yield* createTask(owner.key, owner.project.id, { name: "Secret", externalLinks: [url("a")] })
        const before = yield* getTask(owner.key, taskId)
        for (const address of [taskId, "iso-owner/MAIN-1", "ISO-OWNER/main-1"]) {
          for (
            const [name, args] of [
              ["get_task", { taskId: address }],
              ["update_task", { taskId: address, name: "Pwned", status: "Done" }],
              ["update_task_link", { taskId: address, op: "upsert", id: "evil", link: { kind: "url", url: "https://evil.example" } }],
              ["update_task_link", { taskId: address, op: "delete", id: "a" }],
              ["create_task_comment", { taskId: address, content: "pwned" }]
            ] as const
          ) {
            const error = yield* fails(stranger.key, name, args, scopedTo(stranger.project.id))
            expect(error, `${name} ${address}`).toMatchObject({ code: "not_found" })
            expect(JSON.stringify(error)).not.toContain("Secret")
          }
        }
        // A bare ref with their project is not found either.
        expect(yield* fails(stranger.key, "get_task", { taskId: "MAIN-1", projectId: owner.project.id })).toMatchObject({
          code: "not_found"
        })
        expect(yield* fails(stranger.key, "list_tasks", { projectId: owner.project.id })).toMatchObject({ code: "not_found" })
        expect(yield* fails(stranger.key, "create_task", { name: "Planted", projectId: owner.project.id })).toMatchObject({
          code: "not_found"
        })
        expect(yield* fails(stranger.key, "create_task", { name: "Planted", parentId: taskId }, scopedTo(stranger.project.id)))
          .toMatchObject({ code: "not_found" })
        expect(yield* getTask(owner.key, taskId)).toEqual(before)
        expect(yield* listTasks(owner.key, owner.project.id)).toHaveLength(1)
        expect(yield* listTasks(stranger.key, stranger.project.id)).toEqual([])
      }))

    it.effect("a key narrowed away from the project gets forbidden or not found, never data", () =>
      Effect.gen(function*() {
        const { key, organization, project, user } = yield* seedOwner("narrowed")
        const other = yield* (yield* Projects).create({ organizationId: organization.id, name: "Other", ref: "OTHER" })
        const { taskId } = yield* createTask(key, project.id, { name: "Out of reach" })
        const before = yield* getTask(key, taskId)
        const narrowed = (yield* createKey(user.id, [other.id])).secret
        for (
          const [name, args, options] of [
            ["get_task", { taskId }, {}],
            ["get_task", { taskId: "narrowed/MAIN-1" }, {}],
            ["get_task", { taskId: "MAIN-1" }, scopedTo(project.id)],
            ["list_tasks", { projectId: project.id }, {}],
            ["create_task", { name: "X" }, scopedTo(project.id)],
            ["update_task", { taskId, name: "Changed" }, {}],
            ["update_task_link", { taskId, op: "upsert", id: "x", link: { kind: "url", url: "https://x.example" } }, {}],
            ["create_task_comment", { taskId: "narrowed/MAIN-1", content: "hi" }, {}]
          ] as const
        ) {
          const result = yield* call(narrowed, name, args, options)
          expect(result.isError, name).toBe(true)
          expect(["forbidden", "not_found"]).toContain((result.structuredContent as { error: ToolErrorBody }).error.code)
          expect(JSON.stringify(result)).not.toContain("Out of reach")
        }
        const { tasks } = yield* ok(narrowed, "get_tasks", { identifiers: [taskId, "narrowed/MAIN-1"] })
        expect(tasks.map((entry) => "error" in entry ? entry.error.code : "task")).toEqual([
          expect.stringMatching(/^(forbidden|not_found)$/),
          expect.stringMatching(/^(forbidden|not_found)$/)
        ])
        expect(JSON.stringify(tasks)).not.toContain("Out of reach")
        expect(yield* getTask(key, taskId)).toEqual(before)
        // The key still works in the project it is narrowed to.
        expect((yield* createTask(narrowed, other.id)).refId).toBe("OTHER-1")
      }))
  })
})
