import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Memberships } from "../../src/orgs/Memberships.js"
import { Projects } from "../../src/projects/Projects.js"
import { Users } from "../../src/orgs/Users.js"
import { createProjectAgent, TestServer } from "../support/TestServer.js"
import { createKey, seedOwner } from "../support/Seed.js"
import { call, createTask, getTask, listTasks, ok, scopedTo, type Scope, type ToolErrorBody } from "../support/TaskTools.js"

/** Words that only organization A's data contains: no answer to B may carry them. */
const SECRETS = ["Alpha secret", "Alpha child", "Alpha other", "Secret plans", "Classified", "A agent", "classified notes", "alpha comment"]

/** Organization A with a List, a label, an agent, and tasks with a subtask, a link and a comment. */
const seedA = (slug: string) =>
  Effect.gen(function*() {
    const owner = yield* seedOwner(slug)
    const scope = scopedTo(owner.project.id)
    const { listId } = yield* ok(owner.key, "create_task_list", { name: "Secret plans", ref: "SECRET" }, scope)
    const { labelId } = yield* ok(owner.key, "create_task_label", { name: "Classified", color: "red" }, scope)
    const agentId = yield* createProjectAgent(owner.key, owner.project.id, "A agent")
    const parent = yield* createTask(owner.key, scope, {
      name: "Alpha secret",
      description: "The **classified notes**",
      listId,
      label: labelId,
      delegatedToAgentId: agentId,
      externalLinks: [{ id: "home", kind: "url", url: "https://a.example/" }]
    })
    const child = yield* createTask(owner.key, scope, { name: "Alpha child", parentId: parent.taskId, label: "classified" })
    const other = yield* createTask(owner.key, scope, { name: "Alpha other" })
    yield* ok(owner.key, "create_task_comment", { taskId: parent.taskId, content: "alpha comment" }, scope)
    return { ...owner, scope, listId, labelId, agentId, parent, child, other }
  })

/** Organization B: its own project (also ref MAIN), List, label and task. */
const seedB = (slug: string) =>
  Effect.gen(function*() {
    const owner = yield* seedOwner(slug)
    const scope = scopedTo(owner.project.id)
    yield* ok(owner.key, "create_task_list", { name: "Ours", ref: "OURS" }, scope)
    const { labelId } = yield* ok(owner.key, "create_task_label", { name: "Mine" }, scope)
    const task = yield* createTask(owner.key, scope, { name: "Bravo own", label: labelId })
    return { ...owner, scope, labelId, task }
  })

/** Everything a project's owner can read about it. */
const stateOf = (key: string, projectId: string, taskIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const scope = scopedTo(projectId)
    return {
      tasks: yield* Effect.forEach(taskIds, (taskId) => getTask(key, taskId, scope)),
      list: yield* listTasks(key, scope, { includeArchived: true }),
      lists: yield* ok(key, "list_task_lists", {}, scope),
      archivedLists: yield* ok(key, "list_task_lists", { archived: true }, scope),
      labels: yield* ok(key, "list_task_labels", {}, scope)
    }
  })

/** Calls a tool that must answer with a not_found tool error that leaks none of A's data. */
const notFound = (key: string, name: string, args: Record<string, unknown>, scope: Scope = {}) =>
  Effect.gen(function*() {
    const result = yield* call(key, name, args, scope)
    const label = `${name} ${JSON.stringify(args)} ${scope.path ?? ""}`
    expect(result.isError, `${label} → ${JSON.stringify(result.structuredContent)}`).toBe(true)
    const error = (result.structuredContent as { readonly error: ToolErrorBody }).error
    expect(error.code, `${label} → ${error.message}`).toBe("not_found")
    // The answer may echo what the caller sent, nothing else of A's.
    const sent = JSON.stringify(args).toLowerCase()
    const text = JSON.stringify(result)
    for (const secret of SECRETS.filter((word) => !sent.includes(word.toLowerCase()))) expect(text, label).not.toContain(secret)
    return error
  })

const GHOST_TASK = "task_00000000000000000000000000000000"
const GHOST_LIST = "list_00000000000000000000000000000000"
const GHOST_LABEL = "label_00000000000000000000000000000000"
const GHOST_PROJECT = "proj_00000000000000000000000000000000"

