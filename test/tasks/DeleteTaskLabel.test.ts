import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Projects } from "../../src/projects/Projects.js"
import { TestServer } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"
import { archiveTask, createTask, fails, getTask, joinAs, listTasks, ok, scopedTo, type Scope } from "../support/TaskTools.js"

const sorted = (ids: ReadonlyArray<string>) => [...ids].sort()

const seed = (slug: string) => Effect.map(seedOwner(slug), (owner) => ({ ...owner, scope: scopedTo(owner.project.id) }))

/** Labels Bug and Docs; tasks: two active with Bug, one archived with Bug, one with Docs, one without a label. */
const labelled = (key: string, scope: Scope) =>
  Effect.gen(function*() {
    const bug = (yield* ok(key, "create_task_label", { name: "Bug", color: "red" }, scope)).labelId
    const docs = (yield* ok(key, "create_task_label", { name: "Docs" }, scope)).labelId
    const first = yield* createTask(key, scope, { name: "First bug", label: bug })
    const second = yield* createTask(key, scope, { name: "Second bug", label: "bug", parentId: first.taskId })
    const shelved = yield* createTask(key, scope, { name: "Shelved bug", label: bug })
    yield* archiveTask(shelved.taskId)
    const documented = yield* createTask(key, scope, { name: "Write docs", label: docs })
    const plain = yield* createTask(key, scope, { name: "Plain" })
    return { bug, docs, first, second, shelved, documented, plain, carriers: [first.taskId, second.taskId, shelved.taskId] }
  })

/** Every label, and every task's label and archive state. */
const snapshot = (key: string, scope: Scope) =>
  Effect.gen(function*() {
    const labels = yield* ok(key, "list_task_labels", {}, scope)
    const tasks = yield* listTasks(key, scope, { includeArchived: true })
    return { labels, tasks: tasks.map((task) => ({ taskId: task.taskId, label: task.label, isArchived: task.isArchived })) }
  })

const labelOf = (key: string, scope: Scope, taskId: string) => Effect.map(getTask(key, taskId, scope), (task) => task.label)

const archivedAt = (taskId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ archivedAt: Date | null }>`SELECT archived_at AS "archivedAt" FROM tasks WHERE id = ${taskId}`.pipe(
      Effect.orDie
    )
    return rows[0]?.archivedAt?.toISOString() ?? null
  })

