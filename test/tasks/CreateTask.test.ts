import { describe, expect, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { Projects } from "../../src/projects/Projects.js"
import { ServerPort, TestServer } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"
import { fails, ok, scopedTo } from "../support/TaskTools.js"
import { createTask, doc, getTask, listTasks, noRateLimit, paragraph, url } from "./TaskFixtures.js"

describe("create_task", () => {
  layer(TestServer(noRateLimit))((it) => {
    it.effect("create_task returns { taskId, refId, taskPath, taskUrl }; refs count up per project; the URL is the web app's page on the server the request reached", () =>
      Effect.gen(function*() {
        const { key, organization, project } = yield* seedOwner("create")
        const port = yield* ServerPort
        const first = yield* createTask(key, project.id, { name: "One" })
        const taskPath = `/projects/${project.id}/tasks/MAIN-1`
        expect(first).toEqual({
          taskId: expect.stringMatching(/^task_[0-9a-f]{32}$/),
          refId: "MAIN-1",
          taskPath,
          taskUrl: `http://127.0.0.1:${port}${taskPath}`
        })
        expect(Object.keys(first).sort()).toEqual(["refId", "taskId", "taskPath", "taskUrl"])
        expect((yield* createTask(key, project.id, { name: "Two" })).refId).toBe("MAIN-2")
        expect((yield* ok(key, "create_task", { name: "Three", projectId: project.id })).refId).toBe("MAIN-3")
        const other = yield* (yield* Projects).create({ organizationId: organization.id, name: "Other", ref: "OTHER" })
        expect((yield* createTask(key, other.id)).refId).toBe("OTHER-1")
        expect((yield* createTask(key, project.id, { name: "Four" })).refId).toBe("MAIN-4")
        const details = yield* getTask(key, first.taskId)
        expect(details).toMatchObject({ taskId: first.taskId, refId: "MAIN-1", name: "One", taskPath, taskUrl: first.taskUrl })
      }))

    it.effect("create_task defaults: taskTypeKey task, priority None, status To Do, List BACKLOG, tags [], no owner, agent, label or due date", () =>
      Effect.gen(function*() {
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
        const {
          projectId: _p,
          scopedRef: _s,
          taskPath: _tp,
          taskUrl: _tu,
          description: _d,
          descriptionMarkdown: _dm,
          externalLinks: _l,
          artifacts: _a,
          files: _f,
          comments: _c,
          subtasks: _st,
          ...summary
        } = task
        expect(listed).toEqual(summary)
      }))

    it.effect("taskTypeKey takes only the built-in keys; any other is rejected naming taskTypeKey", () =>
      Effect.gen(function*() {
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
      Effect.gen(function*() {
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
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("names")
        const scope = scopedTo(project.id)
        for (const args of [{}, { name: "   " }, { name: "x".repeat(501) }]) {
          expect(yield* fails(key, "create_task", args, scope)).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("name")
          })
        }
        const { taskId } = yield* createTask(key, project.id, { name: "y".repeat(500) })
        expect(yield* fails(key, "update_task", { taskId, name: " " })).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("name: ")
        })
        expect(yield* listTasks(key, project.id)).toHaveLength(1)
      }))

    it.effect("a description in Markdown, plain text or ProseMirror JSON is stored as ProseMirror JSON and read back with descriptionMarkdown", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("descriptions")
        const markdown = yield* createTask(key, project.id, { description: "# Plan\n\nShip **it** now" })
        expect(yield* getTask(key, markdown.taskId)).toMatchObject({
          description: doc(
            { type: "heading", attrs: { level: 1 }, content: [{ type: "text", text: "Plan" }] },
            {
              type: "paragraph",
              content: [{ type: "text", text: "Ship " }, { type: "text", marks: [{ type: "bold" }], text: "it" }, {
                type: "text",
                text: " now"
              }]
            }
          ),
          descriptionMarkdown: "# Plan\n\nShip **it** now"
        })
        const plain = yield* createTask(key, project.id, { description: "just some words" })
        expect(yield* getTask(key, plain.taskId)).toMatchObject({
          description: doc(paragraph("just some words")),
          descriptionMarkdown: "just some words"
        })
        const stored = doc(paragraph("From the editor"), {
          type: "bulletList",
          content: [{ type: "listItem", content: [paragraph("one")] }]
        })
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
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("bad-descriptions")
        const { taskId } = yield* createTask(key, project.id, { description: "kept" })
        for (
          const description of [
            JSON.stringify(doc({ type: "table", content: [] })),
            JSON.stringify(doc({ type: "paragraph", content: [{ type: "text", text: "x", marks: [{ type: "underline" }] }] })),
            JSON.stringify(doc(paragraph(""))),
            JSON.stringify({ type: "doc", content: [{ type: "text", text: "bare text in doc" }] }),
            "{\"type\": \"doc\", \"content\": [" // does not parse
          ]
        ) {
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
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("create-links")
        const scope = scopedTo(project.id)
        const twenty = Array.from({ length: 20 }, (_, i) => url(`link-${i}`))
        const { taskId } = yield* createTask(key, project.id, { externalLinks: twenty })
        const { externalLinks } = yield* getTask(key, taskId)
        expect(externalLinks.map((link) => link.id)).toEqual(twenty.map((link) => link.id))
        expect(externalLinks[0]).toEqual({
          id: "link-0",
          kind: "url",
          url: "https://example.com/link-0",
          createdAt: expect.any(String),
          updatedAt: expect.any(String)
        })
        expect(yield* fails(key, "create_task", { name: "X", externalLinks: [...twenty, url("link-20")] }, scope)).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("externalLinks: ")
        })
        expect(
          yield* fails(
            key,
            "create_task",
            { name: "X", externalLinks: [url("same"), url("other"), url("same", "https://b.example")] },
            scope
          )
        )
          .toMatchObject({ code: "invalid_argument", message: expect.stringContaining("externalLinks: ") })
        expect(yield* fails(key, "create_task", { name: "X", externalLinks: [{ id: "c", kind: "commit", sha: "xyz" }] }, scope))
          .toMatchObject({ code: "invalid_argument", message: expect.stringContaining("externalLinks") })
        expect(yield* listTasks(key, project.id)).toHaveLength(1)
      }))

    it.effect("parentId makes a subtask: the parent's get_task lists it in subtasks with its subtaskCount", () =>
      Effect.gen(function*() {
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
      Effect.gen(function*() {
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
        expect(yield* fails(key, "create_task", { name: "X", parentId: "OTHER-1" }, scopedTo(project.id))).toMatchObject({
          code: "not_found"
        })
        const stranger = yield* seedOwner("parents-stranger")
        const hidden = yield* createTask(stranger.key, stranger.project.id, { name: "Hidden" })
        expect(yield* fails(key, "create_task", { name: "X", parentId: hidden.taskId }, scopedTo(project.id))).toMatchObject({
          code: "not_found"
        })
        expect(yield* fails(key, "create_task", { name: "X", parentId: "not a ref" }, scopedTo(project.id))).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("parentId: ")
        })
        expect(yield* listTasks(key, project.id)).toEqual([])
        expect((yield* getTask(stranger.key, hidden.taskId)).subtasks).toEqual([])
      }))

    it.effect("a ProseMirror JSON description is recognised whatever its key order", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("bug-json")
        const description = JSON.stringify({ content: [paragraph("hi")], type: "doc" })
        const { taskId } = yield* createTask(key, project.id, { description })
        expect(yield* getTask(key, taskId)).toMatchObject({ description: doc(paragraph("hi")), descriptionMarkdown: "hi" })
      }))

    it.effect("a ProseMirror link to a javascript: URL is refused naming description", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("bug-href")
        const description = JSON.stringify(doc({
          type: "paragraph",
          content: [{ type: "text", text: "x", marks: [{ type: "link", attrs: { href: "javascript:alert(1)" } }] }]
        }))
        expect(yield* fails(key, "create_task", { name: "X", description }, scopedTo(project.id)))
          .toMatchObject({ code: "invalid_argument", message: expect.stringMatching(/^description: /) })
      }))

    it.effect("a missing parent or label is reported under its own argument's name", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("bug-fields")
        expect(yield* fails(key, "create_task", { name: "X", parentId: "MAIN-9" }, scopedTo(project.id)))
          .toMatchObject({ code: "not_found", message: expect.stringMatching(/^parentId: /) })
        expect(yield* fails(key, "create_task", { name: "X", label: "nope" }, scopedTo(project.id)))
          .toMatchObject({ code: "not_found", message: expect.stringMatching(/^label: /) })
      }))
  })

  layer(TestServer({ ...noRateLimit, appUrl: Option.some("https://app.example.com/") }))((it) => {
    it.effect("with TRELLIS_APP_URL, create_task and get_task give the task's page on that URL", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("with-url")
        const created = yield* createTask(key, project.id)
        expect(created).toEqual({
          taskId: expect.stringMatching(/^task_/),
          refId: "MAIN-1",
          taskPath: `/projects/${project.id}/tasks/MAIN-1`,
          taskUrl: `https://app.example.com/projects/${project.id}/tasks/MAIN-1`
        })
        expect(yield* getTask(key, created.taskId)).toMatchObject({ taskPath: created.taskPath, taskUrl: created.taskUrl })
      }))
  })
})
