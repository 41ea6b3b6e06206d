import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, FastCheck, Layer } from "effect"
import { Memberships } from "../../src/orgs/Memberships.js"
import { Users } from "../../src/orgs/Users.js"
import { Projects } from "../../src/projects/Projects.js"
import { TaskOrder } from "../../src/tasks/TaskOrder.js"
import { TaskReads } from "../../src/tasks/TaskReads.js"
import { TaskWrites } from "../../src/tasks/TaskWrites.js"
import { createKey, seedOwner } from "../support/Seed.js"
import { ServiceTest } from "../support/ServiceTest.js"

/** A project with `count` top-level tasks, MAIN-1 … MAIN-count in that order. */
const seed = (slug: string, count: number) =>
  Effect.gen(function*() {
    const owner = yield* seedOwner(slug)
    const access = yield* (yield* Projects).access(owner.principal, owner.project.id)
    const writes = yield* TaskWrites
    const reads = yield* TaskReads
    const order = yield* TaskOrder
    for (let n = 1; n <= count; n++) yield* writes.create(owner.principal, access, { name: `Task ${n}` })
    const task = (ref: string) => reads.resolve(owner.principal, ref, owner.project.id)
    const refs = Effect.map(reads.list(access, {}), (rows) => rows.filter((row) => row.parentId === null).map((row) => row.ref))
    /** Places `ref` between the neighbours named (refs, or null). */
    const place = (ref: string, after: string | null, before: string | null) =>
      Effect.gen(function*() {
        return yield* order.place(yield* task(ref), {
          after: after === null ? null : yield* task(after),
          before: before === null ? null : yield* task(before)
        })
      })
    return { ...owner, access, writes, reads, task, refs, place }
  })

const main = (...numbers: ReadonlyArray<number>) => numbers.map((n) => `MAIN-${n}`)