describe("tenant isolation of the work-tracking tools", () => {
  layer(TestServer())((it) => {
    it.effect("every work-tracking tool called by organization B with organization A's IDs and refs is not found and changes nothing in A", () =>
      Effect.gen(function*() {
        const a = yield* seedA("tenant-a")
        const b = yield* seedB("tenant-b")
        const aTasks = [a.parent.taskId, a.child.taskId, a.other.taskId]
        const beforeA = yield* stateOf(a.key, a.project.id, aTasks)
        const beforeB = yield* stateOf(b.key, b.project.id, [b.task.taskId])
        const A = a.project.id
        const onA = a.scope
        const onB = b.scope
        const scoped = "tenant-a/MAIN-1"
        const link = { kind: "url", url: "https://b.example/" }

        const cases: ReadonlyArray<readonly [string, Record<string, unknown>, Scope?]> = [
          ["list_task_lists", { projectId: A }],
          ["list_task_lists", {}, onA],
          ["list_task_lists", { projectId: A, archived: true, query: "secret" }, onB],
          ["create_task_list", { projectId: A, name: "Hijack" }],
          ["create_task_list", { name: "Hijack" }, onA],
          ["update_task_list", { projectId: A, listId: a.listId, name: "Hijacked" }],
          ["update_task_list", { listId: a.listId, name: "Hijacked" }, onB],
          ["update_task_list", { listId: "SECRET", color: "red" }, onB],
          ["update_task_list", { listId: "SECRET", color: "red" }, onA],
          ["list_task_labels", { projectId: A }],
          ["list_task_labels", {}, onA],
          ["create_task_label", { projectId: A, name: "Hijack" }],
          ["create_task_label", { name: "Hijack" }, onA],
          ["update_task_label", { projectId: A, labelId: a.labelId, name: "Hijacked" }],
          ["update_task_label", { labelId: a.labelId, name: "Hijacked" }, onB],
          ["update_task_label", { labelId: "Classified", color: "green" }, onB],
          ["delete_task_label", { projectId: A, labelId: a.labelId }],
          ["delete_task_label", { labelId: "Classified" }, onA],
          ["delete_task_label", { labelId: a.labelId }, onB],
          ["delete_task_label", { labelId: "Classified", resolution: "archiveTasks" }, onB],
          ["delete_task_label", { labelId: "Mine", resolution: "reassign", reassignTo: a.labelId }, onB],
          ["list_tasks", { projectId: A }],
          ["list_tasks", { includeArchived: true }, onA],
          ["list_tasks", { listId: a.listId }, onB],
          ["list_tasks", { listId: "SECRET" }, onB],
          ["search_tasks", { projectId: A, query: "alpha" }],
          ["search_tasks", { query: "classified" }, onA],
          ["search_tasks", { query: "alpha", listId: a.listId }, onB],
          ["get_task", { taskId: a.parent.taskId }],
          ["get_task", { taskId: a.child.taskId }, onB],
          ["get_task", { taskId: scoped }],
          ["get_task", { taskId: "TENANT-A/main-2" }, onB],
          ["get_task", { taskId: "MAIN-1", projectId: A }],
          ["get_task", { taskId: "MAIN-1" }, onA],
          ["create_task", { projectId: A, name: "Planted" }],
          ["create_task", { name: "Planted" }, onA],
          ["create_task", { name: "Planted", parentId: a.parent.taskId }, onB],
          ["create_task", { name: "Planted", parentId: scoped }, onB],
          ["create_task", { name: "Planted", listId: a.listId }, onB],
          ["create_task", { name: "Planted", listId: "SECRET" }, onB],
          ["create_task", { name: "Planted", label: a.labelId }, onB],
          ["create_task", { name: "Planted", label: "Classified" }, onB],
          ["create_task", { name: "Planted", delegatedToAgentId: a.agentId }, onB],
          ["update_task", { taskId: a.parent.taskId, name: "Hijacked" }],
          ["update_task", { taskId: scoped, status: "Done" }, onB],
          ["update_task", { taskId: "MAIN-2", projectId: A, name: "Hijacked" }],
          ["update_task", { taskId: b.task.taskId, label: a.labelId }, onB],
          ["update_task", { taskId: b.task.taskId, delegatedToAgentId: a.agentId }, onB],
          ["update_task_link", { taskId: a.parent.taskId, op: "upsert", id: "planted", link }],
          ["update_task_link", { taskId: scoped, op: "delete", id: "home" }],
          ["update_task_link", { taskId: "MAIN-1", projectId: A, op: "delete", id: "home" }],
          ["move_task", { taskId: a.child.taskId, parentId: null }],
          ["move_task", { taskId: "tenant-a/MAIN-2", parentId: "tenant-a/MAIN-3" }],
          ["move_task", { taskId: a.other.taskId, parentId: b.task.taskId }, onB],
          ["move_task", { taskId: b.task.taskId, parentId: a.parent.taskId }, onB],
          ["move_task", { taskId: b.task.taskId, parentId: scoped }, onB],
          ["move_task", { taskId: "MAIN-3", parentId: "MAIN-1", projectId: A }],
          ["move_tasks_to_list", { taskIds: [a.parent.taskId], listId: "BACKLOG" }],
          ["move_tasks_to_list", { taskIds: [scoped], listId: "BACKLOG" }, onB],
          ["move_tasks_to_list", { taskIds: [b.task.taskId, a.other.taskId], listId: "OURS" }, onB],
          ["move_tasks_to_list", { taskIds: [b.task.taskId], listId: a.listId }, onB],
          ["move_tasks_to_list", { taskIds: [b.task.taskId], listId: "SECRET" }, onB],
          ["move_tasks_to_list", { taskIds: ["MAIN-3"], listId: "SECRET", projectId: A }],
          ["delete_task", { taskId: a.parent.taskId }],
          ["delete_task", { taskId: scoped, cascadeMode: "keep_children" }, onB],
          ["delete_task", { taskId: "MAIN-3", projectId: A }],
          ["create_task_comment", { taskId: a.parent.taskId, content: "Planted" }],
          ["create_task_comment", { taskId: scoped, content: "Planted" }, onB],
          ["create_task_comment", { taskId: "MAIN-1", projectId: A, content: "Planted" }]
        ]
        const tools = new Set<string>()
        for (const [name, args, scope] of cases) {
          tools.add(name)
          yield* notFound(b.key, name, args, scope)
        }

        // get_tasks answers per identifier: each of A's is reported not found in its place.
        for (
          const [args, scope] of [
            [{ identifiers: [a.parent.taskId, scoped, a.child.taskId, "tenant-a/MAIN-3"] }, onB],
            [{ identifiers: ["MAIN-1", "MAIN-2"], projectId: A }, {}],
            [{ identifiers: ["MAIN-1"] }, onA]
          ] as const
        ) {
          const result = yield* call(b.key, "get_tasks", args, scope)
          tools.add("get_tasks")
          const text = JSON.stringify(result)
          for (const secret of SECRETS) expect(text).not.toContain(secret)
          const { tasks } = result.structuredContent as {
            tasks: ReadonlyArray<{ identifier: string; task?: unknown; error?: ToolErrorBody }>
          }
          expect(tasks.map((entry) => entry.identifier)).toEqual(args.identifiers)
          for (const entry of tasks) {
            expect(entry.task, entry.identifier).toBeUndefined()
            expect(entry.error?.code, entry.identifier).toBe("not_found")
          }
        }

        expect([...tools].sort()).toEqual([
          "create_task",
          "create_task_comment",
          "create_task_label",
          "create_task_list",
          "delete_task",
          "delete_task_label",
          "get_task",
          "get_tasks",
          "list_task_labels",
          "list_task_lists",
          "list_tasks",
          "move_task",
          "move_tasks_to_list",
          "search_tasks",
          "update_task",
          "update_task_label",
          "update_task_link",
          "update_task_list"
        ])
        expect(yield* stateOf(a.key, a.project.id, aTasks)).toEqual(beforeA)
        // B's own data is untouched by the refused calls, and no task was created on its behalf.
        expect(yield* stateOf(b.key, b.project.id, [b.task.taskId])).toEqual(beforeB)
        expect((yield* createTask(b.key, b.scope, { name: "Next" })).refId).toBe("MAIN-2")
      }))

    it.effect("B's searches and listings in its own project never return A's tasks, Lists or labels", () =>
      Effect.gen(function*() {
        const a = yield* seedA("tenant-a2")
        const b = yield* seedB("tenant-b2")
        for (const query of ["alpha", "secret", "classified", "notes", "MAIN-1", "main"]) {
          const page = yield* ok(b.key, "search_tasks", { query, limit: 50 }, b.scope)
          expect(page.tasks.map((task) => task.taskId)).not.toContain(a.parent.taskId)
          expect(JSON.stringify(page)).not.toContain("Alpha")
        }
        // A bare ref in B's project is B's own task, never A's task of the same number.
        expect((yield* getTask(b.key, "MAIN-1", b.scope)).taskId).toBe(b.task.taskId)
        const text = JSON.stringify([
          yield* listTasks(b.key, b.scope, { includeArchived: true }),
          yield* ok(b.key, "list_task_lists", { query: "secret" }, b.scope),
          yield* ok(b.key, "list_task_labels", {}, b.scope)
        ])
        for (const secret of SECRETS) expect(text).not.toContain(secret)
        const filtered = yield* ok(
          b.key,
          "search_tasks",
          { query: "alpha", filters: { assigneeId: a.user.id, delegatedToAgentId: a.agentId } },
          b.scope
        )
        expect(filtered.tasks).toEqual([])
      }))

    it.effect("the not-found answer for A's IDs is the same as for IDs that do not exist (no existence leak)", () =>
      Effect.gen(function*() {
        const a = yield* seedA("tenant-a3")
        const b = yield* seedB("tenant-b3")
        const same = (real: ToolErrorBody, realId: string, ghost: ToolErrorBody, ghostId: string) =>
          expect(real.message.replaceAll(realId, "<id>")).toBe(ghost.message.replaceAll(ghostId, "<id>"))
        const pairs: ReadonlyArray<readonly [string, (id: string) => Record<string, unknown>, string, string, Scope]> = [
          ["get_task", (id) => ({ taskId: id }), a.parent.taskId, GHOST_TASK, b.scope],
          ["get_task", (id) => ({ taskId: id }), "tenant-a3/MAIN-1", "tenant-a3/MAIN-99", b.scope],
          ["get_task", (id) => ({ taskId: id }), "tenant-a3/MAIN-1", "no-such-org/MAIN-1", b.scope],
          ["get_task", (id) => ({ taskId: "MAIN-1", projectId: id }), a.project.id, GHOST_PROJECT, {}],
          ["update_task", (id) => ({ taskId: id, name: "x" }), a.parent.taskId, GHOST_TASK, b.scope],
          ["delete_task", (id) => ({ taskId: id }), "tenant-a3/MAIN-2", "tenant-a3/MAIN-98", b.scope],
          ["list_tasks", (id) => ({ projectId: id }), a.project.id, GHOST_PROJECT, {}],
          ["list_tasks", (id) => ({ listId: id }), a.listId, GHOST_LIST, b.scope],
          ["update_task_label", (id) => ({ labelId: id, name: "x" }), a.labelId, GHOST_LABEL, b.scope],
          ["move_task", (id) => ({ taskId: b.task.taskId, parentId: id }), a.parent.taskId, GHOST_TASK, b.scope]
        ]
        for (const [name, args, realId, ghostId, scope] of pairs) {
          const real = yield* notFound(b.key, name, args(realId), scope)
          const ghost = yield* notFound(b.key, name, args(ghostId), scope)
          same(real, realId, ghost, ghostId)
        }
      }))

    it.effect("a member of A's organization who is not in the project gets not found too, and changes nothing", () =>
      Effect.gen(function*() {
        const a = yield* seedA("tenant-a4")
        const outsider = yield* (yield* Users).create({ name: "Org member", email: "member@tenant-a4.test" })
        yield* (yield* Memberships).addToOrganization(a.organization.id, outsider.id, "member")
        const key = (yield* createKey(outsider.id, null)).secret
        const aTasks = [a.parent.taskId, a.child.taskId, a.other.taskId]
        const before = yield* stateOf(a.key, a.project.id, aTasks)
        for (
          const [name, args] of [
            ["list_tasks", { projectId: a.project.id }],
            ["get_task", { taskId: a.parent.taskId }],
            ["get_task", { taskId: "tenant-a4/MAIN-1" }],
            ["update_task", { taskId: a.parent.taskId, name: "x" }],
            ["move_task", { taskId: a.child.taskId, parentId: null }],
            ["delete_task", { taskId: a.other.taskId }],
            ["search_tasks", { projectId: a.project.id, query: "alpha" }],
            ["delete_task_label", { projectId: a.project.id, labelId: a.labelId }]
          ] as const
        ) {
          yield* notFound(key, name, args)
        }
        expect(yield* stateOf(a.key, a.project.id, aTasks)).toEqual(before)
      }))

    it.effect("a key narrowed away from A's project is forbidden on it, never given data, and changes nothing", () =>
      Effect.gen(function*() {
        const a = yield* seedA("tenant-a5")
        const elsewhere = yield* (yield* Projects).create({ organizationId: a.organization.id, name: "Elsewhere", ref: "ELSE" })
        const narrowed = (yield* createKey(a.user.id, [elsewhere.id])).secret
        const aTasks = [a.parent.taskId, a.child.taskId, a.other.taskId]
        const before = yield* stateOf(a.key, a.project.id, aTasks)
        for (
          const [name, args] of [
            ["list_tasks", { projectId: a.project.id }],
            ["search_tasks", { projectId: a.project.id, query: "alpha" }],
            ["get_task", { taskId: a.parent.taskId }],
            ["update_task", { taskId: a.parent.taskId, name: "x" }],
            ["delete_task", { taskId: a.other.taskId }],
            ["delete_task_label", { projectId: a.project.id, labelId: a.labelId }]
          ] as const
        ) {
          const result = yield* call(narrowed, name, args)
          expect(result.isError, name).toBe(true)
          expect((result.structuredContent as { error: ToolErrorBody }).error.code, name).toBe("forbidden")
          for (const secret of SECRETS) expect(JSON.stringify(result)).not.toContain(secret)
        }
        expect(yield* stateOf(a.key, a.project.id, aTasks)).toEqual(before)
      }))
  })
})
