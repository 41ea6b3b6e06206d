import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { ProjectId } from "../../catalog/domain/Ids.js"
import type { ProjectRole } from "../../catalog/domain/Roles.js"
import { Memberships } from "../../src/orgs/Memberships.js"
import { Projects } from "../../src/projects/Projects.js"
import { Users } from "../../src/orgs/Users.js"
import { callTool, createKey, createProjectAgent, seedOwner, TestServer } from "../support/TestServer.js"

interface ToolCallResult {
  readonly result: { readonly isError?: boolean; readonly structuredContent: unknown }
}
interface ToolErrorBody {
  readonly code: string
  readonly message: string
}
interface Created {
  readonly taskId: string
  readonly refId: string | null
  readonly taskPath: string | null
  readonly taskUrl: string | null
}
interface ExternalLink {
  readonly id: string
  readonly kind: string
  readonly createdAt: string
  readonly updatedAt: string
  readonly [field: string]: unknown
}
interface TaskSummary {
  readonly taskId: string
  readonly refId: string
  readonly name: string
  readonly taskTypeKey: string
  readonly status: string
  readonly priority: string
  readonly dueDate: number | null
  readonly assignee: { readonly userId: string; readonly name: string; readonly email: string } | null
  readonly delegatedToAgent: { readonly projectAgentId: string; readonly name: string } | null
  readonly label: { readonly _id: string; readonly name: string; readonly color: string } | null
  readonly tags: ReadonlyArray<string>
  readonly list: { readonly listId: string; readonly ref: string; readonly name: string } | null
  readonly parentId: string | null
  readonly subtaskCount: number
  readonly isArchived: boolean
  readonly createdAt: string
  readonly updatedAt: string
  readonly externalLinks?: ReadonlyArray<ExternalLink>
}
interface TaskDetails extends TaskSummary {
  readonly projectId: string
  readonly scopedRef: string
  readonly taskPath: string | null
  readonly taskUrl: string | null
  readonly description: unknown
  readonly descriptionMarkdown: string
  readonly externalLinks: ReadonlyArray<ExternalLink>
  readonly comments: ReadonlyArray<{
    readonly commentId: string
    readonly authorId: string
    readonly authorName: string
    readonly content: string
    readonly createdAt: string
  }>
  readonly subtasks: ReadonlyArray<{
    readonly taskId: string
    readonly refId: string
    readonly name: string
    readonly status: string
    readonly priority: string
    readonly subtaskCount: number
  }>
}
interface TaskList {
  readonly tasks: ReadonlyArray<TaskSummary>
}
type GetTasksEntry =
  | { readonly identifier: string; readonly task: TaskDetails }
  | { readonly identifier: string; readonly error: ToolErrorBody }
interface LinksResult {
  readonly taskId: string
  readonly externalLinks: ReadonlyArray<ExternalLink>
}

type CallOptions = { readonly path?: string }

/** The connection URL with `?project=`, as an MCP client would be configured. */
const scopedTo = (projectId: ProjectId): CallOptions => ({ path: `/api/mcp?project=${projectId}` })

const call = (key: string, name: string, args: unknown, options: CallOptions = {}) =>
  Effect.map(callTool(key, name, args, options), (res) => {
    expect(res.status).toBe(200)
    return (res.json as ToolCallResult).result
  })

/** Calls a tool that must succeed and returns its structured result. */
const ok = <T>(key: string, name: string, args: unknown, options: CallOptions = {}) =>
  Effect.map(call(key, name, args, options), (result) => {
    expect(result.isError, JSON.stringify(result.structuredContent)).toBeUndefined()
    return result.structuredContent as T
  })

/** Calls a tool that must fail and returns its error body. */
const fails = (key: string, name: string, args: unknown, options: CallOptions = {}) =>
  Effect.map(call(key, name, args, options), (result) => {
    expect(result.isError, JSON.stringify(result.structuredContent)).toBe(true)
    return (result.structuredContent as { readonly error: ToolErrorBody }).error
  })

const createTask = (key: string, projectId: ProjectId, args: Record<string, unknown> = {}) =>
  ok<Created>(key, "create_task", { name: "A task", ...args }, scopedTo(projectId))

const getTask = (key: string, taskId: string, options: CallOptions = {}) =>
  ok<TaskDetails>(key, "get_task", { taskId }, options)

const listTasks = (key: string, projectId: ProjectId, args: Record<string, unknown> = {}) =>
  Effect.map(ok<TaskList>(key, "list_tasks", args, scopedTo(projectId)), (result) => result.tasks)

const refsOf = (tasks: ReadonlyArray<{ readonly refId: string }>) => tasks.map((task) => task.refId)

/** A user with `role` in the project, and their API key. */
const joinAs = (projectId: ProjectId, slug: string, role: ProjectRole, name = `${role} of ${slug}`) =>
  Effect.gen(function* () {
    const user = yield* (yield* Users).create({ name, email: `${role}@${slug}.test` })
    yield* (yield* Memberships).addToProject(projectId, user.id, role)
    return { user, key: (yield* createKey(user.id, null)).secret }
  })

