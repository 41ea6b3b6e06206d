import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { ProjectId } from "../../catalog/domain/Ids.js"
import type { ProjectRole } from "../../catalog/domain/Roles.js"
import { Memberships } from "../../src/orgs/Memberships.js"
import { Users } from "../../src/orgs/Users.js"
import { createKey } from "./TestServer.js"
import { answer, refuses, type Scope, succeeds, succeedsWithNull, type ToolAnswer } from "./ToolCalls.js"

/** Helpers for tests that drive the task, List and label tools over MCP (the calls themselves are ToolCalls.ts'). */

export { scopedTo, type Scope } from "./ToolCalls.js"

export interface ToolErrorBody {
  readonly code: string
  readonly message: string
}

export type ToolCallResult = ToolAnswer

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

/** Calls a tool with any arguments; the JSON-RPC call itself must succeed (HTTP 200, a result). */
export const call = answer

/**
 * Calls a tool that must succeed and returns its structured result as the type the caller names,
 * unchecked: these tests assert on the values themselves. For a result checked against the tool's
 * Schema use `mcpClient(key).call` (ToolCalls.ts).
 */
export const ok = <T>(key: string, name: string, args: unknown, scope: Scope = {}) =>
  Effect.map(succeeds(key, name, args, scope), (content) => content as T)

/** Calls a tool that must succeed with the result null: text only, since structuredContent is an object. */
export const okNull = succeedsWithNull

/** Calls a tool that must fail with a tool error and returns its error body. */
export const fails = refuses

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
