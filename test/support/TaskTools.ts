import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { ProjectId } from "../../catalog/domain/Ids.js"
import type { ProjectRole } from "../../catalog/domain/Roles.js"
import { Memberships } from "../../src/orgs/Memberships.js"
import { Users } from "../../src/orgs/Users.js"
import { createKey } from "./Seed.js"
import { answer, refuses, type Scope, succeedsAs, succeedsWithNull, type ToolAnswer } from "./ToolCalls.js"

/** Helpers for tests that drive the task, List and label tools over MCP (the calls themselves are ToolCalls.ts'). */

export { scopedTo, type Scope } from "./ToolCalls.js"

export interface ToolErrorBody {
  readonly code: string
  readonly message: string
}

export type ToolCallResult = ToolAnswer

/** Calls a tool with any arguments; the JSON-RPC call itself must succeed (HTTP 200, a result). */
export const call = answer

/** Calls a tool that must succeed and returns its result decoded with the tool's output Schema. */
export const ok = succeedsAs

/** Calls a tool that must succeed with the result null: text only, since structuredContent is an object. */
export const okNull = succeedsWithNull

/** Calls a tool that must fail with a tool error and returns its error body. */
export const fails = refuses

/** A user with `role` in the project, and their API key. */
export const joinAs = (projectId: ProjectId, slug: string, role: ProjectRole) =>
  Effect.gen(function*() {
    const user = yield* (yield* Users).create({ name: `${role} of ${slug}`, email: `${role}@${slug}.test` })
    yield* (yield* Memberships).addToProject(projectId, user.id, role)
    return { user, key: (yield* createKey(user.id, null)).secret }
  })

export const archiveTask = (taskId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE tasks SET archived_at = now() WHERE id = ${taskId}`.pipe(Effect.orDie))

/** Creates a task through the tool and returns its ID and ref. */
export const createTask = (key: string, scope: Scope, args: Record<string, unknown>) => ok(key, "create_task", args, scope)

export const getTask = (key: string, taskId: string, scope: Scope = {}) => ok(key, "get_task", { taskId }, scope)

export const listTasks = (key: string, scope: Scope, args: Record<string, unknown> = {}) =>
  Effect.map(ok(key, "list_tasks", args, scope), (page) => page.tasks)

export const idsOf = (tasks: ReadonlyArray<{ readonly taskId: string }>) => tasks.map((task) => task.taskId)
