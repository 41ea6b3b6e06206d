import { SqlClient } from "@effect/sql"
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import type { ProjectId } from "../../catalog/domain/Ids.js"
import type { ProjectRole } from "../../catalog/domain/Roles.js"
import { Memberships } from "../../src/orgs/Memberships.js"
import { Users } from "../../src/orgs/Users.js"
import { callTool, createKey } from "./TestServer.js"

/** Helpers for tests that drive the task, List and label tools over MCP. */

export interface ToolErrorBody {
  readonly code: string
  readonly message: string
}

export interface ToolCallResult {
  readonly isError?: boolean
  readonly structuredContent?: unknown
  readonly content: ReadonlyArray<{ readonly type: string; readonly text: string }>
}

export interface TaskSummary {
  readonly taskId: string
  readonly refId: string
  readonly name: string
  readonly status: string
  readonly assignee: { readonly userId: string } | null
  readonly delegatedToAgent: { readonly projectAgentId: string; readonly name: string } | null
  readonly label: { readonly _id: string; readonly name: string; readonly color: string } | null
  readonly list: { readonly listId: string; readonly ref: string; readonly name: string } | null
  readonly parentId: string | null
  readonly subtaskCount: number
  readonly isArchived: boolean
  readonly updatedAt: string
}

export interface TaskDetails extends TaskSummary {
  readonly projectId: string
  readonly scopedRef: string
  readonly subtasks: ReadonlyArray<{ readonly taskId: string; readonly refId: string; readonly subtaskCount: number }>
  readonly comments: ReadonlyArray<{ readonly commentId: string; readonly content: string }>
  readonly externalLinks: ReadonlyArray<{ readonly id: string }>
}

export interface TaskPage {
  readonly tasks: ReadonlyArray<TaskSummary>
  readonly nextCursor: string | null
}

export interface Created {
  readonly taskId: string
  readonly refId: string
}

export type Scope = { readonly path?: string }

/** The connection URL with `?project=`, as an MCP client would be configured. */
export const scopedTo = (projectId: string): Scope => ({ path: `/api/mcp?project=${projectId}` })

/** Calls a tool; the JSON-RPC call itself must succeed (HTTP 200, a result). */
export const call = (key: string, name: string, args: unknown, scope: Scope = {}) =>
  Effect.map(callTool(key, name, args, scope), (res) => {
    expect(res.status, `${name} ${JSON.stringify(args)}: ${res.text}`).toBe(200)
    const result = (res.json as { readonly result?: ToolCallResult }).result
    expect(result, res.text).toBeDefined()
    return result!
  })

/** Calls a tool that must succeed and returns its structured result. */
export const ok = <T>(key: string, name: string, args: unknown, scope: Scope = {}) =>
  Effect.map(call(key, name, args, scope), (result) => {
    expect(result.isError, `${name}: ${JSON.stringify(result.structuredContent)}`).toBeUndefined()
    return result.structuredContent as T
  })

/** Calls a tool that must succeed with the result null: text only, since structuredContent is an object. */
export const okNull = (key: string, name: string, args: unknown, scope: Scope = {}) =>
  Effect.map(call(key, name, args, scope), (result) => {
    expect(result.isError, `${name}: ${result.content[0]?.text}`).toBeUndefined()
    expect(result.structuredContent).toBeUndefined()
    expect(result.content).toEqual([{ type: "text", text: "null" }])
  })

/** Calls a tool that must fail with a tool error and returns its error body. */
export const fails = (key: string, name: string, args: unknown, scope: Scope = {}) =>
  Effect.map(call(key, name, args, scope), (result) => {
    expect(result.isError, `${name} should fail: ${JSON.stringify(result.structuredContent)}`).toBe(true)
    return (result.structuredContent as { readonly error: ToolErrorBody }).error
  })

/** A user with `role` in the project, and their API key. */
export const joinAs = (projectId: ProjectId, slug: string, role: ProjectRole) =>
  Effect.gen(function* () {
    const user = yield* (yield* Users).create({ name: `${role} of ${slug}`, email: `${role}@${slug}.test` })
    yield* (yield* Memberships).addToProject(projectId, user.id, role)
    return { user, key: (yield* createKey(user.id, null)).secret }
  })

export const archiveTask = (taskId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE tasks SET archived_at = now() WHERE id = ${taskId}`.pipe(Effect.orDie))

/** Creates a task through the tool and returns its ID and ref. */
export const createTask = (key: string, scope: Scope, args: Record<string, unknown>) =>
  ok<Created>(key, "create_task", args, scope)

export const getTask = (key: string, taskId: string, scope: Scope = {}) => ok<TaskDetails>(key, "get_task", { taskId }, scope)

export const listTasks = (key: string, scope: Scope, args: Record<string, unknown> = {}) =>
  Effect.map(ok<{ tasks: ReadonlyArray<TaskSummary> }>(key, "list_tasks", args, scope), (page) => page.tasks)

export const idsOf = (tasks: ReadonlyArray<{ readonly taskId: string }>) => tasks.map((task) => task.taskId)
