import { Effect, Option } from "effect"
import type { ProjectId } from "../../catalog/domain/Ids.js"
import type { ProjectRole } from "../../catalog/domain/Roles.js"
import { Memberships } from "../../src/orgs/Memberships.js"
import { Users } from "../../src/orgs/Users.js"
import { createKey } from "../support/Seed.js"
import { ok, scopedTo } from "../support/TaskTools.js"

/** The calls the task tool tests make most; what they read back is each tool's own result type. */

export const noRateLimit = { rateLimit: Option.none() }

/** Creates a task in the project through `?project=`; its name is "A task" unless given. */
export const createTask = (key: string, projectId: ProjectId, args: Record<string, unknown> = {}) =>
  ok(key, "create_task", { name: "A task", ...args }, scopedTo(projectId))

export const getTask = (key: string, taskId: string, scope: { readonly path?: string } = {}) => ok(key, "get_task", { taskId }, scope)

export const listTasks = (key: string, projectId: ProjectId, args: Record<string, unknown> = {}) =>
  Effect.map(ok(key, "list_tasks", args, scopedTo(projectId)), (result) => result.tasks)

export const refsOf = (tasks: ReadonlyArray<{ readonly refId: string }>) => tasks.map((task) => task.refId)

/** A user with `role` in the project, and their API key. */
export const joinAs = (projectId: ProjectId, slug: string, role: ProjectRole, name = `${role} of ${slug}`) =>
  Effect.gen(function*() {
    const user = yield* (yield* Users).create({ name, email: `${role}@${slug}.test` })
    yield* (yield* Memberships).addToProject(projectId, user.id, role)
    return { user, key: (yield* createKey(user.id, null)).secret }
  })

export const url = (id: string, address = `https://example.com/${id}`) => ({ id, kind: "url", url: address })

export const doc = (...content: ReadonlyArray<unknown>) => ({ type: "doc", content })
export const paragraph = (text: string) => ({ type: "paragraph", content: [{ type: "text", text }] })
