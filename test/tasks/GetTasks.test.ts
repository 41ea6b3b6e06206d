import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { TestServer } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"
import { fails, ok, scopedTo } from "../support/TaskTools.js"
import { createTask, getTask, noRateLimit } from "./TaskFixtures.js"

describe("get_tasks", () => {
  layer(TestServer(noRateLimit))((it) => {
    it.effect("get_tasks takes up to 25 identifiers and answers in input order; 26 or none are rejected", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("batch")
        const scope = scopedTo(project.id)
        const created = []
        for (let n = 1; n <= 3; n++) created.push(yield* createTask(key, project.id, { name: `T${n}` }))
        const identifiers = [created[2]!.taskId, "main-1", "batch/MAIN-2"]
        const { tasks } = yield* ok(key, "get_tasks", { identifiers }, scope)
        expect(tasks.map((entry) => entry.identifier)).toEqual(identifiers)
        expect(tasks.map((entry) => "task" in entry ? entry.task.name : null)).toEqual(["T3", "T1", "T2"])
        expect(tasks[1]).toEqual({ identifier: "main-1", task: yield* getTask(key, created[0]!.taskId) })
        const twentyFive = Array.from({ length: 25 }, (_, i) => `MAIN-${(i % 3) + 1}`)
        const full = yield* ok(key, "get_tasks", { identifiers: twentyFive, projectId: project.id })
        expect(full.tasks.map((entry) => "task" in entry ? entry.task.refId : null)).toEqual(twentyFive)
        expect(yield* fails(key, "get_tasks", { identifiers: [...twentyFive, "MAIN-1"] }, scope)).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("identifiers: ")
        })
        expect(yield* fails(key, "get_tasks", { identifiers: [] }, scope)).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("identifiers: ")
        })
      }))

    it.effect("get_tasks reports a task it cannot find in its place as { identifier, error } without failing the others", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("batch-missing")
        const first = yield* createTask(key, project.id, { name: "First" })
        yield* createTask(key, project.id, { name: "Second" })
        const stranger = yield* seedOwner("batch-stranger")
        const hidden = yield* createTask(stranger.key, stranger.project.id, { name: "Hidden" })
        const identifiers = ["MAIN-1", "MAIN-99", "not a ref!", hidden.taskId, "batch-stranger/MAIN-1", first.taskId, "MAIN-2"]
        const { tasks } = yield* ok(key, "get_tasks", { identifiers }, scopedTo(project.id))
        expect(tasks).toEqual([
          { identifier: "MAIN-1", task: expect.objectContaining({ name: "First" }) },
          { identifier: "MAIN-99", error: { code: "not_found", message: expect.stringContaining("MAIN-99") } },
          { identifier: "not a ref!", error: { code: "invalid_argument", message: expect.stringContaining("taskId") } },
          { identifier: hidden.taskId, error: { code: "not_found", message: expect.any(String) } },
          { identifier: "batch-stranger/MAIN-1", error: { code: "not_found", message: expect.any(String) } },
          { identifier: first.taskId, task: expect.objectContaining({ name: "First" }) },
          { identifier: "MAIN-2", task: expect.objectContaining({ name: "Second" }) }
        ])
        expect(JSON.stringify(tasks)).not.toContain("Hidden")
      }))
  })
})