describe("a task's place among its siblings", () => {
  layer(ServiceTest(Layer.mergeAll(TaskReads.Default, TaskWrites.Default, TaskOrder.Default)))((it) => {
    it.effect("placed after a task, it comes right after it; before a task, right before it; between two, between them", () =>
      Effect.gen(function*() {
        const { place, refs } = yield* seed("order-basics", 12)
        yield* place("MAIN-12", "MAIN-1", null)
        expect(yield* refs).toEqual(main(1, 12, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11))
        yield* place("MAIN-1", null, "MAIN-11")
        expect(yield* refs).toEqual(main(12, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 11))
        // Between two that are not next to each other (a column shows some of the siblings): right after the first.
        yield* place("MAIN-10", "MAIN-2", "MAIN-9")
        expect(yield* refs).toEqual(main(12, 2, 10, 3, 4, 5, 6, 7, 8, 9, 1, 11))
      }))

    it.effect("before the first task it becomes the first; after the last, the last", () =>
      Effect.gen(function*() {
        const { place, refs } = yield* seed("order-ends", 3)
        yield* place("MAIN-3", null, "MAIN-1")
        expect(yield* refs).toEqual(main(3, 1, 2))
        yield* place("MAIN-3", "MAIN-2", null)
        expect(yield* refs).toEqual(main(1, 2, 3))
      }))

    it.effect("subtasks are ordered among their own siblings", () =>
      Effect.gen(function*() {
        const { access, place, principal, reads, writes } = yield* seed("order-subtasks", 1)
        for (const name of ["a", "b", "c"]) yield* writes.create(principal, access, { name, parentId: "MAIN-1" })
        yield* place("MAIN-4", null, "MAIN-2")
        const { subtasks } = yield* reads.details(yield* reads.resolve(principal, "MAIN-1", access.project.id))
        expect(subtasks.map((row) => row.ref)).toEqual(main(4, 2, 3))
      }))

    it.effect("naming no neighbour is refused, naming both fields", () =>
      Effect.gen(function*() {
        const { place } = yield* seed("order-none", 2)
        const error = yield* Effect.flip(place("MAIN-1", null, null))
        expect(error).toMatchObject({ _tag: "InvalidArgument", message: expect.stringMatching(/^after, before: /) })
      }))

    it.effect("the task as its own neighbour is refused on the field that names it", () =>
      Effect.gen(function*() {
        const { place, refs } = yield* seed("order-self", 2)
        expect(yield* Effect.flip(place("MAIN-1", "MAIN-1", null))).toMatchObject({
          _tag: "InvalidArgument",
          message: "after: MAIN-1 is the task itself"
        })
        expect(yield* Effect.flip(place("MAIN-2", null, "MAIN-2"))).toMatchObject({ message: "before: MAIN-2 is the task itself" })
        expect(yield* refs).toEqual(main(1, 2))
      }))

    it.effect("a neighbour under another parent is refused: nothing moves", () =>
      Effect.gen(function*() {
        const { access, place, principal, refs, writes } = yield* seed("order-parent", 2)
        yield* writes.create(principal, access, { name: "child", parentId: "MAIN-1" })
        const error = yield* Effect.flip(place("MAIN-2", "MAIN-3", null))
        expect(error).toMatchObject({
          _tag: "InvalidArgument",
          message: expect.stringMatching(/^after: MAIN-3 is not a sibling of MAIN-2/)
        })
        expect(yield* refs).toEqual(main(1, 2))
      }))

    it.effect("a neighbour in another project is refused", () =>
      Effect.gen(function*() {
        const { organization, principal, reads, refs, task } = yield* seed("order-projects", 2)
        const other = yield* (yield* Projects).create({ organizationId: organization.id, name: "Other", ref: "OTHER" })
        const otherAccess = yield* (yield* Projects).access(principal, other.id)
        yield* (yield* TaskWrites).create(principal, otherAccess, { name: "Elsewhere" })
        const elsewhere = yield* reads.resolve(principal, "OTHER-1", other.id)
        const error = yield* Effect.flip((yield* TaskOrder).place(yield* task("MAIN-1"), { after: elsewhere, before: null }))
        expect(error).toMatchObject({ _tag: "InvalidArgument", message: "after: OTHER-1 is in another project than MAIN-1" })
        expect(yield* refs).toEqual(main(1, 2))
      }))

    it.effect("neighbours named in the wrong order are a conflict: nothing moves", () =>
      Effect.gen(function*() {
        const { place, refs } = yield* seed("order-stale", 4)
        const error = yield* Effect.flip(place("MAIN-1", "MAIN-4", "MAIN-2"))
        expect(error).toMatchObject({ _tag: "Conflict", message: expect.stringMatching(/^before: MAIN-2 comes before MAIN-4/) })
        expect(yield* refs).toEqual(main(1, 2, 3, 4))
      }))

    it.effect("a viewer cannot reorder: Forbidden, nothing moves", () =>
      Effect.gen(function*() {
        const { project, refs, task } = yield* seed("order-viewer", 2)
        const viewer = yield* (yield* Users).create({ name: "Viewer", email: "viewer@order.test" })
        yield* (yield* Memberships).addToProject(project.id, viewer.id, "viewer")
        const { principal } = yield* createKey(viewer.id, null)
        const reads = yield* TaskReads
        const seen = yield* reads.resolve(principal, "MAIN-2", project.id)
        const error = yield* Effect.flip((yield* TaskOrder).place(seen, { after: null, before: yield* task("MAIN-1") }))
        expect(error._tag).toBe("Forbidden")
        expect(yield* refs).toEqual(main(1, 2))
      }))

    it.effect("neighbours whose ranks tie: the siblings are ranked again and the order is the one asked for", () =>
      Effect.gen(function*() {
        const { place, project, refs } = yield* seed("order-ties", 5)
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE tasks SET rank = 'a0' WHERE project_id = ${project.id} AND ref IN ('MAIN-2', 'MAIN-3', 'MAIN-4')`
        const before = yield* refs
        const tied = before.filter((ref) => ["MAIN-2", "MAIN-3", "MAIN-4"].includes(ref))
        yield* place("MAIN-5", tied[0] ?? "", tied[1] ?? "")
        const after = yield* refs
        expect(after.indexOf("MAIN-5")).toBe(after.indexOf(tied[0] ?? "") + 1)
        expect(after.filter((ref) => ref !== "MAIN-5")).toEqual(before.filter((ref) => ref !== "MAIN-5"))
        const ranks = yield* sql<{ readonly rank: string }>`SELECT rank FROM tasks WHERE project_id = ${project.id} AND deleted_at IS NULL`
        expect(new Set(ranks.map((row) => row.rank)).size).toBe(5)
      }))

    it.effect("property: any sequence of placements gives the order the same placements give to a list", () =>
      Effect.gen(function*() {
        const { place, refs } = yield* seed("order-property", 15)
        const moves = FastCheck.sample(
          FastCheck.tuple(FastCheck.integer({ min: 1, max: 15 }), FastCheck.integer({ min: 0, max: 14 }), FastCheck.boolean()),
          { numRuns: 60, seed: 27 }
        )
        let model: ReadonlyArray<string> = main(...Array.from({ length: 15 }, (_, i) => i + 1))
        for (const [n, slot, useBefore] of moves) {
          const moved = `MAIN-${n}`
          const others = model.filter((ref) => ref !== moved)
          const at = Math.min(slot, others.length)
          const after = others[at - 1] ?? null
          const before = others[at] ?? null
          yield* place(moved, useBefore && before !== null ? null : after, useBefore || after === null ? before : null)
          model = [...others.slice(0, at), moved, ...others.slice(at)]
          expect(yield* refs).toEqual(model)
        }
      }))
  })
})
