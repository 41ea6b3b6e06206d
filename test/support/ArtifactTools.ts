import { Effect } from "effect"
import { seedOwner } from "./TestServer.js"
import { createTask, ok, type Scope, scopedTo } from "./TaskTools.js"

/** Helpers for tests that drive the artifact and artifact comment tools over MCP. */

export interface ArtifactSummary {
  readonly artifactId: string
  readonly name: string
  readonly contentType: "markdown" | "html"
  readonly runId: string | null
  readonly updatedAt: string
  readonly openCommentCount: number
}

export interface Reply {
  readonly commentId: string
  readonly authorId: string
  readonly authorName: string
  readonly content: string
  readonly createdAt: string
  readonly isEdited: boolean
}

export interface Thread extends Reply {
  readonly status: "open" | "resolved"
  readonly anchorText: string
  readonly anchorStart: number | null
  readonly anchorEnd: number | null
  readonly anchorLost: boolean
  readonly replies: ReadonlyArray<Reply>
}

export interface Artifact extends ArtifactSummary {
  readonly taskId: string
  readonly content: string
  readonly authorId: string
  readonly authorName: string
  readonly createdAt: string
  readonly comments?: ReadonlyArray<Thread>
}

export interface ContentWritten {
  readonly artifactId: string
  readonly updatedAt: string
  readonly lostCommentIds: ReadonlyArray<string>
}

/** An organization whose owner has a task to put artifacts on. */
export const seedTask = (slug: string) =>
  Effect.gen(function* () {
    const owner = yield* seedOwner(slug)
    const scope = scopedTo(owner.project.id)
    const task = yield* createTask(owner.key, scope, { name: "Write the design" })
    return { ...owner, scope, task }
  })

export const createArtifact = (key: string, taskId: string, args: Record<string, unknown> = {}, scope: Scope = {}) =>
  ok<{ artifactId: string; taskId: string }>(key, "create_task_artifact", { taskId, name: "Design", ...args }, scope)

export const getArtifact = (key: string, artifactId: string, args: Record<string, unknown> = {}) =>
  ok<Artifact>(key, "get_task_artifact", { artifactId, ...args })

export const threadsOf = (key: string, artifactId: string, args: Record<string, unknown> = {}) =>
  Effect.map(ok<{ threads: ReadonlyArray<Thread> }>(key, "list_artifact_comments", { artifactId, ...args }), (page) => page.threads)

export const comment = (key: string, artifactId: string, anchorText: string, args: Record<string, unknown> = {}) =>
  ok<Thread>(key, "create_artifact_comment", { artifactId, anchorText, content: `About "${anchorText}"`, ...args })

export const updateContent = (key: string, artifactId: string, content: string) =>
  ok<ContentWritten>(key, "update_task_artifact", { artifactId, content })

export const replaceIn = (key: string, artifactId: string, oldString: string, newString: string, replaceAll = false) =>
  ok<ContentWritten & { replacements: number }>(key, "replace_in_task_artifact", { artifactId, oldString, newString, replaceAll })

/** The text each live anchor points at, which must be its anchorText. */
export const pointedAt = (content: string, thread: Thread) =>
  thread.anchorStart === null || thread.anchorEnd === null ? null : content.slice(thread.anchorStart, thread.anchorEnd)
