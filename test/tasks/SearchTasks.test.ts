import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { ResultOf } from "../../catalog/McpClient.js"
import { Projects } from "../../src/projects/Projects.js"
import { createProjectAgent, TestServer } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"
import { archiveTask, createTask, fails, idsOf, joinAs, ok, scopedTo, type Scope } from "../support/TaskTools.js"

const search = (key: string, scope: Scope, args: Record<string, unknown>) => ok(key, "search_tasks", args, scope)

const sorted = (ids: ReadonlyArray<string>) => [...ids].sort()

/** A fresh organization and project, its owner's key and the connection scope. */
const seed = (slug: string) => Effect.map(seedOwner(slug), (owner) => ({ ...owner, scope: scopedTo(owner.project.id) }))

describe("search_tasks", () => {
  layer(TestServer())((it) => {
    it.effect("full text finds tasks by words of the name, the ref and the Markdown description", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("search-text")
        const flux = yield* createTask(key, scope, { name: "Calibrate the flux capacitor" })
        const described = yield* createTask(key, scope, {
          name: "Unrelated title",
          description: "# Gearbox notes\n\nThe **gizmo** needs a `sprocket`.\n\n- a list item about widgets\n- 1. nested\n\n> quoted wombat"
        })
        expect(described.refId).toBe("MAIN-2")
        expect(idsOf((yield* search(key, scope, { query: "flux" })).tasks)).toEqual([flux.taskId])
        expect(idsOf((yield* search(key, scope, { query: "CAPACITOR" })).tasks)).toEqual([flux.taskId])
        for (const word of ["gearbox", "gizmo", "sprocket", "widgets", "wombat"]) {
          expect(idsOf((yield* search(key, scope, { query: word })).tasks), word).toEqual([described.taskId])
        }
        // Markdown syntax itself is not text: the stored text is the document's.
        expect((yield* search(key, scope, { query: "**gizmo**" })).tasks.map((task) => task.refId)).toEqual(["MAIN-2"])
        for (const ref of ["MAIN-2", "main-2"]) {
          const { tasks } = yield* search(key, scope, { query: ref })
          expect(tasks[0]?.taskId, ref).toBe(described.taskId)
          expect(idsOf(tasks)).not.toContain(flux.taskId)
        }
        expect(yield* search(key, scope, { query: "nothing-like-this" })).toEqual({ tasks: [], nextCursor: null })
      }))

    it.effect("results are task summaries; the description follows updates", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("search-shape")
        const task = yield* createTask(key, scope, { name: "Shape check", description: "old marmot" })
        const { tasks } = yield* search(key, scope, { query: "marmot" })
        expect(tasks).toEqual([expect.objectContaining({
          taskId: task.taskId,
          refId: "MAIN-1",
          name: "Shape check",
          status: "To Do",
          isArchived: false,
          list: expect.objectContaining({ ref: "BACKLOG" })
        })])
        yield* ok(key, "update_task", { taskId: task.taskId, description: "new ocelot" }, scope)
        expect((yield* search(key, scope, { query: "marmot" })).tasks).toEqual([])
        expect(idsOf((yield* search(key, scope, { query: "ocelot" })).tasks)).toEqual([task.taskId])
        yield* ok(key, "update_task", { taskId: task.taskId, description: null }, scope)
        expect((yield* search(key, scope, { query: "ocelot" })).tasks).toEqual([])
      }))

    it.effect("best matches first: a name match ranks above a description match, whatever the creation order", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("search-rank")
        const inDescription = yield* createTask(key, scope, { name: "Misc chores", description: "mentions the orbit once" })
        const inName = yield* createTask(key, scope, { name: "Orbit report" })
        const inBoth = yield* createTask(key, scope, { name: "Orbit audit", description: "orbit orbit orbit" })
        const { tasks } = yield* search(key, scope, { query: "orbit" })
        expect(idsOf(tasks)).toHaveLength(3)
        expect(idsOf(tasks).at(-1)).toBe(inDescription.taskId)
        expect(idsOf(tasks).slice(0, 2)).toEqual(expect.arrayContaining([inName.taskId, inBoth.taskId]))
      }))

    it.effect("a two-word query finds the tasks holding both words, in the name or the description", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("search-two")
        const both = yield* createTask(key, scope, { name: "Apple banana smoothie" })
        yield* createTask(key, scope, { name: "Apple pie" })
        yield* createTask(key, scope, { name: "Banana bread" })
        const split = yield* createTask(key, scope, { name: "Banana split", description: "served with apple" })
        const { tasks } = yield* search(key, scope, { query: "apple banana" })
        expect(sorted(idsOf(tasks))).toEqual(sorted([both.taskId, split.taskId]))
        // The name match (weight A for both words) ranks first.
        expect(tasks[0]?.taskId).toBe(both.taskId)
        expect(sorted(idsOf((yield* search(key, scope, { query: "apple OR banana" })).tasks))).toHaveLength(4)
        expect(idsOf((yield* search(key, scope, { query: "banana -apple" })).tasks)).toHaveLength(1)
      }))

    it.effect("archiveMode active (the default) leaves archived tasks out; archived finds only archived tasks", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("search-archive")
        const active = yield* createTask(key, scope, { name: "Quokka active" })
        const archived = yield* createTask(key, scope, { name: "Quokka archived" })
        yield* archiveTask(archived.taskId)
        expect(idsOf((yield* search(key, scope, { query: "quokka" })).tasks)).toEqual([active.taskId])
        expect(idsOf((yield* search(key, scope, { query: "quokka", archiveMode: "active" })).tasks)).toEqual([active.taskId])
        const found = yield* search(key, scope, { query: "quokka", archiveMode: "archived" })
        expect(found.tasks).toEqual([expect.objectContaining({ taskId: archived.taskId, isArchived: true })])
        expect(yield* fails(key, "search_tasks", { query: "quokka", archiveMode: "all" }, scope)).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("archiveMode")
        })
      }))

    it.effect("filters.status keeps the tasks of that status", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("search-status")
        yield* createTask(key, scope, { name: "Narwhal todo" })
        const doing = yield* createTask(key, scope, { name: "Narwhal doing", status: "In Progress" })
        const done = yield* createTask(key, scope, { name: "Narwhal done", status: "Done" })
        expect(idsOf((yield* search(key, scope, { query: "narwhal", filters: { status: "In Progress" } })).tasks)).toEqual([doing.taskId])
        expect(idsOf((yield* search(key, scope, { query: "narwhal", filters: { status: "Done" } })).tasks)).toEqual([done.taskId])
        expect((yield* search(key, scope, { query: "narwhal", filters: { status: "Canceled" } })).tasks).toEqual([])
        expect((yield* search(key, scope, { query: "narwhal", filters: {} })).tasks).toHaveLength(3)
      }))

    it.effect("filters.assigneeId keeps one owner's tasks; null keeps the tasks with no owner", () =>
      Effect.gen(function*() {
        const { key, project, scope, user } = yield* seed("search-owner")
        const member = yield* joinAs(project.id, "search-owner", "member")
        const mine = yield* createTask(key, scope, { name: "Lemur mine", assigneeId: user.id })
        const theirs = yield* createTask(key, scope, { name: "Lemur theirs", assigneeId: member.user.id })
        const nobody = yield* createTask(key, scope, { name: "Lemur nobody" })
        const byId = (assigneeId: string | null) =>
          Effect.map(search(key, scope, { query: "lemur", filters: { assigneeId } }), (page) => idsOf(page.tasks))
        expect(yield* byId(user.id)).toEqual([mine.taskId])
        expect(yield* byId(member.user.id)).toEqual([theirs.taskId])
        expect(yield* byId(null)).toEqual([nobody.taskId])
        expect(yield* byId("user_00000000000000000000000000000000")).toEqual([])
      }))

    it.effect("filters.delegatedToAgentId keeps one agent's tasks; null keeps the tasks not delegated", () =>
      Effect.gen(function*() {
        const { key, project, scope } = yield* seed("search-agent")
        const agent = yield* createProjectAgent(key, project.id, "Builder")
        const other = yield* createProjectAgent(key, project.id, "Reviewer")
        const delegated = yield* createTask(key, scope, { name: "Gecko delegated", delegatedToAgentId: agent })
        const ownerless = yield* createTask(key, scope, { name: "Gecko ownerless", delegatedToAgentId: agent, assigneeId: null })
        const toOther = yield* createTask(key, scope, { name: "Gecko other", delegatedToAgentId: other })
        const plain = yield* createTask(key, scope, { name: "Gecko plain" })
        const byAgent = (delegatedToAgentId: string | null, extra: Record<string, unknown> = {}) =>
          Effect.map(
            search(key, scope, { query: "gecko", filters: { delegatedToAgentId, ...extra } }),
            (page) => sorted(idsOf(page.tasks))
          )
        expect(yield* byAgent(agent)).toEqual(sorted([delegated.taskId, ownerless.taskId]))
        expect(yield* byAgent(other)).toEqual([toOther.taskId])
        expect(yield* byAgent(null)).toEqual([plain.taskId])
        // Filters combine: delegated to the agent and with no owner.
        expect(yield* byAgent(agent, { assigneeId: null })).toEqual([ownerless.taskId])
        const { tasks } = yield* search(key, scope, { query: "gecko", filters: { delegatedToAgentId: other } })
        expect(tasks[0]?.delegatedToAgent).toEqual({ projectAgentId: other, name: "Reviewer" })
      }))

    it.effect("listId keeps one List's tasks, by List ID or bare ref; an unknown List is not found", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("search-list")
        const { listId } = yield* ok(key, "create_task_list", { name: "Sprint", ref: "SPRINT" }, scope)
        const inSprint = yield* createTask(key, scope, { name: "Ibis sprint", listId })
        const inBacklog = yield* createTask(key, scope, { name: "Ibis backlog" })
        for (const address of [listId, "SPRINT", "sprint"]) {
          expect(idsOf((yield* search(key, scope, { query: "ibis", listId: address })).tasks), address).toEqual([inSprint.taskId])
        }
        expect(idsOf((yield* search(key, scope, { query: "ibis", listId: "BACKLOG" })).tasks)).toEqual([inBacklog.taskId])
        expect(yield* fails(key, "search_tasks", { query: "ibis", listId: "NOPE" }, scope)).toEqual({
          code: "not_found",
          message: "listId: list NOPE not found in project MAIN"
        })
      }))

    it.effect("limit is 1–50 and defaults to 20; 0, 51 and non-integers are rejected naming limit", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("search-limit")
        for (let n = 1; n <= 21; n++) yield* createTask(key, scope, { name: `Tapir ${n}` })
        const first = yield* search(key, scope, { query: "tapir" })
        expect(first.tasks).toHaveLength(20)
        expect(first.nextCursor).toEqual(expect.any(String))
        expect(yield* search(key, scope, { query: "tapir", limit: 50 })).toMatchObject({ nextCursor: null })
        expect((yield* search(key, scope, { query: "tapir", limit: 50 })).tasks).toHaveLength(21)
        expect((yield* search(key, scope, { query: "tapir", limit: 1 })).tasks).toHaveLength(1)
        for (const limit of [0, 51, -1, 2.5, "5"]) {
          expect(yield* fails(key, "search_tasks", { query: "tapir", limit }, scope), String(limit)).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("limit: ")
          })
        }
      }))

    it.effect("cursor pagination walks every match exactly once, in best-first order, and ends with a null cursor", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("search-pages")
        // Seven matches with several distinct scores and ties among them.
        const created = [
          yield* createTask(key, scope, { name: "Heron alpha" }),
          yield* createTask(key, scope, { name: "Heron beta", description: "heron heron" }),
          yield* createTask(key, scope, { name: "Other gamma", description: "a heron" }),
          yield* createTask(key, scope, { name: "Heron delta" }),
          yield* createTask(key, scope, { name: "Other epsilon", description: "heron" }),
          yield* createTask(key, scope, { name: "Heron heron zeta" }),
          yield* createTask(key, scope, { name: "Heron eta" })
        ]
        yield* createTask(key, scope, { name: "Not matching" })
        const all = yield* search(key, scope, { query: "heron", limit: 50 })
        expect(sorted(idsOf(all.tasks))).toEqual(sorted(idsOf(created)))
        const walked: Array<string> = []
        const sizes: Array<number> = []
        let cursor: string | null = null
        for (let page = 0; page < 10; page++) {
          const result: ResultOf<"search_tasks"> = yield* search(key, scope, { query: "heron", limit: 3, cursor })
          walked.push(...idsOf(result.tasks))
          sizes.push(result.tasks.length)
          cursor = result.nextCursor
          if (cursor === null) break
        }
        expect(sizes).toEqual([3, 3, 1])
        expect(new Set(walked).size).toBe(walked.length)
        expect(walked).toEqual(idsOf(all.tasks))
        // An explicit null cursor is the first page.
        expect(idsOf((yield* search(key, scope, { query: "heron", limit: 3, cursor: null })).tasks)).toEqual(walked.slice(0, 3))
      }))

    it.effect("a cursor that search_tasks did not return is a tool error naming cursor", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("search-cursor")
        yield* createTask(key, scope, { name: "Okapi" })
        const encode = (value: string) => Buffer.from(value).toString("base64url")
        for (const cursor of ["not a cursor", "%%%", encode("[\"a\",\"b\"]"), encode("{}"), encode("[1]"), 42]) {
          expect(yield* fails(key, "search_tasks", { query: "okapi", cursor }, scope), String(cursor)).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("cursor")
          })
        }
      }))

    it.effect("a blank or missing query is rejected naming query", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("search-blank")
        for (const args of [{ query: "" }, { query: "   \t" }, {}, { query: 7 }]) {
          expect(yield* fails(key, "search_tasks", args, scope), JSON.stringify(args)).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("query")
          })
        }
      }))

    it.effect("the legacy filters.assignee is rejected with a message pointing to filters.assigneeId", () =>
      Effect.gen(function*() {
        const { key, scope, user } = yield* seed("search-legacy")
        for (const assignee of [{ userId: user.id }, null, user.id]) {
          const error = yield* fails(key, "search_tasks", { query: "anything", filters: { assignee } }, scope)
          expect(error.code).toBe("invalid_argument")
          expect(error.message).toContain("filters.assignee")
          expect(error.message).toContain("filters.assigneeId")
        }
        expect(yield* fails(key, "search_tasks", { query: "anything", filters: { owner: user.id } }, scope)).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("filters")
        })
      }))

    it.effect("deleted tasks never appear, in either archive mode", () =>
      Effect.gen(function*() {
        const { key, scope } = yield* seed("search-deleted")
        const kept = yield* createTask(key, scope, { name: "Dingo kept" })
        const gone = yield* createTask(key, scope, { name: "Dingo gone" })
        const child = yield* createTask(key, scope, { name: "Dingo child", parentId: gone.taskId })
        const archivedGone = yield* createTask(key, scope, { name: "Dingo archived" })
        yield* archiveTask(archivedGone.taskId)
        yield* ok(key, "delete_task", { taskId: gone.taskId }, scope)
        yield* ok(key, "delete_task", { taskId: archivedGone.taskId }, scope)
        expect(idsOf((yield* search(key, scope, { query: "dingo" })).tasks)).toEqual([kept.taskId])
        expect((yield* search(key, scope, { query: "dingo", archiveMode: "archived" })).tasks).toEqual([])
        expect(idsOf((yield* search(key, scope, { query: "child" })).tasks)).not.toContain(child.taskId)
      }))

    it.effect("tasks of another project or organization never appear", () =>
      Effect.gen(function*() {
        const { key, organization, project, scope } = yield* seed("search-tenant")
        const sibling = yield* (yield* Projects).create({ organizationId: organization.id, name: "Sibling", ref: "SIB" })
        const stranger = yield* seed("search-stranger")
        const mine = yield* createTask(key, scope, { name: "Pangolin here" })
        yield* createTask(key, scopedTo(sibling.id), { name: "Pangolin sibling" })
        yield* createTask(stranger.key, stranger.scope, { name: "Pangolin stranger" })
        expect(idsOf((yield* search(key, scope, { query: "pangolin" })).tasks)).toEqual([mine.taskId])
        expect(idsOf((yield* search(key, {}, { projectId: project.id, query: "pangolin" })).tasks)).toEqual([mine.taskId])
        expect((yield* search(key, scopedTo(sibling.id), { query: "pangolin" })).tasks.map((task) => task.name)).toEqual([
          "Pangolin sibling"
        ])
        // The stranger's project itself is not found.
        expect(yield* fails(key, "search_tasks", { projectId: stranger.project.id, query: "pangolin" })).toEqual({
          code: "not_found",
          message: `projectId: project ${stranger.project.id} not found`
        })
        expect(yield* fails(stranger.key, "search_tasks", { query: "pangolin" }, scope)).toMatchObject({ code: "not_found" })
      }))

    it.effect("a viewer can search; without projectId or ?project= the call is a tool error naming projectId", () =>
      Effect.gen(function*() {
        const { key, project, scope } = yield* seed("search-viewer")
        const task = yield* createTask(key, scope, { name: "Visible vole" })
        const viewer = yield* joinAs(project.id, "search-viewer", "viewer")
        expect(idsOf((yield* search(viewer.key, scope, { query: "vole" })).tasks)).toEqual([task.taskId])
        expect(yield* fails(key, "search_tasks", { query: "vole" })).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("projectId: required")
        })
      }))
  })
})