describe("delete_task_label", () => {
  layer(TestServer())((it) => {
    it.effect("clear (the default) removes the label from its tasks and returns exactly those tasks as affectedTaskIds", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("dl-clear")
        const seeded = yield* labelled(key, scope)
        const result = yield* ok(key, "delete_task_label", { labelId: seeded.bug }, scope)
        expect(Object.keys(result)).toEqual(["affectedTaskIds"])
        expect(sorted(result.affectedTaskIds)).toEqual(sorted(seeded.carriers))
        for (const taskId of seeded.carriers) expect(yield* labelOf(key, scope, taskId)).toBeNull()
        expect(yield* labelOf(key, scope, seeded.documented.taskId)).toEqual({ _id: seeded.docs, name: "Docs", color: "blue" })
        // Clearing archives nothing and unarchives nothing.
        expect((yield* getTask(key, seeded.shelved.taskId, scope)).isArchived).toBe(true)
        expect((yield* getTask(key, seeded.first.taskId, scope)).isArchived).toBe(false)
        expect(yield* ok(key, "list_task_labels", {}, scope)).toEqual({ labels: [{ _id: seeded.docs, name: "Docs", color: "blue" }] })
      }))

    it.effect("an explicit clear, and a label with no tasks, give affectedTaskIds [] when nothing carried it", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("dl-empty")
        const seeded = yield* labelled(key, scope)
        yield* ok(key, "create_task_label", { name: "Unused" }, scope)
        expect(yield* ok(key, "delete_task_label", { labelId: "unused", resolution: "clear" }, scope)).toEqual({ affectedTaskIds: [] })
        expect((yield* ok(key, "list_task_labels", {}, scope)).labels.map((label) => label.name)).toEqual(["Bug", "Docs"])
        expect(yield* labelOf(key, scope, seeded.first.taskId)).toMatchObject({ name: "Bug" })
      }))

    it.effect("reassign moves the label's tasks to reassignTo, given by ID or by name ignoring case", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("dl-reassign")
        const seeded = yield* labelled(key, scope)
        const result = yield* ok(
          key,
          "delete_task_label",
          { labelId: "BUG", resolution: "reassign", reassignTo: "  dOcS " },
          scope
        )
        expect(sorted(result.affectedTaskIds)).toEqual(sorted(seeded.carriers))
        for (const taskId of [...seeded.carriers, seeded.documented.taskId]) {
          expect(yield* labelOf(key, scope, taskId), taskId).toEqual({ _id: seeded.docs, name: "Docs", color: "blue" })
        }
        expect(yield* labelOf(key, scope, seeded.plain.taskId)).toBeNull()
        expect((yield* getTask(key, seeded.shelved.taskId, scope)).isArchived).toBe(true)
        // By ID, onto a third label.
        const { labelId: later } = yield* ok(key, "create_task_label", { name: "Later" }, scope)
        const again = yield* ok(
          key,
          "delete_task_label",
          { labelId: seeded.docs, resolution: "reassign", reassignTo: later },
          scope
        )
        expect(sorted(again.affectedTaskIds)).toEqual(sorted([...seeded.carriers, seeded.documented.taskId]))
        expect(yield* labelOf(key, scope, seeded.first.taskId)).toMatchObject({ _id: later, name: "Later" })
        expect((yield* ok(key, "list_task_labels", {}, scope)).labels.map((label) => label.name)).toEqual(["Later"])
      }))

    it.effect("reassign without reassignTo is rejected naming reassignTo, and nothing changes", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("dl-missing")
        const seeded = yield* labelled(key, scope)
        const before = yield* snapshot(key, scope)
        expect(yield* fails(key, "delete_task_label", { labelId: seeded.bug, resolution: "reassign" }, scope)).toEqual({
          code: "invalid_argument",
          message: "reassignTo: required when resolution is reassign"
        })
        expect(yield* snapshot(key, scope)).toEqual(before)
      }))

    it.effect("reassignTo is refused with any other resolution (clear, archiveTasks, or none given), and nothing changes", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("dl-refused")
        const seeded = yield* labelled(key, scope)
        const before = yield* snapshot(key, scope)
        for (const resolution of ["clear", "archiveTasks", undefined]) {
          const args = { labelId: seeded.bug, reassignTo: seeded.docs, ...(resolution === undefined ? {} : { resolution }) }
          expect(yield* fails(key, "delete_task_label", args, scope), String(resolution)).toMatchObject({
            code: "invalid_argument",
            message: expect.stringMatching(/^reassignTo: /)
          })
        }
        expect(yield* snapshot(key, scope)).toEqual(before)
      }))

    it.effect("reassignTo must be another label: the label itself, by ID or name, is rejected, and nothing changes", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("dl-self")
        const seeded = yield* labelled(key, scope)
        const before = yield* snapshot(key, scope)
        for (const reassignTo of [seeded.bug, "bug", "BUG"]) {
          expect(yield* fails(key, "delete_task_label", { labelId: "Bug", resolution: "reassign", reassignTo }, scope)).toEqual({
            code: "invalid_argument",
            message: "reassignTo: must be another label than the one deleted"
          })
        }
        expect(yield* snapshot(key, scope)).toEqual(before)
      }))

    it.effect("an unknown reassignTo is not found, and nothing changes", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("dl-unknown-target")
        const seeded = yield* labelled(key, scope)
        const before = yield* snapshot(key, scope)
        expect(yield* fails(key, "delete_task_label", { labelId: seeded.bug, resolution: "reassign", reassignTo: "Nope" }, scope))
          .toMatchObject({ code: "not_found" })
        expect(yield* snapshot(key, scope)).toEqual(before)
      }))

    it.effect("archiveTasks clears the label and archives the active tasks; already archived tasks keep their archive time", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("dl-archive")
        const seeded = yield* labelled(key, scope)
        const shelvedAt = yield* archivedAt(seeded.shelved.taskId)
        expect(shelvedAt).not.toBeNull()
        const result = yield* ok(
          key,
          "delete_task_label",
          { labelId: seeded.bug, resolution: "archiveTasks" },
          scope
        )
        expect(sorted(result.affectedTaskIds)).toEqual(sorted(seeded.carriers))
        for (const taskId of seeded.carriers) {
          const task = yield* getTask(key, taskId, scope)
          expect(task.label, taskId).toBeNull()
          expect(task.isArchived, taskId).toBe(true)
        }
        expect(yield* archivedAt(seeded.shelved.taskId)).toBe(shelvedAt)
        // Tasks that did not carry the label stay active.
        expect((yield* listTasks(key, scope)).map((task) => task.name).sort()).toEqual(["Plain", "Write docs"])
        expect((yield* ok(key, "list_task_labels", {}, scope)).labels.map((label) => label.name)).toEqual(["Docs"])
      }))

    it.effect("labelId is an ID or the exact name ignoring case; an unknown label is not found; a deleted label is gone", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("dl-address")
        const seeded = yield* labelled(key, scope)
        const before = yield* snapshot(key, scope)
        for (const labelId of ["Feature", "Bu", "label_00000000000000000000000000000000"]) {
          expect(yield* fails(key, "delete_task_label", { labelId }, scope)).toEqual({
            code: "not_found",
            message: `labelId: label ${labelId} not found in project MAIN`
          })
        }
        expect(yield* snapshot(key, scope)).toEqual(before)
        yield* ok(key, "delete_task_label", { labelId: "  dOCS " }, scope)
        expect(yield* fails(key, "delete_task_label", { labelId: seeded.docs }, scope)).toMatchObject({ code: "not_found" })
        expect(yield* fails(key, "update_task_label", { labelId: seeded.docs, color: "red" }, scope)).toMatchObject({ code: "not_found" })
        // A task cannot be given the deleted label any more.
        expect(yield* fails(key, "update_task", { taskId: seeded.plain.taskId, label: "Docs" }, scope)).toMatchObject({ code: "not_found" })
        expect((yield* ok(key, "list_task_labels", {}, scope)).labels.map((label) => label._id)).toEqual([seeded.bug])
      }))

    it.effect("argument validation: labelId is required and not empty, resolution is clear, reassign or archiveTasks", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("dl-args")
        yield* labelled(key, scope)
        const before = yield* snapshot(key, scope)
        for (
          const [args, field] of [
            [{}, "labelId"],
            [{ labelId: "" }, "labelId"],
            [{ labelId: "Bug", resolution: "delete" }, "resolution"],
            [{ labelId: "Bug", resolution: "reassign", reassignTo: "" }, "reassignTo"]
          ] as const
        ) {
          expect(yield* fails(key, "delete_task_label", args, scope), JSON.stringify(args)).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining(`${field}`)
          })
        }
        expect(yield* snapshot(key, scope)).toEqual(before)
      }))

    it.effect("only a project admin may delete a label: a member and a viewer are forbidden, and nothing changes", () =>
      Effect.gen(function*() {
        const { key, project, scope } = yield* seed("dl-roles")
        const seeded = yield* labelled(key, scope)
        const before = yield* snapshot(key, scope)
        for (const role of ["member", "viewer"] as const) {
          const other = yield* joinAs(project.id, "dl-roles", role)
          for (
            const args of [{ labelId: "Bug" }, { labelId: "Bug", resolution: "reassign", reassignTo: "Docs" }, {
              labelId: "Bug",
              resolution: "archiveTasks"
            }]
          ) {
            expect(yield* fails(other.key, "delete_task_label", args, scope)).toEqual({
              code: "forbidden",
              message: `managing labels in project MAIN requires the project role admin; the caller is ${role}`
            })
          }
        }
        expect(yield* snapshot(key, scope)).toEqual(before)
        const admin = yield* joinAs(project.id, "dl-roles", "admin")
        const result = yield* ok(admin.key, "delete_task_label", { labelId: "Bug" }, scope)
        expect(sorted(result.affectedTaskIds)).toEqual(sorted(seeded.carriers))
      }))

    it.effect("a label of another project is not found, as labelId or reassignTo, and nothing changes in either project", () =>
      Effect.gen(function*() {
        const { key, organization, scope } = yield* seed("dl-projects")
        const other = yield* (yield* Projects).create({ organizationId: organization.id, name: "Other", ref: "OTHER" })
        const seeded = yield* labelled(key, scope)
        const { labelId: far } = yield* ok(key, "create_task_label", { name: "Far" }, scopedTo(other.id))
        const farTask = yield* createTask(key, scopedTo(other.id), { name: "Far task", label: far })
        const before = yield* snapshot(key, scope)
        const beforeOther = yield* snapshot(key, scopedTo(other.id))
        expect(yield* fails(key, "delete_task_label", { labelId: far }, scope)).toMatchObject({ code: "not_found" })
        expect(yield* fails(key, "delete_task_label", { labelId: "Far" }, scope)).toMatchObject({ code: "not_found" })
        expect(yield* fails(key, "delete_task_label", { labelId: seeded.bug }, scopedTo(other.id))).toMatchObject({ code: "not_found" })
        expect(yield* fails(key, "delete_task_label", { labelId: "Bug", resolution: "reassign", reassignTo: far }, scope))
          .toMatchObject({ code: "not_found" })
        expect(yield* snapshot(key, scope)).toEqual(before)
        expect(yield* snapshot(key, scopedTo(other.id))).toEqual(beforeOther)
        expect(yield* labelOf(key, scopedTo(other.id), farTask.taskId)).toMatchObject({ _id: far })
      }))
  })
})