/** Archives a task (no tool archives yet). */
const archive = (taskId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE tasks SET archived_at = now() WHERE id = ${taskId}`.pipe(Effect.orDie))

const url = (id: string, address = `https://example.com/${id}`) => ({ id, kind: "url", url: address })

const doc = (...content: ReadonlyArray<unknown>) => ({ type: "doc", content })
const paragraph = (text: string) => ({ type: "paragraph", content: [{ type: "text", text }] })

const noRateLimit = { rateLimit: Option.none() }

describe("task tools over MCP", () => {
  layer(TestServer(noRateLimit))((it) => {
    // ---- addressing -------------------------------------------------------------------------

    it.effect("a task is found by document ID, by bare ref with projectId or ?project=, and by scoped ref, refs in any case", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("address")
        yield* createTask(key, project.id, { name: "First" })
        const { taskId } = yield* createTask(key, project.id, { name: "Second" })
        const byId = yield* getTask(key, taskId)
        expect(byId).toMatchObject({ taskId, refId: "MAIN-2", name: "Second", projectId: project.id, scopedRef: "address/MAIN-2" })
        for (const ref of ["MAIN-2", "main-2", "Main-2"]) {
          expect(yield* ok<TaskDetails>(key, "get_task", { taskId: ref, projectId: project.id })).toEqual(byId)
          expect(yield* getTask(key, ref, scopedTo(project.id))).toEqual(byId)
        }
        for (const ref of ["address/MAIN-2", "ADDRESS/main-2", "Address/Main-2"]) {
          expect(yield* getTask(key, ref)).toEqual(byId)
        }
      }))

    it.effect("a bare ref without projectId or ?project= is a tool error naming projectId", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("bare-noproject")
        yield* createTask(key, project.id)
        for (const [name, args] of [
          ["get_task", { taskId: "MAIN-1" }],
          ["update_task", { taskId: "MAIN-1", name: "X" }],
          ["update_task_link", { taskId: "MAIN-1", op: "delete", id: "x" }],
          ["create_task_comment", { taskId: "MAIN-1", content: "hi" }]
        ] as const) {
          expect(yield* fails(key, name, args)).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("projectId: ")
          })
        }
        const { tasks } = yield* ok<{ tasks: ReadonlyArray<GetTasksEntry> }>(key, "get_tasks", { identifiers: ["MAIN-1"] })
        expect(tasks).toEqual([{ identifier: "MAIN-1", error: { code: "invalid_argument", message: expect.stringContaining("projectId: ") } }])
        expect(yield* fails(key, "list_tasks", {})).toMatchObject({ code: "invalid_argument", message: expect.stringContaining("projectId: required") })
        expect(yield* fails(key, "create_task", { name: "X" })).toMatchObject({ code: "invalid_argument", message: expect.stringContaining("projectId: required") })
      }))

    it.effect("a malformed task address is a tool error naming taskId", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("malformed")
        yield* createTask(key, project.id)
        for (const taskId of ["not a ref", "MAIN", "MAIN-", "-1", "task_123", "MAIN-1-2", "a/b/MAIN-1"]) {
          expect(yield* fails(key, "get_task", { taskId }, scopedTo(project.id))).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("taskId: ")
          })
        }
        expect(yield* fails(key, "get_task", { taskId: "" }, scopedTo(project.id))).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("taskId: ")
        })
        expect(yield* fails(key, "get_task", {}, scopedTo(project.id))).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("taskId")
        })
      }))

    it.effect("an unknown task ID, number, project ref or organization slug is not found", () =>
      Effect.gen(function* () {
        const { key, organization, project } = yield* seedOwner("unknown")
        yield* createTask(key, project.id)
        const other = yield* (yield* Projects).create({ organizationId: organization.id, name: "Other", ref: "OTHER" })
        yield* createTask(key, other.id, { name: "Other's first" })
        for (const taskId of ["MAIN-2", "OTHER-1", "NOPE-1", "unknown/MAIN-2", "nowhere/MAIN-1", "task_" + "0".repeat(32)]) {
          expect(yield* fails(key, "get_task", { taskId }, scopedTo(project.id))).toMatchObject({
            code: "not_found",
            message: expect.stringContaining(taskId)
          })
        }
        // OTHER-1 is found in its own project.
        expect(yield* getTask(key, "other-1", scopedTo(other.id))).toMatchObject({ name: "Other's first" })
        expect(yield* getTask(key, "unknown/OTHER-1")).toMatchObject({ name: "Other's first" })
      }))

    it.effect("a label is given by ID or exact name ignoring case, a List by ID or bare ref in any case", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("label-list")
        const scope = scopedTo(project.id)
        const { labelId } = yield* ok<{ labelId: string }>(key, "create_task_label", { name: "Needs Review", color: "rose" }, scope)
        const { listId } = yield* ok<{ listId: string }>(key, "create_task_list", { name: "Sprint 1", ref: "SPRINT" }, scope)
        const byName = yield* createTask(key, project.id, { label: "needs review", listId: "sprint" })
        const byId = yield* createTask(key, project.id, { label: labelId, listId })
        for (const { taskId } of [byName, byId]) {
          expect(yield* getTask(key, taskId)).toMatchObject({
            label: { _id: labelId, name: "Needs Review", color: "rose" },
            list: { listId, ref: "SPRINT", name: "Sprint 1" }
          })
        }
        const { taskId } = yield* createTask(key, project.id)
        yield* ok(key, "update_task", { taskId, label: "NEEDS REVIEW" })
        expect((yield* getTask(key, taskId)).label?._id).toBe(labelId)
        expect(yield* fails(key, "create_task", { name: "X", label: "Needs" }, scope)).toMatchObject({ code: "not_found" })
        expect(yield* fails(key, "update_task", { taskId, label: "Nope" })).toMatchObject({ code: "not_found" })
        expect(yield* fails(key, "create_task", { name: "X", listId: "NOPE" }, scope)).toMatchObject({
          code: "not_found",
          message: expect.stringContaining("listId: ")
        })
        expect(refsOf(yield* listTasks(key, project.id))).toEqual(["MAIN-1", "MAIN-2", "MAIN-3"])
      }))

    // ---- create_task ------------------------------------------------------------------------

    it.effect("create_task returns { taskId, refId, taskPath, taskUrl }; refs count up per project; path and URL are null without TRELLIS_APP_URL", () =>
      Effect.gen(function* () {
        const { key, organization, project } = yield* seedOwner("create")
        const first = yield* createTask(key, project.id, { name: "One" })
        expect(first).toEqual({ taskId: expect.stringMatching(/^task_[0-9a-f]{32}$/), refId: "MAIN-1", taskPath: null, taskUrl: null })
        expect(Object.keys(first).sort()).toEqual(["refId", "taskId", "taskPath", "taskUrl"])
        expect((yield* createTask(key, project.id, { name: "Two" })).refId).toBe("MAIN-2")
        expect((yield* ok<Created>(key, "create_task", { name: "Three", projectId: project.id })).refId).toBe("MAIN-3")
        const other = yield* (yield* Projects).create({ organizationId: organization.id, name: "Other", ref: "OTHER" })
        expect((yield* createTask(key, other.id)).refId).toBe("OTHER-1")
        expect((yield* createTask(key, project.id, { name: "Four" })).refId).toBe("MAIN-4")
        const details = yield* getTask(key, first.taskId)
        expect(details).toMatchObject({ taskId: first.taskId, refId: "MAIN-1", name: "One", taskPath: null, taskUrl: null })
      }))

    it.effect("create_task defaults: taskTypeKey task, priority None, status To Do, List BACKLOG, tags [], no owner, agent, label or due date", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("defaults")
        const { taskId } = yield* createTask(key, project.id, { name: "  Plain  " })
        const task = yield* getTask(key, taskId)
        expect(task).toMatchObject({
          taskId,
          refId: "MAIN-1",
          name: "Plain",
          taskTypeKey: "task",
          priority: "None",
          status: "To Do",
          list: { ref: "BACKLOG", name: "Backlog" },
          tags: [],
          assignee: null,
          delegatedToAgent: null,
          label: null,
          dueDate: null,
          parentId: null,
          subtaskCount: 0,
          isArchived: false,
          description: null,
          descriptionMarkdown: "",
          externalLinks: [],
          artifacts: [],
          files: [],
          comments: [],
          subtasks: []
        })
        expect(new Date(task.createdAt).toISOString()).toBe(task.createdAt)
        const [listed] = yield* listTasks(key, project.id)
        const { projectId: _p, scopedRef: _s, taskPath: _tp, taskUrl: _tu, description: _d, descriptionMarkdown: _dm, externalLinks: _l, artifacts: _a, files: _f, comments: _c, subtasks: _st, ...summary } =
          task as TaskDetails & { artifacts: unknown; files: unknown }
        expect(listed).toEqual(summary)
      }))

    it.effect("taskTypeKey takes only the built-in keys; any other is rejected naming taskTypeKey", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("types")
        for (const taskTypeKey of ["task", "bug", "feature", "epic", "investigation", "chore", "idea"]) {
          const { taskId } = yield* createTask(key, project.id, { taskTypeKey })
          expect((yield* getTask(key, taskId)).taskTypeKey).toBe(taskTypeKey)
        }
        for (const taskTypeKey of ["story", "Bug", "", "custom_type"]) {
          expect(yield* fails(key, "create_task", { name: "X", taskTypeKey }, scopedTo(project.id))).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("taskTypeKey: ")
          })
          expect(yield* fails(key, "update_task", { taskId: "MAIN-1", taskTypeKey }, scopedTo(project.id))).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("taskTypeKey: ")
          })
        }
        expect(yield* listTasks(key, project.id)).toHaveLength(7)
      }))

    it.effect("status must be one of the project's statuses, on create and update", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("statuses")
        for (const status of ["To Do", "In Progress", "In Review", "Done", "Canceled"]) {
          const { taskId } = yield* createTask(key, project.id, { status })
          expect((yield* getTask(key, taskId)).status).toBe(status)
        }
        for (const status of ["Blocked", "done", ""]) {
          expect(yield* fails(key, "create_task", { name: "X", status }, scopedTo(project.id))).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("status: ")
          })
          expect(yield* fails(key, "update_task", { taskId: "MAIN-1", status }, scopedTo(project.id))).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("status: ")
          })
        }
        expect((yield* getTask(key, "MAIN-1", scopedTo(project.id))).status).toBe("To Do")
        expect(yield* listTasks(key, project.id)).toHaveLength(5)
      }))

    it.effect("a name is required, not blank and at most 500 characters", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("names")
        const scope = scopedTo(project.id)
        for (const args of [{}, { name: "   " }, { name: "x".repeat(501) }]) {
          expect(yield* fails(key, "create_task", args, scope)).toMatchObject({ code: "invalid_argument", message: expect.stringContaining("name") })
        }
        const { taskId } = yield* createTask(key, project.id, { name: "y".repeat(500) })
        expect(yield* fails(key, "update_task", { taskId, name: " " })).toMatchObject({ code: "invalid_argument", message: expect.stringContaining("name: ") })
        expect(yield* listTasks(key, project.id)).toHaveLength(1)
      }))

    it.effect("a description in Markdown, plain text or ProseMirror JSON is stored as ProseMirror JSON and read back with descriptionMarkdown", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("descriptions")
        const markdown = yield* createTask(key, project.id, { description: "# Plan\n\nShip **it** now" })
        expect(yield* getTask(key, markdown.taskId)).toMatchObject({
          description: doc(
            { type: "heading", attrs: { level: 1 }, content: [{ type: "text", text: "Plan" }] },
            { type: "paragraph", content: [{ type: "text", text: "Ship " }, { type: "text", marks: [{ type: "bold" }], text: "it" }, { type: "text", text: " now" }] }
          ),
          descriptionMarkdown: "# Plan\n\nShip **it** now"
        })
        const plain = yield* createTask(key, project.id, { description: "just some words" })
        expect(yield* getTask(key, plain.taskId)).toMatchObject({ description: doc(paragraph("just some words")), descriptionMarkdown: "just some words" })
        const stored = doc(paragraph("From the editor"), { type: "bulletList", content: [{ type: "listItem", content: [paragraph("one")] }] })
        const json = yield* createTask(key, project.id, { description: JSON.stringify(stored) })
        expect(yield* getTask(key, json.taskId)).toMatchObject({ description: stored, descriptionMarkdown: "From the editor\n\n* one" })
        // update_task takes the same three forms.
        yield* ok(key, "update_task", { taskId: plain.taskId, description: JSON.stringify(stored) })
        expect((yield* getTask(key, plain.taskId)).description).toEqual(stored)
        yield* ok(key, "update_task", { taskId: json.taskId, description: "*changed*" })
        expect(yield* getTask(key, json.taskId)).toMatchObject({
          description: doc({ type: "paragraph", content: [{ type: "text", marks: [{ type: "italic" }], text: "changed" }] }),
          descriptionMarkdown: "*changed*"
        })
      }))

    it.effect("a description that is invalid ProseMirror JSON is rejected naming description, and nothing is written", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("bad-descriptions")
        const { taskId } = yield* createTask(key, project.id, { description: "kept" })
        for (const description of [
          JSON.stringify(doc({ type: "table", content: [] })),
          JSON.stringify(doc({ type: "paragraph", content: [{ type: "text", text: "x", marks: [{ type: "underline" }] }] })),
          JSON.stringify(doc(paragraph(""))),
          JSON.stringify({ type: "doc", content: [{ type: "text", text: "bare text in doc" }] }),
          "{\"type\": \"doc\", \"content\": [" // does not parse
        ]) {
          expect(yield* fails(key, "create_task", { name: "X", description }, scopedTo(project.id))).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("description: ")
          })
          expect(yield* fails(key, "update_task", { taskId, description })).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("description: ")
          })
        }
        expect(yield* listTasks(key, project.id)).toHaveLength(1)
        expect((yield* getTask(key, taskId)).descriptionMarkdown).toBe("kept")
      }))

    it.effect("externalLinks on create: up to 20 kept in order, 21 rejected, duplicate link ids rejected", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("create-links")
        const scope = scopedTo(project.id)
        const twenty = Array.from({ length: 20 }, (_, i) => url(`link-${i}`))
        const { taskId } = yield* createTask(key, project.id, { externalLinks: twenty })
        const { externalLinks } = yield* getTask(key, taskId)
        expect(externalLinks.map((link) => link.id)).toEqual(twenty.map((link) => link.id))
        expect(externalLinks[0]).toEqual({ id: "link-0", kind: "url", url: "https://example.com/link-0", createdAt: expect.any(String), updatedAt: expect.any(String) })
        expect(yield* fails(key, "create_task", { name: "X", externalLinks: [...twenty, url("link-20")] }, scope)).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("externalLinks: ")
        })
        expect(yield* fails(key, "create_task", { name: "X", externalLinks: [url("same"), url("other"), url("same", "https://b.example")] }, scope))
          .toMatchObject({ code: "invalid_argument", message: expect.stringContaining("externalLinks: ") })
        expect(yield* fails(key, "create_task", { name: "X", externalLinks: [{ id: "c", kind: "commit", sha: "xyz" }] }, scope))
          .toMatchObject({ code: "invalid_argument", message: expect.stringContaining("externalLinks") })
        expect(yield* listTasks(key, project.id)).toHaveLength(1)
      }))

    it.effect("parentId makes a subtask: the parent's get_task lists it in subtasks with its subtaskCount", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("subtasks")
        const parent = yield* createTask(key, project.id, { name: "Parent" })
        const child = yield* createTask(key, project.id, { name: "Child", parentId: "main-1", priority: "High" })
        const second = yield* createTask(key, project.id, { name: "Second child", parentId: parent.taskId })
        yield* createTask(key, project.id, { name: "Grandchild", parentId: child.taskId })
        yield* createTask(key, project.id, { name: "Grandchild 2", parentId: "subtasks/MAIN-2" })
        const details = yield* getTask(key, parent.taskId)
        expect(details.subtaskCount).toBe(2)
        expect(details.subtasks).toEqual([
          { taskId: child.taskId, refId: "MAIN-2", name: "Child", status: "To Do", priority: "High", subtaskCount: 2 },
          { taskId: second.taskId, refId: "MAIN-3", name: "Second child", status: "To Do", priority: "None", subtaskCount: 0 }
        ])
        expect(yield* getTask(key, child.taskId)).toMatchObject({ parentId: parent.taskId, subtaskCount: 2 })
        expect(yield* listTasks(key, project.id)).toHaveLength(5)
      }))

    it.effect("a parent in another project is rejected, one the caller cannot see is not found, and nothing is created", () =>
      Effect.gen(function* () {
        const { key, organization, project } = yield* seedOwner("parents")
        const other = yield* (yield* Projects).create({ organizationId: organization.id, name: "Other", ref: "OTHER" })
        const elsewhere = yield* createTask(key, other.id, { name: "Elsewhere" })
        for (const parentId of [elsewhere.taskId, "parents/OTHER-1"]) {
          expect(yield* fails(key, "create_task", { name: "X", parentId }, scopedTo(project.id))).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("parentId: ")
          })
        }
        // A bare ref is read in the task's own project, where OTHER-1 does not exist.
        expect(yield* fails(key, "create_task", { name: "X", parentId: "OTHER-1" }, scopedTo(project.id))).toMatchObject({ code: "not_found" })
        const stranger = yield* seedOwner("parents-stranger")
        const hidden = yield* createTask(stranger.key, stranger.project.id, { name: "Hidden" })
        expect(yield* fails(key, "create_task", { name: "X", parentId: hidden.taskId }, scopedTo(project.id))).toMatchObject({ code: "not_found" })
        expect(yield* fails(key, "create_task", { name: "X", parentId: "not a ref" }, scopedTo(project.id))).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("parentId: ")
        })
        expect(yield* listTasks(key, project.id)).toEqual([])
        expect((yield* getTask(stranger.key, hidden.taskId)).subtasks).toEqual([])
      }))

    // ---- assignment -------------------------------------------------------------------------

    it.effect("the removed assignee object argument is rejected with an error saying to use assigneeId", () =>
      Effect.gen(function* () {
        const { key, project, user } = yield* seedOwner("removed-assignee")
        const scope = scopedTo(project.id)
        expect(yield* fails(key, "create_task", { name: "X", assignee: { userId: user.id } }, scope)).toMatchObject({
          code: "invalid_argument",
          message: expect.stringMatching(/assignee: .*assigneeId/)
        })
        expect(yield* listTasks(key, project.id)).toEqual([])
        const { taskId } = yield* createTask(key, project.id)
        expect(yield* fails(key, "update_task", { taskId, assignee: { userId: user.id } })).toMatchObject({
          code: "invalid_argument",
          message: expect.stringMatching(/assignee: .*assigneeId/)
        })
        expect((yield* getTask(key, taskId)).assignee).toBeNull()
      }))

    it.effect("payloads carry assignee { userId, name, email } and delegatedToAgent { projectAgentId, name }", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("projections")
        const member = yield* joinAs(project.id, "projections", "member", "Mia Member")
        const agentId = yield* createProjectAgent(key, project.id, "Builder bot")
        const { taskId } = yield* createTask(key, project.id, { assigneeId: member.user.id, delegatedToAgentId: agentId })
        const expected = {
          assignee: { userId: member.user.id, name: "Mia Member", email: "member@projections.test" },
          delegatedToAgent: { projectAgentId: agentId, name: "Builder bot" }
        }
        expect(yield* getTask(key, taskId)).toMatchObject(expected)
        expect((yield* listTasks(key, project.id))[0]).toMatchObject(expected)
      }))

    it.effect("clearing the delegation keeps the owner", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("clear-delegation")
        const member = yield* joinAs(project.id, "clear-delegation", "member")
        const agentId = yield* createProjectAgent(key, project.id, "Agent")
        const { taskId } = yield* createTask(key, project.id, { assigneeId: member.user.id, delegatedToAgentId: agentId })
        yield* ok(key, "update_task", { taskId, delegatedToAgentId: null })
        expect(yield* getTask(key, taskId)).toMatchObject({ assignee: { userId: member.user.id }, delegatedToAgent: null })
      }))

    it.effect("changing the owner keeps the delegation", () =>
      Effect.gen(function* () {
        const { key, project, user } = yield* seedOwner("change-owner")
        const member = yield* joinAs(project.id, "change-owner", "member")
        const agentId = yield* createProjectAgent(key, project.id, "Agent")
        const { taskId } = yield* createTask(key, project.id, { delegatedToAgentId: agentId })
        expect(yield* getTask(key, taskId)).toMatchObject({ assignee: { userId: user.id }, delegatedToAgent: { projectAgentId: agentId } })
        yield* ok(key, "update_task", { taskId, assigneeId: member.user.id })
        expect(yield* getTask(key, taskId)).toMatchObject({ assignee: { userId: member.user.id }, delegatedToAgent: { projectAgentId: agentId } })
        yield* ok(key, "update_task", { taskId, assigneeId: null })
        expect(yield* getTask(key, taskId)).toMatchObject({ assignee: null, delegatedToAgent: { projectAgentId: agentId } })
      }))

    it.effect("delegating an ownerless task makes the caller its owner unless assigneeId: null is passed, on create and update", () =>
      Effect.gen(function* () {
        const { key, project, user } = yield* seedOwner("delegate")
        const member = yield* joinAs(project.id, "delegate", "member")
        const agentId = yield* createProjectAgent(key, project.id, "Agent")
        // create
        const owned = yield* createTask(key, project.id, { delegatedToAgentId: agentId })
        expect(yield* getTask(key, owned.taskId)).toMatchObject({ assignee: { userId: user.id }, delegatedToAgent: { projectAgentId: agentId } })
        const ownerless = yield* createTask(key, project.id, { delegatedToAgentId: agentId, assigneeId: null })
        expect(yield* getTask(key, ownerless.taskId)).toMatchObject({ assignee: null, delegatedToAgent: { projectAgentId: agentId } })
        const explicit = yield* createTask(key, project.id, { delegatedToAgentId: agentId, assigneeId: member.user.id })
        expect((yield* getTask(key, explicit.taskId)).assignee?.userId).toBe(member.user.id)
        // update: the caller (here the member, not the creator) becomes the owner
        const plain = yield* createTask(key, project.id)
        yield* ok(member.key, "update_task", { taskId: plain.taskId, delegatedToAgentId: agentId })
        expect(yield* getTask(key, plain.taskId)).toMatchObject({ assignee: { userId: member.user.id }, delegatedToAgent: { projectAgentId: agentId } })
        const stays = yield* createTask(key, project.id)
        yield* ok(member.key, "update_task", { taskId: stays.taskId, delegatedToAgentId: agentId, assigneeId: null })
        expect(yield* getTask(key, stays.taskId)).toMatchObject({ assignee: null, delegatedToAgent: { projectAgentId: agentId } })
        // a task that has an owner keeps it when delegated by someone else
        yield* ok(key, "update_task", { taskId: explicit.taskId, delegatedToAgentId: null })
        yield* ok(key, "update_task", { taskId: explicit.taskId, delegatedToAgentId: agentId })
        expect((yield* getTask(key, explicit.taskId)).assignee?.userId).toBe(member.user.id)
      }))

    it.effect("an agent of another project and an assignee who is not a project member are rejected, and nothing changes", () =>
      Effect.gen(function* () {
        const { key, organization, project } = yield* seedOwner("assign-rules")
        const scope = scopedTo(project.id)
        const other = yield* (yield* Projects).create({ organizationId: organization.id, name: "Other", ref: "OTHER" })
        const foreignAgent = yield* createProjectAgent(key, other.id, "Foreign agent")
        const outsider = yield* joinAs(other.id, "assign-rules", "member")
        const nobody = yield* (yield* Users).create({ name: "Nobody", email: "nobody@assign-rules.test" })
        for (const agentId of [foreignAgent, "agent_" + "0".repeat(32), "not-an-agent"]) {
          const error = yield* fails(key, "create_task", { name: "X", delegatedToAgentId: agentId }, scope)
          expect(error.message).toContain("delegatedToAgentId")
        }
        for (const userId of [outsider.user.id, nobody.id, "user_" + "0".repeat(32)]) {
          expect(yield* fails(key, "create_task", { name: "X", assigneeId: userId }, scope)).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("assigneeId: ")
          })
        }
        expect(yield* listTasks(key, project.id)).toEqual([])
        const { taskId } = yield* createTask(key, project.id)
        expect((yield* fails(key, "update_task", { taskId, delegatedToAgentId: foreignAgent })).message).toContain("delegatedToAgentId")
        expect(yield* fails(key, "update_task", { taskId, assigneeId: outsider.user.id })).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("assigneeId: ")
        })
        // A failing field leaves the others unwritten too.
        expect((yield* fails(key, "update_task", { taskId, name: "Renamed", delegatedToAgentId: foreignAgent })).message).toContain("delegatedToAgentId")
        expect(yield* getTask(key, taskId)).toMatchObject({ name: "A task", assignee: null, delegatedToAgent: null })
      }))

    it.effect("an archived project agent cannot be delegated to", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("archived-agent")
        const agentId = yield* createProjectAgent(key, project.id, "Retired")
        // Nothing archives an agent yet but the database.
        yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE project_agents SET archived_at = now() WHERE id = ${agentId}`.pipe(Effect.orDie))
        expect((yield* fails(key, "create_task", { name: "X", delegatedToAgentId: agentId }, scopedTo(project.id))).message).toContain("delegatedToAgentId")
      }))

    // ---- update_task ------------------------------------------------------------------------

    it.effect("update_task changes only the given fields and returns { taskId }", () =>
      Effect.gen(function* () {
        const { key, project, user } = yield* seedOwner("partial")
        const scope = scopedTo(project.id)
        yield* ok(key, "create_task_label", { name: "Area" }, scope)
        const agentId = yield* createProjectAgent(key, project.id, "Agent")
        const { taskId } = yield* createTask(key, project.id, {
          name: "Full",
          description: "Some *text*",
          taskTypeKey: "bug",
          priority: "High",
          status: "In Progress",
          dueDate: 1_767_225_600,
          assigneeId: user.id,
          delegatedToAgentId: agentId,
          tags: ["a", "b"],
          label: "Area",
          externalLinks: [url("l1")]
        })
        const before = yield* getTask(key, taskId)
        expect(yield* ok(key, "update_task", { taskId: "MAIN-1", name: "Renamed" }, scope)).toEqual({ taskId })
        const after = yield* getTask(key, taskId)
        expect({ ...after, updatedAt: before.updatedAt }).toEqual({ ...before, name: "Renamed" })
        yield* ok(key, "update_task", { taskId, priority: "Low" })
        expect({ ...(yield* getTask(key, taskId)), updatedAt: before.updatedAt }).toEqual({ ...before, name: "Renamed", priority: "Low" })
        // An update with nothing to change is accepted and changes nothing.
        expect(yield* ok(key, "update_task", { taskId })).toEqual({ taskId })
        expect((yield* getTask(key, taskId)).priority).toBe("Low")
      }))

    it.effect("null clears description, dueDate, assigneeId, delegatedToAgentId and label; taskTypeKey: null resets to task", () =>
      Effect.gen(function* () {
        const { key, project, user } = yield* seedOwner("clearing")
        yield* ok(key, "create_task_label", { name: "Area" }, scopedTo(project.id))
        const agentId = yield* createProjectAgent(key, project.id, "Agent")
        const { taskId } = yield* createTask(key, project.id, {
          description: "words",
          taskTypeKey: "epic",
          dueDate: 1_767_225_600,
          assigneeId: user.id,
          delegatedToAgentId: agentId,
          label: "area",
          tags: ["kept"],
          priority: "Medium"
        })
        yield* ok(key, "update_task", {
          taskId,
          description: null,
          dueDate: null,
          assigneeId: null,
          delegatedToAgentId: null,
          label: null,
          taskTypeKey: null
        })
        expect(yield* getTask(key, taskId)).toMatchObject({
          description: null,
          descriptionMarkdown: "",
          dueDate: null,
          assignee: null,
          delegatedToAgent: null,
          label: null,
          taskTypeKey: "task",
          tags: ["kept"],
          priority: "Medium"
        })
        for (const field of ["name", "priority", "status", "tags"]) {
          expect(yield* fails(key, "update_task", { taskId, [field]: null })).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining(`${field}: `)
          })
        }
      }))

    it.effect("tags replaces the whole list", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("tags")
        const { taskId } = yield* createTask(key, project.id, { tags: ["backend", "urgent"] })
        expect((yield* getTask(key, taskId)).tags).toEqual(["backend", "urgent"])
        yield* ok(key, "update_task", { taskId, tags: ["frontend"] })
        expect((yield* getTask(key, taskId)).tags).toEqual(["frontend"])
        yield* ok(key, "update_task", { taskId, name: "Other field" })
        expect((yield* getTask(key, taskId)).tags).toEqual(["frontend"])
        yield* ok(key, "update_task", { taskId, tags: [] })
        expect((yield* getTask(key, taskId)).tags).toEqual([])
      }))

    it.effect("dueDate is a Unix timestamp in seconds and reads back the same", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("due")
        const due = 1_767_225_600 // 2026-01-01T00:00:00Z
        const { taskId } = yield* createTask(key, project.id, { dueDate: due })
        expect((yield* getTask(key, taskId)).dueDate).toBe(due)
        expect((yield* listTasks(key, project.id))[0]?.dueDate).toBe(due)
        yield* ok(key, "update_task", { taskId, dueDate: 1_700_000_000 })
        expect((yield* getTask(key, taskId)).dueDate).toBe(1_700_000_000)
        for (const dueDate of ["2026-01-01", "tomorrow"]) {
          expect(yield* fails(key, "update_task", { taskId, dueDate })).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("dueDate: ")
          })
        }
        expect((yield* getTask(key, taskId)).dueDate).toBe(1_700_000_000)
      }))

    // ---- list_tasks -------------------------------------------------------------------------

    it.effect("list_tasks statuses: omitted lists every status, [] lists none, a filter keeps the matching ones", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("status-filter")
        for (const status of ["To Do", "In Progress", "Done", "In Progress", "Canceled"]) yield* createTask(key, project.id, { status })
        expect(refsOf(yield* listTasks(key, project.id))).toEqual(["MAIN-1", "MAIN-2", "MAIN-3", "MAIN-4", "MAIN-5"])
        expect(yield* listTasks(key, project.id, { statuses: [] })).toEqual([])
        expect(refsOf(yield* listTasks(key, project.id, { statuses: ["In Progress", "Done"] }))).toEqual(["MAIN-2", "MAIN-3", "MAIN-4"])
        expect(refsOf(yield* listTasks(key, project.id, { statuses: ["Canceled"] }))).toEqual(["MAIN-5"])
        expect(yield* listTasks(key, project.id, { statuses: ["Blocked"] })).toEqual([])
        expect(refsOf(yield* ok<TaskList>(key, "list_tasks", { projectId: project.id, statuses: ["To Do"] }).pipe(Effect.map((r) => r.tasks))))
          .toEqual(["MAIN-1"])
      }))

    it.effect("list_tasks listId keeps one List's tasks, by List ID or ref", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("list-filter")
        const scope = scopedTo(project.id)
        const { listId } = yield* ok<{ listId: string }>(key, "create_task_list", { name: "Sprint" }, scope)
        yield* createTask(key, project.id)
        yield* createTask(key, project.id, { listId: "SPRINT" })
        yield* createTask(key, project.id, { listId })
        yield* createTask(key, project.id, { listId: "backlog" })
        expect(refsOf(yield* listTasks(key, project.id, { listId }))).toEqual(["MAIN-2", "MAIN-3"])
        expect(refsOf(yield* listTasks(key, project.id, { listId: "sprint" }))).toEqual(["MAIN-2", "MAIN-3"])
        expect(refsOf(yield* listTasks(key, project.id, { listId: "BACKLOG" }))).toEqual(["MAIN-1", "MAIN-4"])
        expect(refsOf(yield* listTasks(key, project.id, { listId: "sprint", statuses: ["Done"] }))).toEqual([])
        expect(yield* fails(key, "list_tasks", { listId: "NOPE" }, scope)).toMatchObject({ code: "not_found", message: expect.stringContaining("listId: ") })
      }))

    it.effect("list_tasks leaves archived tasks out unless includeArchived", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("archived")
        yield* createTask(key, project.id)
        const archived = yield* createTask(key, project.id)
        yield* createTask(key, project.id)
        yield* archive(archived.taskId)
        expect(refsOf(yield* listTasks(key, project.id))).toEqual(["MAIN-1", "MAIN-3"])
        expect(refsOf(yield* listTasks(key, project.id, { includeArchived: false }))).toEqual(["MAIN-1", "MAIN-3"])
        const all = yield* listTasks(key, project.id, { includeArchived: true })
        expect(all.map((task) => [task.refId, task.isArchived])).toEqual([["MAIN-1", false], ["MAIN-2", true], ["MAIN-3", false]])
        // An archived task is still readable directly.
        expect(yield* getTask(key, archived.taskId)).toMatchObject({ refId: "MAIN-2", isArchived: true })
      }))

    it.effect("list_tasks adds each task's externalLinks only with includeLinks", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("include-links")
        yield* createTask(key, project.id, { externalLinks: [url("a"), { id: "b", kind: "branch", name: "feat/x" }] })
        yield* createTask(key, project.id)
        const plain = yield* listTasks(key, project.id)
        expect(plain.every((task) => !("externalLinks" in task))).toBe(true)
        expect(yield* listTasks(key, project.id, { includeLinks: false })).toEqual(plain)
        const withLinks = yield* listTasks(key, project.id, { includeLinks: true })
        expect(withLinks.map((task) => task.externalLinks?.map((link) => link.id))).toEqual([["a", "b"], []])
        expect(withLinks[0]?.externalLinks?.[1]).toEqual({ id: "b", kind: "branch", name: "feat/x", createdAt: expect.any(String), updatedAt: expect.any(String) })
      }))

    // ---- get_tasks --------------------------------------------------------------------------

    it.effect("get_tasks takes up to 25 identifiers and answers in input order; 26 or none are rejected", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("batch")
        const scope = scopedTo(project.id)
        const created = []
        for (let n = 1; n <= 3; n++) created.push(yield* createTask(key, project.id, { name: `T${n}` }))
        const identifiers = [created[2]!.taskId, "main-1", "batch/MAIN-2"]
        const { tasks } = yield* ok<{ tasks: ReadonlyArray<GetTasksEntry> }>(key, "get_tasks", { identifiers }, scope)
        expect(tasks.map((entry) => entry.identifier)).toEqual(identifiers)
        expect(tasks.map((entry) => "task" in entry ? entry.task.name : null)).toEqual(["T3", "T1", "T2"])
        expect(tasks[1]).toEqual({ identifier: "main-1", task: yield* getTask(key, created[0]!.taskId) })
        const twentyFive = Array.from({ length: 25 }, (_, i) => `MAIN-${(i % 3) + 1}`)
        const full = yield* ok<{ tasks: ReadonlyArray<GetTasksEntry> }>(key, "get_tasks", { identifiers: twentyFive, projectId: project.id })
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
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("batch-missing")
        const first = yield* createTask(key, project.id, { name: "First" })
        yield* createTask(key, project.id, { name: "Second" })
        const stranger = yield* seedOwner("batch-stranger")
        const hidden = yield* createTask(stranger.key, stranger.project.id, { name: "Hidden" })
        const identifiers = ["MAIN-1", "MAIN-99", "not a ref!", hidden.taskId, "batch-stranger/MAIN-1", first.taskId, "MAIN-2"]
        const { tasks } = yield* ok<{ tasks: ReadonlyArray<GetTasksEntry> }>(key, "get_tasks", { identifiers }, scopedTo(project.id))
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

    // ---- update_task_link -------------------------------------------------------------------

    it.effect("update_task_link upsert adds a link and returns { taskId, externalLinks } with the full list", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("links-add")
        const { taskId } = yield* createTask(key, project.id, { externalLinks: [url("first")] })
        const result = yield* ok<LinksResult>(key, "update_task_link", {
          taskId: "MAIN-1",
          op: "upsert",
          id: "pr:42",
          link: { kind: "pull_request", url: "https://git.example.com/pr/42", title: "Fix", identifier: "#42", repo: "acme/app", branch: "fix" }
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
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("links-replace")
        const { taskId } = yield* createTask(key, project.id)
        for (const id of ["a", "b", "c"]) {
          yield* ok(key, "update_task_link", { taskId, op: "upsert", id, link: { kind: "url", url: `https://example.com/${id}`, title: `Title ${id}` } })
        }
        const before = (yield* getTask(key, taskId)).externalLinks
        // Real time must pass for updatedAt to move (it.effect runs on the TestClock).
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
        const { externalLinks } = yield* ok<LinksResult>(key, "update_task_link", {
          taskId,
          op: "upsert",
          id: "b",
          link: { kind: "commit", sha: "abcdef1" }
        })
        expect(externalLinks.map((link) => link.id)).toEqual(["a", "b", "c"])
        expect(externalLinks[1]).toEqual({ id: "b", kind: "commit", sha: "abcdef1", createdAt: before[1]!.createdAt, updatedAt: expect.any(String) })
        expect(Date.parse(externalLinks[1]!.updatedAt)).toBeGreaterThan(Date.parse(before[1]!.updatedAt))
        expect(externalLinks[0]).toEqual(before[0])
        expect(externalLinks[2]).toEqual(before[2])
      }))

    it.effect("update_task_link delete removes a link and is idempotent", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("links-delete")
        const { taskId } = yield* createTask(key, project.id, { externalLinks: [url("a"), url("b"), url("c")] })
        const first = yield* ok<LinksResult>(key, "update_task_link", { taskId, op: "delete", id: "b" })
        expect(first).toEqual({ taskId, externalLinks: [expect.objectContaining({ id: "a" }), expect.objectContaining({ id: "c" })] })
        expect(yield* ok(key, "update_task_link", { taskId, op: "delete", id: "b" })).toEqual(first)
        expect(yield* ok(key, "update_task_link", { taskId, op: "delete", id: "never-there" })).toEqual(first)
        // A re-added id goes last.
        const readded = yield* ok<LinksResult>(key, "update_task_link", { taskId, op: "upsert", id: "b", link: { kind: "url", url: "https://example.com/b2" } })
        expect(readded.externalLinks.map((link) => link.id)).toEqual(["a", "c", "b"])
      }))

    it.effect("a task holds at most 20 links: the 21st upsert is limit_exceeded, replacing one still works", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("links-limit")
        const { taskId } = yield* createTask(key, project.id, { externalLinks: Array.from({ length: 19 }, (_, i) => url(`l${i}`)) })
        yield* ok(key, "update_task_link", { taskId, op: "upsert", id: "l19", link: { kind: "url", url: "https://example.com/19" } })
        expect(yield* fails(key, "update_task_link", { taskId, op: "upsert", id: "l20", link: { kind: "url", url: "https://example.com/20" } }))
          .toMatchObject({ code: "limit_exceeded", message: expect.stringContaining("20") })
        const replaced = yield* ok<LinksResult>(key, "update_task_link", { taskId, op: "upsert", id: "l0", link: { kind: "branch", name: "main" } })
        expect(replaced.externalLinks).toHaveLength(20)
        expect(replaced.externalLinks[0]).toMatchObject({ id: "l0", kind: "branch", name: "main" })
        yield* ok(key, "update_task_link", { taskId, op: "delete", id: "l5" })
        const again = yield* ok<LinksResult>(key, "update_task_link", { taskId, op: "upsert", id: "l20", link: { kind: "url", url: "https://example.com/20" } })
        expect(again.externalLinks).toHaveLength(20)
        expect((yield* getTask(key, taskId)).externalLinks.map((link) => link.id)).not.toContain("l5")
      }))

    it.effect("links are validated by kind: commit sha of 7–64 hex, branch name, http(s) URLs only", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("links-kinds")
        const { taskId } = yield* createTask(key, project.id)
        const upsert = (id: string, link: unknown) => ({ taskId, op: "upsert", id, link })
        for (const link of [
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
        ]) {
          expect(yield* fails(key, "update_task_link", upsert("x", link)), JSON.stringify(link)).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("link")
          })
        }
        expect((yield* getTask(key, taskId)).externalLinks).toEqual([])
        for (const [id, link] of [
          ["c7", { kind: "commit", sha: "ABCDEF1" }],
          ["c64", { kind: "commit", sha: "0123456789abcdef".repeat(4), title: "t", repo: "r", branch: "b", url: "https://example.com/c" }],
          ["br", { kind: "branch", name: "feat/x", repo: "acme/app", url: "http://example.com/br" }],
          ["pr", { kind: "pull_request", url: "http://example.com/pr/1" }],
          ["u", { kind: "url", url: "https://example.com/page?q=1#h", title: "Page" }]
        ] as const) {
          yield* ok(key, "update_task_link", upsert(id, link))
        }
        const { externalLinks } = yield* getTask(key, taskId)
        expect(externalLinks.map((link) => link.id)).toEqual(["c7", "c64", "br", "pr", "u"])
        expect(externalLinks[1]).toMatchObject({ kind: "commit", sha: "0123456789abcdef".repeat(4), title: "t", repo: "r", branch: "b", url: "https://example.com/c" })
      }))

    it.effect("a link id is 1–160 characters of a-zA-Z0-9._:-", () =>
      Effect.gen(function* () {
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
        expect(yield* fails(key, "create_task", { name: "X", externalLinks: [{ ...link, id: "a b" }] }, scopedTo(project.id))).toMatchObject({
          code: "invalid_argument"
        })
        const longest = "aZ09._:-".repeat(20)
        for (const id of ["a", longest]) yield* ok(key, "update_task_link", { taskId, op: "upsert", id, link })
        expect((yield* getTask(key, taskId)).externalLinks.map((l) => l.id)).toEqual(["a", longest])
      }))

    it.effect("op upsert without link is rejected naming link; an unknown op is rejected", () =>
      Effect.gen(function* () {
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

    // ---- create_task_comment ----------------------------------------------------------------

    it.effect("create_task_comment takes non-blank Markdown; the comment appears in get_task with its authorName", () =>
      Effect.gen(function* () {
        const { key, project, user } = yield* seedOwner("comments")
        const member = yield* joinAs(project.id, "comments", "member", "Mel Member")
        const { taskId } = yield* createTask(key, project.id)
        const first = yield* ok<{ commentId: string; taskId: string }>(key, "create_task_comment", { taskId: "MAIN-1", content: "  Looks **good**\n" }, scopedTo(project.id))
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
          { commentId: first.commentId, authorId: user.id, authorName: "Owner of comments", content: "Looks **good**", createdAt: expect.any(String) },
          { commentId: expect.any(String), authorId: member.user.id, authorName: "Mel Member", content: "Agreed", createdAt: expect.any(String) }
        ])
      }))

    it.effect("get_task returns the latest 50 comments, oldest first", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("many-comments")
        const { taskId } = yield* createTask(key, project.id)
        for (let n = 1; n <= 52; n++) yield* ok(key, "create_task_comment", { taskId, content: `comment ${n}` })
        const { comments } = yield* getTask(key, taskId)
        expect(comments.map((comment) => comment.content)).toEqual(Array.from({ length: 50 }, (_, i) => `comment ${i + 3}`))
      }))

    // ---- permissions and isolation ----------------------------------------------------------

    it.effect("a viewer can read tasks, but every write tool is a forbidden tool error and nothing changes", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("viewer")
        const scope = scopedTo(project.id)
        const { taskId } = yield* createTask(key, project.id, { name: "Visible", externalLinks: [url("a")] })
        const viewer = yield* joinAs(project.id, "viewer", "viewer")
        const seen = yield* getTask(viewer.key, "MAIN-1", scope)
        expect(seen).toMatchObject({ taskId, name: "Visible" })
        expect(refsOf(yield* listTasks(viewer.key, project.id))).toEqual(["MAIN-1"])
        const { tasks } = yield* ok<{ tasks: ReadonlyArray<GetTasksEntry> }>(viewer.key, "get_tasks", { identifiers: [taskId] })
        expect(tasks).toEqual([{ identifier: taskId, task: seen }])
        for (const [name, args] of [
          ["create_task", { name: "Mine" }],
          ["update_task", { taskId, name: "Mine" }],
          ["update_task", { taskId }],
          ["update_task_link", { taskId, op: "upsert", id: "b", link: { kind: "url", url: "https://example.com/b" } }],
          ["update_task_link", { taskId, op: "delete", id: "a" }],
          ["create_task_comment", { taskId, content: "Mine" }]
        ] as const) {
          expect(yield* fails(viewer.key, name, args, scope), name).toMatchObject({
            code: "forbidden",
            message: expect.stringContaining("viewer")
          })
        }
        expect(yield* getTask(key, taskId)).toEqual(seen)
        expect(yield* listTasks(key, project.id)).toHaveLength(1)
      }))

    it.effect("a task of another organization is not found for a stranger, by ID or scoped ref, and nothing changes", () =>
      Effect.gen(function* () {
        const owner = yield* seedOwner("iso-owner")
        const stranger = yield* seedOwner("iso-stranger")
        const { taskId } = yield* createTask(owner.key, owner.project.id, { name: "Secret", externalLinks: [url("a")] })
        const before = yield* getTask(owner.key, taskId)
        for (const address of [taskId, "iso-owner/MAIN-1", "ISO-OWNER/main-1"]) {
          for (const [name, args] of [
            ["get_task", { taskId: address }],
            ["update_task", { taskId: address, name: "Pwned", status: "Done" }],
            ["update_task_link", { taskId: address, op: "upsert", id: "evil", link: { kind: "url", url: "https://evil.example" } }],
            ["update_task_link", { taskId: address, op: "delete", id: "a" }],
            ["create_task_comment", { taskId: address, content: "pwned" }]
          ] as const) {
            const error = yield* fails(stranger.key, name, args, scopedTo(stranger.project.id))
            expect(error, `${name} ${address}`).toMatchObject({ code: "not_found" })
            expect(JSON.stringify(error)).not.toContain("Secret")
          }
        }
        // A bare ref with their project is not found either.
        expect(yield* fails(stranger.key, "get_task", { taskId: "MAIN-1", projectId: owner.project.id })).toMatchObject({ code: "not_found" })
        expect(yield* fails(stranger.key, "list_tasks", { projectId: owner.project.id })).toMatchObject({ code: "not_found" })
        expect(yield* fails(stranger.key, "create_task", { name: "Planted", projectId: owner.project.id })).toMatchObject({ code: "not_found" })
        expect(yield* fails(stranger.key, "create_task", { name: "Planted", parentId: taskId }, scopedTo(stranger.project.id))).toMatchObject({ code: "not_found" })
        expect(yield* getTask(owner.key, taskId)).toEqual(before)
        expect(yield* listTasks(owner.key, owner.project.id)).toHaveLength(1)
        expect(yield* listTasks(stranger.key, stranger.project.id)).toEqual([])
      }))

    it.effect("a key narrowed away from the project gets forbidden or not found, never data", () =>
      Effect.gen(function* () {
        const { key, organization, project, user } = yield* seedOwner("narrowed")
        const other = yield* (yield* Projects).create({ organizationId: organization.id, name: "Other", ref: "OTHER" })
        const { taskId } = yield* createTask(key, project.id, { name: "Out of reach" })
        const before = yield* getTask(key, taskId)
        const narrowed = (yield* createKey(user.id, [other.id])).secret
        for (const [name, args, options] of [
          ["get_task", { taskId }, {}],
          ["get_task", { taskId: "narrowed/MAIN-1" }, {}],
          ["get_task", { taskId: "MAIN-1" }, scopedTo(project.id)],
          ["list_tasks", { projectId: project.id }, {}],
          ["create_task", { name: "X" }, scopedTo(project.id)],
          ["update_task", { taskId, name: "Changed" }, {}],
          ["update_task_link", { taskId, op: "upsert", id: "x", link: { kind: "url", url: "https://x.example" } }, {}],
          ["create_task_comment", { taskId: "narrowed/MAIN-1", content: "hi" }, {}]
        ] as const) {
          const result = yield* call(narrowed, name, args, options)
          expect(result.isError, name).toBe(true)
          expect(["forbidden", "not_found"]).toContain((result.structuredContent as { error: ToolErrorBody }).error.code)
          expect(JSON.stringify(result)).not.toContain("Out of reach")
        }
        const { tasks } = yield* ok<{ tasks: ReadonlyArray<GetTasksEntry> }>(narrowed, "get_tasks", { identifiers: [taskId, "narrowed/MAIN-1"] })
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

  layer(TestServer(noRateLimit))((it) => {
    it.effect("tags are stored and read back as a JSON array", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("bug-tags")
        const { taskId } = yield* createTask(key, project.id, { tags: ["backend", "urgent"] })
        expect((yield* getTask(key, taskId)).tags).toEqual(["backend", "urgent"])
        const plain = yield* createTask(key, project.id)
        expect((yield* getTask(key, plain.taskId)).tags).toEqual([])
        yield* ok(key, "update_task", { taskId: plain.taskId, tags: ["x"] })
        expect((yield* getTask(key, plain.taskId)).tags).toEqual(["x"])
      }))

    it.effect("an unrepresentable dueDate is invalid_argument naming dueDate", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("bug-due")
        const { taskId } = yield* createTask(key, project.id)
        for (const dueDate of [1e13, -8e12]) {
          expect(yield* fails(key, "create_task", { name: "X", dueDate }, scopedTo(project.id)))
            .toMatchObject({ code: "invalid_argument", message: expect.stringContaining("dueDate") })
          expect(yield* fails(key, "update_task", { taskId, dueDate }))
            .toMatchObject({ code: "invalid_argument", message: expect.stringContaining("dueDate") })
        }
      }))

    it.effect("a ProseMirror JSON description is recognised whatever its key order", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("bug-json")
        const description = JSON.stringify({ content: [paragraph("hi")], type: "doc" })
        const { taskId } = yield* createTask(key, project.id, { description })
        expect(yield* getTask(key, taskId)).toMatchObject({ description: doc(paragraph("hi")), descriptionMarkdown: "hi" })
      }))

    it.effect("a ProseMirror link to a javascript: URL is refused naming description", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("bug-href")
        const description = JSON.stringify(doc({
          type: "paragraph",
          content: [{ type: "text", text: "x", marks: [{ type: "link", attrs: { href: "javascript:alert(1)" } }] }]
        }))
        expect(yield* fails(key, "create_task", { name: "X", description }, scopedTo(project.id)))
          .toMatchObject({ code: "invalid_argument", message: expect.stringMatching(/^description: /) })
      }))

    it.effect("a missing parent or label is reported under its own argument's name", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("bug-fields")
        expect(yield* fails(key, "create_task", { name: "X", parentId: "MAIN-9" }, scopedTo(project.id)))
          .toMatchObject({ code: "not_found", message: expect.stringMatching(/^parentId: /) })
        expect(yield* fails(key, "create_task", { name: "X", label: "nope" }, scopedTo(project.id)))
          .toMatchObject({ code: "not_found", message: expect.stringMatching(/^label: /) })
      }))
  })

  layer(TestServer({ ...noRateLimit, appUrl: Option.some("https://app.example.com/") }))((it) => {
    it.effect("with TRELLIS_APP_URL, create_task and get_task give the task's path and full URL", () =>
      Effect.gen(function* () {
        const { key, project } = yield* seedOwner("with-url")
        const created = yield* createTask(key, project.id)
        expect(created).toEqual({
          taskId: expect.stringMatching(/^task_/),
          refId: "MAIN-1",
          taskPath: "/with-url/MAIN/tasks/MAIN-1",
          taskUrl: "https://app.example.com/with-url/MAIN/tasks/MAIN-1"
        })
        expect(yield* getTask(key, created.taskId)).toMatchObject({ taskPath: created.taskPath, taskUrl: created.taskUrl })
      }))
  })
})
