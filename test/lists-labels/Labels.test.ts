import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { ProjectAccess } from "../../src/platform/auth/Principal.js"
import type { ToolError } from "../../catalog/domain/Errors.js"
import { LabelId } from "../../catalog/domain/Ids.js"
import { LabelColor } from "../../catalog/domain/Label.js"
import type { ProjectRole } from "../../catalog/domain/Roles.js"
import { ListColor } from "../../catalog/domain/TaskList.js"
import { Labels } from "../../src/lists-labels/Labels.js"
import { Projects } from "../../src/projects/Projects.js"
import { concurrently } from "../support/TestDatabase.js"
import { ServiceTest } from "../support/ServiceTest.js"
import { seedOwner } from "../support/Seed.js"

/** A fresh organization and project, seen with `role`. */
const seed = (slug: string, role: ProjectRole = "admin") =>
  Effect.gen(function*() {
    const owner = yield* seedOwner(slug)
    const access: ProjectAccess = { project: owner.project, role }
    return { ...owner, access, labels: yield* Labels }
  })

const namesOf = (labels: ReadonlyArray<{ readonly name: string }>) => labels.map((label) => label.name)

describe("Labels", () => {
  layer(ServiceTest(Labels.Default))((it) => {
    it.effect("labels are listed in board-column order, a new label last", () =>
      Effect.gen(function*() {
        const { access, labels } = yield* seed("order")
        expect(yield* labels.list(access)).toEqual([])
        for (const name of ["Urgent", "Backend", "Design", "API"]) yield* labels.create(access, { name })
        expect(namesOf(yield* labels.list(access))).toEqual(["Urgent", "Backend", "Design", "API"])
        yield* labels.update(access, "urgent", { name: "Hot" })
        expect(namesOf(yield* labels.list(access))).toEqual(["Hot", "Backend", "Design", "API"])
      }))

    it.effect("a label's color defaults to blue and comes from the extended palette, a superset of the List palette", () =>
      Effect.gen(function*() {
        const { access, labels } = yield* seed("colors")
        expect((yield* labels.create(access, { name: "Plain" })).color).toBe("blue")
        expect((yield* labels.create(access, { name: "Warm", color: "amber" })).color).toBe("amber")
        expect(LabelColor.literals).toEqual(expect.arrayContaining([...ListColor.literals]))
        expect(LabelColor.literals.length).toBeGreaterThan(ListColor.literals.length)
      }))

    it.effect("a label name is trimmed, must not be blank, and is at most 50 characters", () =>
      Effect.gen(function*() {
        const { access, labels } = yield* seed("names")
        expect((yield* labels.create(access, { name: "  Spaced  " })).name).toBe("Spaced")
        expect(yield* Effect.flip(labels.create(access, { name: " \t " }))).toMatchObject({
          _tag: "InvalidArgument",
          message: expect.stringContaining("name: must not be empty")
        })
        expect(yield* Effect.flip(labels.create(access, { name: "x".repeat(51) }))).toMatchObject({
          _tag: "InvalidArgument",
          message: expect.stringContaining("name: must be at most 50 characters")
        })
        expect((yield* labels.create(access, { name: "y".repeat(50) })).name).toHaveLength(50)
        expect(yield* Effect.flip(labels.update(access, "spaced", { name: "" }))).toMatchObject({ _tag: "InvalidArgument" })
      }))

    it.effect("label names are unique per project ignoring case (Conflict naming name), on create and rename", () =>
      Effect.gen(function*() {
        const { access, organization, labels } = yield* seed("unique")
        yield* labels.create(access, { name: "Bug" })
        const other = yield* labels.create(access, { name: "Chore" })
        expect(yield* Effect.flip(labels.create(access, { name: "BUG" }))).toMatchObject({
          _tag: "Conflict",
          message: expect.stringMatching(/^name: .*"BUG"/)
        })
        expect(yield* Effect.flip(labels.update(access, other.id, { name: "bug" }))).toMatchObject({
          _tag: "Conflict",
          message: expect.stringContaining("name:")
        })
        // Renaming a label to its own name in another case is not a conflict.
        expect((yield* labels.update(access, other.id, { name: "CHORE" })).name).toBe("CHORE")
        const second = yield* (yield* Projects).create({ organizationId: organization.id, name: "Second", ref: "SECOND" })
        expect((yield* labels.create({ ...access, project: second }, { name: "Bug" })).name).toBe("Bug")
      }))

    it.effect("at most 20 labels per project (LimitExceeded)", () =>
      Effect.gen(function*() {
        const { access, labels } = yield* seed("limit")
        for (let n = 1; n <= 20; n++) yield* labels.create(access, { name: `Label ${n}` })
        expect(yield* Effect.flip(labels.create(access, { name: "One too many" }))).toMatchObject({
          _tag: "LimitExceeded",
          message: expect.stringContaining("20 labels")
        })
        expect(yield* labels.list(access)).toHaveLength(20)
      }))

    it.effect(concurrently("the 20-label limit and name uniqueness hold under racing creates"), () =>
      Effect.gen(function*() {
        const { access, labels } = yield* seed("race")
        const same = yield* Effect.forEach(
          Array.from({ length: 6 }),
          () => Effect.either(labels.create(access, { name: "Same" })),
          { concurrency: "unbounded" }
        )
        expect(same.filter((result) => result._tag === "Right")).toHaveLength(1)
        expect(same.filter((result) => result._tag === "Left" && result.left._tag === "Conflict")).toHaveLength(5)
        const racers = yield* Effect.forEach(
          Array.from({ length: 25 }, (_, n) => n),
          (n) => Effect.either(labels.create(access, { name: `Racer ${n}` })),
          { concurrency: "unbounded" }
        )
        expect(racers.filter((result) => result._tag === "Right")).toHaveLength(19)
        expect(racers.filter((result) => result._tag === "Left" && result.left._tag === "LimitExceeded")).toHaveLength(6)
        expect(yield* labels.list(access)).toHaveLength(20)
      }))

    it.effect("a label is addressed by ID or exact name ignoring case; another project's label is not found", () =>
      Effect.gen(function*() {
        const { access, organization, labels } = yield* seed("addressing")
        const label = yield* labels.create(access, { name: "Needs Review" })
        for (const address of [label.id, "Needs Review", "needs review", " NEEDS REVIEW "]) {
          expect((yield* labels.resolve(access, address)).id).toBe(label.id)
        }
        expect(yield* Effect.flip(labels.resolve(access, "Needs"))).toMatchObject({ _tag: "NotFound" })
        const second = yield* (yield* Projects).create({ organizationId: organization.id, name: "Second", ref: "SECOND" })
        const elsewhere = { ...access, project: second }
        for (const address of [label.id, "Needs Review", LabelId.generate()]) {
          expect(yield* Effect.flip(labels.update(elsewhere, address, { color: "red" }))).toMatchObject({
            _tag: "NotFound",
            message: `labelId: label ${address} not found in project SECOND`
          })
        }
      }))

    it.effect("an update needs at least one of name, color, and keeps the omitted one", () =>
      Effect.gen(function*() {
        const { access, labels } = yield* seed("update")
        const label = yield* labels.create(access, { name: "Ops", color: "green" })
        expect(yield* Effect.flip(labels.update(access, label.id, {}))).toMatchObject({
          _tag: "InvalidArgument",
          message: "name, color: pass at least one to change"
        })
        expect(yield* labels.update(access, label.id, { color: "rose" })).toMatchObject({ name: "Ops", color: "rose" })
        expect(yield* labels.update(access, "ops", { name: "DevOps" })).toMatchObject({ id: label.id, name: "DevOps", color: "rose" })
      }))

    it.effect("managing labels needs project admin (Forbidden for members and viewers, who can still list)", () =>
      Effect.gen(function*() {
        const { access, labels } = yield* seed("permissions")
        const label = yield* labels.create(access, { name: "Existing" })
        for (const role of ["member", "viewer"] as const) {
          const limited: ProjectAccess = { ...access, role }
          const attempts: ReadonlyArray<Effect.Effect<unknown, ToolError>> = [
            labels.create(limited, { name: "Nope" }),
            labels.update(limited, label.id, { color: "red" })
          ]
          for (const attempt of attempts) {
            expect(yield* Effect.flip(attempt)).toMatchObject({
              _tag: "Forbidden",
              message: expect.stringContaining(`requires the project role admin; the caller is ${role}`)
            })
          }
          expect(namesOf(yield* labels.list(limited))).toEqual(["Existing"])
        }
      }))
  })
})
