import { Effect } from "effect"
import type { ResultOf } from "../../catalog/McpClient.js"
import { seedOwner } from "./Seed.js"
import { createTask, ok, type Scope, scopedTo } from "./TaskTools.js"

/** Helpers for tests that drive the artifact and artifact comment tools over MCP. */

/** The tools' own result types (catalog/), so nothing here restates a shape. */
export type Artifact = ResultOf<"get_task_artifact">
export type Thread = ResultOf<"create_artifact_comment">

/** An organization whose owner has a task to put artifacts on. */
export const seedTask = (slug: string) =>
  Effect.gen(function*() {
    const owner = yield* seedOwner(slug)
    const scope = scopedTo(owner.project.id)
    const task = yield* createTask(owner.key, scope, { name: "Write the design" })
    return { ...owner, scope, task }
  })

export const createArtifact = (key: string, taskId: string, args: Record<string, unknown> = {}, scope: Scope = {}) =>
  ok(key, "create_task_artifact", { taskId, name: "Design", ...args }, scope)

export const getArtifact = (key: string, artifactId: string, args: Record<string, unknown> = {}) =>
  ok(key, "get_task_artifact", { artifactId, ...args })

export const threadsOf = (key: string, artifactId: string, args: Record<string, unknown> = {}) =>
  Effect.map(ok(key, "list_artifact_comments", { artifactId, ...args }), (page) => page.threads)

export const comment = (key: string, artifactId: string, anchorText: string, args: Record<string, unknown> = {}) =>
  ok(key, "create_artifact_comment", { artifactId, anchorText, content: `About "${anchorText}"`, ...args })

export const updateContent = (key: string, artifactId: string, content: string) => ok(key, "update_task_artifact", { artifactId, content })

export const replaceIn = (key: string, artifactId: string, oldString: string, newString: string, replaceAll = false) =>
  ok(key, "replace_in_task_artifact", { artifactId, oldString, newString, replaceAll })

/** The text each live anchor points at, which must be its anchorText. */
export const pointedAt = (content: string, thread: Pick<Thread, "anchorStart" | "anchorEnd">) =>
  thread.anchorStart === null || thread.anchorEnd === null ? null : content.slice(thread.anchorStart, thread.anchorEnd)
