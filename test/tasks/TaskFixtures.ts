import { Effect, Option } from "effect"
import type { ProjectId } from "../../catalog/domain/Ids.js"
import type { ProjectRole } from "../../catalog/domain/Roles.js"
import { Memberships } from "../../src/orgs/Memberships.js"
import { Users } from "../../src/orgs/Users.js"
import { createKey } from "../support/TestServer.js"
import { ok, scopedTo, type ToolErrorBody } from "../support/TaskTools.js"

/** What the task tool tests read back, field by field, and the calls they make most. */

export interface Created {
  readonly taskId: string
  readonly refId: string | null
  readonly taskPath: string | null
  readonly taskUrl: string | null
}
export interface ExternalLink {
  readonly id: string
  readonly kind: string
  readonly createdAt: string
  readonly updatedAt: string
  readonly [field: string]: unknown
}
export interface TaskSummary {
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
export interface TaskDetails extends TaskSummary {
  readonly projectId: string
  readonly scopedRef: string
  readonly taskPath: string | null
  readonly taskUrl: string | null
  readonly description: unknown
  readonly descriptionMarkdown: string
  readonly externalLinks: ReadonlyArray<ExternalLink>
  readonly artifacts: ReadonlyArray<unknown>
  readonly files: ReadonlyArray<unknown>
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
export interface TaskList {
  readonly tasks: ReadonlyArray<TaskSummary>
}
export type GetTasksEntry =
  | { readonly identifier: string; readonly task: TaskDetails }
  | { readonly identifier: string; readonly error: ToolErrorBody }
export interface LinksResult {
  readonly taskId: string
  readonly externalLinks: ReadonlyArray<ExternalLink>
}

export const noRateLimit = { rateLimit: Option.none() }

/** Creates a task in the project through `?project=`; its name is "A task" unless given. */
export const createTask = (key: string, projectId: ProjectId, args: Record<string, unknown> = {}) =>
  ok<Created>(key, "create_task", { name: "A task", ...args }, scopedTo(projectId))

export const getTask = (key: string, taskId: string, scope: { readonly path?: string } = {}) =>
  ok<TaskDetails>(key, "get_task", { taskId }, scope)

export const listTasks = (key: string, projectId: ProjectId, args: Record<string, unknown> = {}) =>
  Effect.map(ok<TaskList>(key, "list_tasks", args, scopedTo(projectId)), (result) => result.tasks)

export const refsOf = (tasks: ReadonlyArray<{ readonly refId: string }>) => tasks.map((task) => task.refId)

/** A user with `role` in the project, and their API key. */
export const joinAs = (projectId: ProjectId, slug: string, role: ProjectRole, name = `${role} of ${slug}`) =>
  Effect.gen(function* () {
    const user = yield* (yield* Users).create({ name, email: `${role}@${slug}.test` })
    yield* (yield* Memberships).addToProject(projectId, user.id, role)
    return { user, key: (yield* createKey(user.id, null)).secret }
  })

export const url = (id: string, address = `https://example.com/${id}`) => ({ id, kind: "url", url: address })

export const doc = (...content: ReadonlyArray<unknown>) => ({ type: "doc", content })
export const paragraph = (text: string) => ({ type: "paragraph", content: [{ type: "text", text }] })
