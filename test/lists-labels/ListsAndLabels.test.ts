import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { ProjectId } from "../../catalog/domain/Ids.js"
import type { ProjectRole } from "../../catalog/domain/Roles.js"
import { Memberships } from "../../src/orgs/Memberships.js"
import { Projects } from "../../src/projects/Projects.js"
import { TaskLists } from "../../src/lists-labels/TaskLists.js"
import { Users } from "../../src/orgs/Users.js"
import { createTask, fails, getTask, ok, scopedTo } from "../support/TaskTools.js"
import { TestServer } from "../support/TestServer.js"
import { createKey, seedOwner } from "../support/Seed.js"

/** A user with `role` in the owner's project, and their API key. */
const joinAs = (projectId: ProjectId, slug: string, role: ProjectRole) =>
  Effect.gen(function*() {
    const user = yield* (yield* Users).create({ name: `${role} of ${slug}`, email: `${role}@${slug}.test` })
    yield* (yield* Memberships).addToProject(projectId, user.id, role)
    return (yield* createKey(user.id, null)).secret
  })

describe("List and label tools over MCP", () => {
  layer(TestServer())((it) => {
    it.effect("list_task_lists uses the connection's ?project= and starts with the system BACKLOG", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("url-project")
        const page = yield* ok(key, "list_task_lists", {}, scopedTo(project.id))
        expect(page).toEqual({
          lists: [{
            listId: expect.stringMatching(/^list_[0-9a-f]{32}$/),
            ref: "BACKLOG",
            name: "Backlog",
            color: null,
            defaultViewMode: null,
            defaultBoardGroupBy: null,
            isSystem: true,
            createdAt: expect.any(String),
            updatedAt: expect.any(String)
          }],
          nextCursor: null
        })
        expect(yield* ok(key, "list_task_lists", { projectId: project.id })).toEqual(page)
      }))

    it.effect("an explicit projectId wins over ?project=", () =>
      Effect.gen(function*() {
        const { key, organization, project } = yield* seedOwner("explicit-project")
        const other = yield* (yield* Projects).create({ organizationId: organization.id, name: "Other", ref: "OTHER" })
        yield* ok(key, "create_task_list", { projectId: other.id, name: "Only in other" }, scopedTo(project.id))
        const inOther = yield* ok(key, "list_task_lists", {}, scopedTo(other.id))
        expect(inOther.lists.map((list) => list.ref)).toEqual(["BACKLOG", "ONLY-IN-OTHER"])
        expect((yield* ok(key, "list_task_lists", {}, scopedTo(project.id))).lists).toHaveLength(1)
      }))

    it.effect("without projectId or ?project= the List and label tools are a tool error naming projectId", () =>
      Effect.gen(function*() {
        const { key } = yield* seedOwner("no-project")
        for (
          const [name, args] of [
            ["list_task_lists", {}],
            ["create_task_list", { name: "X" }],
            ["update_task_list", { listId: "X", name: "Y" }],
            ["list_task_labels", {}],
            ["create_task_label", { name: "X" }],
            ["update_task_label", { labelId: "X", name: "Y" }]
          ] as const
        ) {
          expect(yield* fails(key, name, args)).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("projectId: required")
          })
        }
      }))

    it.effect("create_task_list returns { listId }, and list_task_lists shows the List with its fields", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("create-list")
        const created = yield* ok(key, "create_task_list", {
          name: "Sprint board",
          ref: "sprint",
          color: "purple",
          defaultViewMode: "board"
        }, scopedTo(project.id))
        expect(Object.keys(created)).toEqual(["listId"])
        const { lists } = yield* ok(key, "list_task_lists", {}, scopedTo(project.id))
        expect(lists[1]).toMatchObject({
          listId: created.listId,
          ref: "SPRINT",
          name: "Sprint board",
          color: "purple",
          defaultViewMode: "board",
          defaultBoardGroupBy: "status",
          isSystem: false
        })
        expect(new Date(lists[1]!.createdAt).toISOString()).toBe(lists[1]!.createdAt)
      }))

    it.effect("update_task_list takes a raw ID or a bare ref in any case and returns { listId }", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("update-list")
        const { listId } = yield* ok(key, "create_task_list", { name: "Ideas", color: "red" }, scopedTo(project.id))
        expect(yield* ok(key, "update_task_list", { listId: "ideas", name: "Later", color: null }, scopedTo(project.id)))
          .toEqual({ listId })
        expect(yield* ok(key, "update_task_list", { listId, ref: "later", defaultViewMode: "list" }, scopedTo(project.id)))
          .toEqual({ listId })
        const { lists } = yield* ok(key, "list_task_lists", { query: "later" }, scopedTo(project.id))
        expect(lists).toEqual([expect.objectContaining({ listId, ref: "LATER", name: "Later", color: null, defaultViewMode: "list" })])
      }))

    it.effect("list_task_lists pages with nextCursor and filters with query and archived", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("paging")
        for (const name of ["One", "Two", "Three"]) yield* ok(key, "create_task_list", { name }, scopedTo(project.id))
        const first = yield* ok(key, "list_task_lists", { limit: 3 }, scopedTo(project.id))
        expect(first.lists.map((list) => list.ref)).toEqual(["BACKLOG", "ONE", "TWO"])
        const second = yield* ok(key, "list_task_lists", { limit: 3, cursor: first.nextCursor }, scopedTo(project.id))
        expect(second).toMatchObject({ lists: [{ ref: "THREE" }], nextCursor: null })
        const found = yield* ok(key, "list_task_lists", { query: "T", cursor: null }, scopedTo(project.id))
        expect(found.lists.map((list) => list.ref)).toEqual(["TWO", "THREE"])
        expect((yield* ok(key, "list_task_lists", { archived: true }, scopedTo(project.id))).lists).toEqual([])
      }))

    it.effect("list_task_lists without a limit returns a page of 20 and a cursor to the rest", () =>
      Effect.gen(function*() {
        const { key, project, principal } = yield* seedOwner("default-page")
        const access = yield* (yield* Projects).access(principal, project.id)
        const lists = yield* TaskLists
        // The most a project holds: the Backlog and 20 active Lists, seeded through the service.
        for (let n = 1; n <= 20; n++) yield* lists.create(access, { name: `L${n}` })
        const first = yield* ok(key, "list_task_lists", {}, scopedTo(project.id))
        expect(first.lists.map((list) => list.ref)).toEqual(["BACKLOG", ...Array.from({ length: 19 }, (_, i) => `L${i + 1}`)])
        expect(first.nextCursor).not.toBeNull()
        const rest = yield* ok(key, "list_task_lists", { cursor: first.nextCursor }, scopedTo(project.id))
        expect(rest).toMatchObject({ lists: [{ ref: "L20" }], nextCursor: null })
      }))

    it.effect("a bad cursor or limit is an invalid_argument tool error naming the field", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("bad-paging")
        expect(yield* fails(key, "list_task_lists", { cursor: "not-a-cursor" }, scopedTo(project.id))).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("cursor: ")
        })
        for (const limit of [0, 51, 1.5, "10"]) {
          expect(yield* fails(key, "list_task_lists", { limit }, scopedTo(project.id))).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("limit: ")
          })
        }
      }))

    it.effect("List rules surface as tool errors: reserved ref, duplicate name or ref, system List, empty update", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("list-rules")
        const scope = scopedTo(project.id)
        yield* ok(key, "create_task_list", { name: "Design", ref: "DSN" }, scope)
        expect(yield* fails(key, "create_task_list", { name: "Archive", ref: "archived" }, scope)).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("ref: ARCHIVED is reserved")
        })
        expect(yield* fails(key, "create_task_list", { name: "design" }, scope)).toMatchObject({
          code: "conflict",
          message: expect.stringContaining("name: ")
        })
        expect(yield* fails(key, "create_task_list", { name: "Other", ref: "dsn" }, scope)).toMatchObject({
          code: "conflict",
          message: expect.stringContaining("ref: ")
        })
        expect(yield* fails(key, "update_task_list", { listId: "BACKLOG", color: "red" }, scope)).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("listId: BACKLOG is a system List")
        })
        expect(yield* fails(key, "update_task_list", { listId: "DSN", defaultBoardGroupBy: "label" }, scope)).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("name, ref, color, defaultViewMode: pass at least one")
        })
        expect(yield* fails(key, "update_task_list", { listId: "NOPE", name: "X" }, scope)).toMatchObject({
          code: "not_found",
          message: "listId: list NOPE not found in project MAIN"
        })
      }))

    it.effect("a 21st active List is a limit_exceeded tool error", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("list-limit")
        for (let n = 1; n <= 20; n++) yield* ok(key, "create_task_list", { name: `L${n}` }, scopedTo(project.id))
        expect(yield* fails(key, "create_task_list", { name: "L21" }, scopedTo(project.id))).toMatchObject({
          code: "limit_exceeded",
          message: expect.stringContaining("20 active Lists")
        })
      }))

    it.effect("argument validation names the field: name over 80 characters, malformed ref, unknown color or view", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("list-args")
        const scope = scopedTo(project.id)
        expect(yield* fails(key, "create_task_list", { name: "x".repeat(81) }, scope)).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("name: must be at most 80 characters")
        })
        expect(yield* fails(key, "create_task_list", { name: "   " }, scope)).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("name: must not be empty")
        })
        expect(yield* fails(key, "create_task_list", { name: "Ok", ref: "9lives" }, scope)).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("ref: must be 1–20 letters")
        })
        for (const [field, value] of [["color", "chartreuse"], ["defaultViewMode", "table"], ["defaultBoardGroupBy", "due"]]) {
          expect(yield* fails(key, "create_task_list", { name: "Ok", [field as string]: value }, scope)).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining(`${field}: `)
          })
        }
        expect(yield* fails(key, "update_task_list", { name: "No target" }, scope)).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("listId")
        })
      }))

    it.effect("label tools: create returns { labelId }, list returns { labels: [{ _id, name, color }] } in column order, update by name", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("labels")
        const scope = scopedTo(project.id)
        expect(yield* ok(key, "list_task_labels", {}, scope)).toEqual({ labels: [] })
        const bug = yield* ok(key, "create_task_label", { name: "Bug", color: "rose" }, scope)
        expect(bug).toEqual({ labelId: expect.stringMatching(/^label_[0-9a-f]{32}$/) })
        const docs = yield* ok(key, "create_task_label", { name: "Docs" }, scope)
        expect(yield* ok(key, "list_task_labels", {}, scope)).toEqual({
          labels: [{ _id: bug.labelId, name: "Bug", color: "rose" }, { _id: docs.labelId, name: "Docs", color: "blue" }]
        })
        expect(yield* ok(key, "update_task_label", { labelId: "docs", name: "Documentation", color: "sky" }, scope))
          .toEqual({ labelId: docs.labelId })
        expect(yield* ok(key, "update_task_label", { labelId: bug.labelId, color: "red" }, scope)).toEqual({ labelId: bug.labelId })
        expect((yield* ok(key, "list_task_labels", { projectId: project.id })).labels).toEqual([
          { _id: bug.labelId, name: "Bug", color: "red" },
          { _id: docs.labelId, name: "Documentation", color: "sky" }
        ])
      }))

    it.effect("a renamed label stays on its tasks: they show the new name and color, and the new name (not the old) assigns it", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("label-rename")
        const scope = scopedTo(project.id)
        const bug = yield* ok(key, "create_task_label", { name: "Bug", color: "rose" }, scope)
        const tasks = []
        for (const name of ["Crash on save", "Wrong total"]) {
          tasks.push(yield* createTask(key, scope, { name, label: "bug" }))
        }
        yield* ok(key, "update_task_label", { labelId: "Bug", name: "Defect", color: "red" }, scope)

        for (const task of tasks) {
          expect((yield* getTask(key, task.taskId, scope)).label).toEqual({ _id: bug.labelId, name: "Defect", color: "red" })
        }
        const third = yield* createTask(key, scope, { name: "Slow search", label: "defect" })
        expect((yield* getTask(key, third.taskId, scope)).label).toEqual({ _id: bug.labelId, name: "Defect", color: "red" })
        expect(yield* fails(key, "create_task", { name: "Old name", label: "Bug" }, scope)).toMatchObject({ code: "not_found" })
      }))

    it.effect("label rules surface as tool errors: duplicate name, unknown label, empty update, bad color, long name, 21st label", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("label-rules")
        const scope = scopedTo(project.id)
        yield* ok(key, "create_task_label", { name: "Bug" }, scope)
        expect(yield* fails(key, "create_task_label", { name: "BUG" }, scope)).toMatchObject({
          code: "conflict",
          message: expect.stringContaining("name: ")
        })
        expect(yield* fails(key, "update_task_label", { labelId: "Feature", color: "red" }, scope)).toMatchObject({
          code: "not_found",
          message: "labelId: label Feature not found in project MAIN"
        })
        expect(yield* fails(key, "update_task_label", { labelId: "Bug" }, scope)).toMatchObject({
          code: "invalid_argument",
          message: "name, color: pass at least one to change"
        })
        expect(yield* fails(key, "create_task_label", { name: "Odd", color: "mauve" }, scope)).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("color: ")
        })
        expect(yield* fails(key, "create_task_label", { name: "y".repeat(51) }, scope)).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("name: must be at most 50 characters")
        })
        for (let n = 2; n <= 20; n++) yield* ok(key, "create_task_label", { name: `Label ${n}` }, scope)
        expect(yield* fails(key, "create_task_label", { name: "Label 21" }, scope)).toMatchObject({
          code: "limit_exceeded",
          message: expect.stringContaining("20 labels")
        })
      }))

    it.effect("a viewer can read Lists and labels but not create or update them", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("viewer")
        const scope = scopedTo(project.id)
        yield* ok(key, "create_task_list", { name: "Visible" }, scope)
        yield* ok(key, "create_task_label", { name: "Seen" }, scope)
        const viewer = yield* joinAs(project.id, "viewer", "viewer")
        expect((yield* ok(viewer, "list_task_lists", {}, scope)).lists.map((list) => list.ref)).toEqual(["BACKLOG", "VISIBLE"])
        expect((yield* ok(viewer, "list_task_labels", {}, scope)).labels.map((label) => label.name)).toEqual(["Seen"])
        for (
          const [name, args, role] of [
            ["create_task_list", { name: "Mine" }, "member or admin"],
            ["update_task_list", { listId: "VISIBLE", name: "Mine" }, "member or admin"],
            ["create_task_label", { name: "Mine" }, "admin"],
            ["update_task_label", { labelId: "Seen", name: "Mine" }, "admin"]
          ] as const
        ) {
          expect(yield* fails(viewer, name, args, scope)).toMatchObject({
            code: "forbidden",
            message: expect.stringContaining(`requires the project role ${role}; the caller is viewer`)
          })
        }
      }))

    it.effect("a project member can manage Lists but not labels", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("member")
        const scope = scopedTo(project.id)
        yield* ok(key, "create_task_label", { name: "Seen" }, scope)
        const member = yield* joinAs(project.id, "member", "member")
        const { listId } = yield* ok(member, "create_task_list", { name: "Team" }, scope)
        expect(yield* ok(member, "update_task_list", { listId, color: "green" }, scope)).toEqual({ listId })
        expect(yield* fails(member, "create_task_label", { name: "Mine" }, scope)).toMatchObject({ code: "forbidden" })
        expect(yield* fails(member, "update_task_label", { labelId: "Seen", color: "red" }, scope)).toMatchObject({ code: "forbidden" })
      }))

    it.effect("Lists and labels of another organization are not found, never leaked", () =>
      Effect.gen(function*() {
        const mine = yield* seedOwner("iso-mine")
        const theirs = yield* seedOwner("iso-theirs")
        const secret = yield* ok(theirs.key, "create_task_list", { name: "Secret plans", ref: "SECRET" }, scopedTo(theirs.project.id))
        const label = yield* ok(theirs.key, "create_task_label", { name: "Classified" }, scopedTo(theirs.project.id))
        const scope = scopedTo(mine.project.id)
        for (const listId of [secret.listId, "SECRET"]) {
          const error = yield* fails(mine.key, "update_task_list", { listId, name: "Mine now" }, scope)
          expect(error).toEqual({ code: "not_found", message: `listId: list ${listId} not found in project MAIN` })
        }
        for (const labelId of [label.labelId, "Classified"]) {
          const error = yield* fails(mine.key, "update_task_label", { labelId, name: "Mine now" }, scope)
          expect(error).toEqual({ code: "not_found", message: `labelId: label ${labelId} not found in project MAIN` })
        }
        // Their project itself is not found either, by argument or by URL.
        for (const name of ["list_task_lists", "list_task_labels"]) {
          const error = yield* fails(mine.key, name, { projectId: theirs.project.id })
          expect(error).toMatchObject({ code: "not_found", message: `projectId: project ${theirs.project.id} not found` })
          expect(yield* fails(mine.key, name, {}, scopedTo(theirs.project.id))).toMatchObject({ code: "not_found" })
        }
        const { lists } = yield* ok(mine.key, "list_task_lists", { query: "secret" }, scope)
        expect(lists).toEqual([])
        expect(yield* ok(mine.key, "list_task_labels", {}, scope)).toEqual({ labels: [] })
      }))

    it.effect("a List or label of another project in the same organization is not found in this one", () =>
      Effect.gen(function*() {
        const { key, organization, project } = yield* seedOwner("iso-projects")
        const other = yield* (yield* Projects).create({ organizationId: organization.id, name: "Other", ref: "OTHER" })
        const { listId } = yield* ok(key, "create_task_list", { name: "Elsewhere", ref: "ELSE" }, scopedTo(other.id))
        yield* ok(key, "create_task_label", { name: "Far" }, scopedTo(other.id))
        for (const address of [listId, "ELSE"]) {
          expect(yield* fails(key, "update_task_list", { listId: address, name: "Here" }, scopedTo(project.id))).toMatchObject({
            code: "not_found",
            message: `listId: list ${address} not found in project MAIN`
          })
        }
        expect(yield* fails(key, "update_task_label", { labelId: "Far", name: "Near" }, scopedTo(project.id))).toMatchObject({
          code: "not_found"
        })
      }))
  })
})
