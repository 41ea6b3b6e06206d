import { describe, expect, layer } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import { Projects } from "../../src/projects/Projects.js"
import { TaskLinks } from "../../src/tasks/TaskLinks.js"
import { TaskReads } from "../../src/tasks/TaskReads.js"
import { TaskWrites } from "../../src/tasks/TaskWrites.js"
import { concurrently } from "../support/TestDatabase.js"
import { ServiceTest } from "../support/ServiceTest.js"
import { seedOwner } from "../support/Seed.js"

/** A fresh organization and project, with the owner's principal and access to it. */
const seed = (slug: string) =>
  Effect.gen(function*() {
    const owner = yield* seedOwner(slug)
    const access = yield* (yield* Projects).access(owner.principal, owner.project.id)
    return { ...owner, access, taskLinks: yield* TaskLinks, reads: yield* TaskReads, writes: yield* TaskWrites }
  })

const numbersOf = (refs: ReadonlyArray<string>) => refs.map((ref) => Number(ref.split("-")[1])).sort((a, b) => a - b)

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)

describe("the task services", () => {
  layer(ServiceTest(Layer.mergeAll(TaskReads.Default, TaskWrites.Default, TaskLinks.Default)))((it) => {
    it.effect(
      concurrently("creates in one project get distinct, consecutive numbers, listed in creation order"),
      () =>
        Effect.gen(function*() {
          const { access, principal, reads, writes } = yield* seed("concurrent")
          const created = yield* Effect.all(
            range(1, 10).map((n) => writes.create(principal, access, { name: `Task ${n}` })),
            { concurrency: 10 }
          )
          const refs = created.map((task) => task.refId)
          expect(new Set(refs).size).toBe(10)
          expect(numbersOf(refs)).toEqual(range(1, 10))
          expect(new Set(created.map((task) => task.taskId)).size).toBe(10)
          // Numbers and ranks are taken under the same lock, so list (rank) order is number order.
          const listed = yield* reads.list(access, {})
          expect(listed.map((row) => row.ref)).toEqual(range(1, 10).map((n) => `MAIN-${n}`))
          expect(new Set(listed.map((row) => row.name)).size).toBe(10)
          // The counter keeps counting after the burst.
          expect((yield* writes.create(principal, access, { name: "After" })).refId).toBe("MAIN-11")
        })
    )

    it.effect(concurrently("subtask creates under one parent get distinct numbers and ranks"), () =>
      Effect.gen(function*() {
        const { access, principal, reads, writes } = yield* seed("concurrent-subtasks")
        const parent = yield* writes.create(principal, access, { name: "Parent" })
        const children = yield* Effect.all(
          range(1, 10).map((n) => writes.create(principal, access, { name: `Child ${n}`, parentId: parent.taskId })),
          { concurrency: 10 }
        )
        expect(numbersOf(children.map((child) => child.refId))).toEqual(range(2, 11))
        const resolved = yield* reads.resolve(principal, parent.taskId, null)
        const { subtasks } = yield* reads.details(resolved)
        expect(subtasks.map((row) => row.ref)).toEqual(range(2, 11).map((n) => `MAIN-${n}`))
        expect(resolved.task.subtaskCount).toBe(10)
      }))

    it.effect("each project counts its own numbers, and a create that fails takes no number", () =>
      Effect.gen(function*() {
        const { access, organization, principal, writes } = yield* seed("counters")
        const other = yield* (yield* Projects).create({ organizationId: organization.id, name: "Other", ref: "OTHER" })
        const otherAccess = yield* (yield* Projects).access(principal, other.id)
        const both = yield* Effect.all([
          ...range(1, 5).map(() => writes.create(principal, access, { name: "Main" })),
          ...range(1, 5).map(() => writes.create(principal, otherAccess, { name: "Other" }))
        ], { concurrency: "unbounded" })
        expect(numbersOf(both.slice(0, 5).map((task) => task.refId))).toEqual(range(1, 5))
        expect(both.slice(5).map((task) => task.refId.split("-")[0])).toEqual(Array(5).fill("OTHER"))
        expect(numbersOf(both.slice(5).map((task) => task.refId))).toEqual(range(1, 5))
        for (
          const input of [{ status: "Blocked" }, { label: "missing" }, { listId: "NOPE" }, {
            description: "{\"type\":\"doc\",\"content\":[]}"
          }]
        ) {
          expect(Either.isLeft(yield* Effect.either(writes.create(principal, access, { name: "Fails", ...input })))).toBe(true)
        }
        expect((yield* writes.create(principal, access, { name: "Next" })).refId).toBe("MAIN-6")
      }))

    it.effect(concurrently("link upserts never take a task past 20 links"), () =>
      Effect.gen(function*() {
        const { access, principal, reads, writes, taskLinks } = yield* seed("concurrent-links")
        const { taskId } = yield* writes.create(principal, access, { name: "Linked" })
        const resolved = yield* reads.resolve(principal, taskId, null)
        const results = yield* Effect.all(
          range(1, 30).map((n) =>
            Effect.either(taskLinks.update(resolved, { op: "upsert", id: `l${n}`, link: { kind: "url", url: `https://example.com/${n}` } }))
          ),
          { concurrency: 30 }
        )
        expect(results.filter(Either.isRight)).toHaveLength(20)
        expect(results.filter(Either.isLeft).map((result) => Either.isLeft(result) ? result.left._tag : null))
          .toEqual(Array(10).fill("LimitExceeded"))
        const links = yield* taskLinks.linksOf([taskId])
        expect(links).toHaveLength(20)
        expect(new Set(links.map((link) => link.id)).size).toBe(20)
      }))

    it.effect(concurrently("upserts of one new link id add it once"), () =>
      Effect.gen(function*() {
        const { access, principal, reads, writes, taskLinks } = yield* seed("same-link")
        const { taskId } = yield* writes.create(principal, access, { name: "Linked" })
        const resolved = yield* reads.resolve(principal, taskId, null)
        yield* Effect.all(
          range(1, 8).map((n) =>
            taskLinks.update(resolved, { op: "upsert", id: "pr", link: { kind: "url", url: `https://example.com/${n}` } })
          ),
          { concurrency: 8 }
        )
        const links = yield* taskLinks.linksOf([taskId])
        expect(links.map((link) => link.id)).toEqual(["pr"])
      }))
  })
})
