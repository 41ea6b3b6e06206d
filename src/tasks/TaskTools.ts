import { Effect, Either } from "effect"
import {
  type BuiltInTaskTypeKey,
  CreateTask,
  CreateTaskComment,
  DeleteTask,
  GetTask,
  GetTasks,
  ListTasks,
  ListTaskTypes,
  MoveTask,
  MoveTasksToList,
  SearchTasks,
  UpdateTask,
  UpdateTaskLink
} from "../../catalog/Tasks.js"
import { CurrentPrincipal, CurrentProject, DefaultProject } from "../platform/auth/Principal.js"
import { InvalidArgument } from "../../catalog/domain/Errors.js"
import { TaskArtifacts } from "./TaskArtifacts.js"
import * as Implement from "../platform/mcp/ToolImplementation.js"
import type { ResolvedTask } from "./TaskAccess.js"
import { TaskComments } from "./TaskComments.js"
import { fileSummary, TaskFiles } from "./TaskFiles.js"
import { baseUrl, RequestOrigin } from "../platform/http/RequestOrigin.js"
import { TrellisConfig } from "../platform/TrellisConfig.js"
import { TaskLinks } from "./TaskLinks.js"
import { TaskReads } from "./TaskReads.js"
import { TaskSearch } from "./TaskSearch.js"
import { TaskTree } from "./TaskTree.js"
import { TaskWrites } from "./TaskWrites.js"
import { externalLink, taskDetails, taskSummary } from "./TaskViews.js"
import { RichTextModule } from "./RichTextModule.js"

const builtInTaskTypes: ReadonlyArray<{ readonly key: BuiltInTaskTypeKey; readonly name: string }> = [
  { key: "task", name: "Task" },
  { key: "bug", name: "Bug" },
  { key: "feature", name: "Feature" },
  { key: "epic", name: "Epic" },
  { key: "investigation", name: "Investigation" },
  { key: "chore", name: "Chore" },
  { key: "idea", name: "Idea" }
]

const taskTypes = { taskTypes: builtInTaskTypes.map((type) => ({ ...type, builtIn: true })) }

/** The project a ref is resolved in: the explicit projectId, else the connection's `?project=`. */
export const refProject = (projectId: string | undefined) => Effect.map(DefaultProject, (fallback) => projectId ?? fallback)

/** A task as every task tool finds it: by ID, scoped ref, or bare ref in `projectId` or the URL's `?project=`. */
export const resolveTask = (reads: TaskReads, address: string, projectId: string | undefined) =>
  Effect.gen(function*() {
    return yield* reads.resolve(yield* CurrentPrincipal, address, yield* refProject(projectId))
  })

export const TaskTools = Effect.gen(function*() {
  const reads = yield* TaskReads
  const writes = yield* TaskWrites
  const taskLinks = yield* TaskLinks
  const comments = yield* TaskComments
  const search = yield* TaskSearch
  const tree = yield* TaskTree
  const artifacts = yield* TaskArtifacts
  const files = yield* TaskFiles
  const config = yield* TrellisConfig

  const resolve = (address: string, projectId: string | undefined) => resolveTask(reads, address, projectId)

  /** What hangs off the tasks beside their own rows, each kind read once for all of them. */
  const attachedTo = (taskIds: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      const base = baseUrl(config, yield* RequestOrigin)
      const fileRows = yield* files.listOf(taskIds)
      return {
        artifacts: yield* artifacts.summariesOf(taskIds),
        files: (taskId: string) => fileRows.filter((row) => row.taskId === taskId).map((row) => fileSummary(row, base))
      }
    })

  const details = (resolved: ResolvedTask, attached: Effect.Effect.Success<ReturnType<typeof attachedTo>>) =>
    Effect.gen(function*() {
      const found = yield* reads.details(resolved)
      const description = found.task.description
      const markdown = description === null ? "" : Either.getOrElse((yield* RichTextModule).toMarkdown(description), () => "")
      return taskDetails(found, markdown, attached.artifacts.get(found.task.id) ?? [], attached.files(found.task.id))
    })

  return [
    Implement.unscoped(ListTaskTypes, () => Effect.succeed(taskTypes)),

    Implement.scoped(ListTasks, (input) =>
      Effect.gen(function*() {
        const access = yield* CurrentProject
        const rows = yield* reads.list(access, input)
        if (input.includeLinks !== true) return { tasks: rows.map(taskSummary) }
        const links = yield* taskLinks.linksOf(rows.map((row) => row.id))
        return {
          tasks: rows.map((row) => ({
            ...taskSummary(row),
            externalLinks: links.filter((link) => link.taskId === row.id).map(externalLink)
          }))
        }
      })),

    Implement.unscoped(GetTask, (input) =>
      Effect.gen(function*() {
        const resolved = yield* resolve(input.taskId, input.projectId)
        return yield* details(resolved, yield* attachedTo([resolved.task.id]))
      })),

    Implement.unscoped(GetTasks, (input) =>
      Effect.gen(function*() {
        const found = yield* Effect.forEach(input.identifiers, (identifier) =>
          Effect.map(Effect.either(resolve(identifier, input.projectId)), (result) => ({ identifier, result })))
        // One query for every task's artifacts and files, not one per task.
        const attached = yield* attachedTo(found.flatMap(({ result }) =>
          Either.isRight(result) ? [result.right.task.id] : []
        ))
        const results = yield* Effect.forEach(found, ({ identifier, result }) =>
          Effect.gen(function*() {
            if (Either.isLeft(result)) return { identifier, error: { code: result.left.code, message: result.left.message } }
            return { identifier, task: yield* details(result.right, attached) }
          }))
        return { tasks: results }
      })),

    Implement.scoped(CreateTask, ({ projectId: _projectId, ...input }) =>
      Effect.gen(function*() {
        return yield* writes.create(yield* CurrentPrincipal, yield* CurrentProject, input)
      })),

    Implement.unscoped(UpdateTask, ({ projectId, taskId, ...changes }) =>
      Effect.gen(function*() {
        const resolved = yield* resolve(taskId, projectId)
        return yield* writes.update(yield* CurrentPrincipal, resolved, changes)
      })),

    Implement.unscoped(UpdateTaskLink, (input) =>
      Effect.gen(function*() {
        const resolved = yield* resolve(input.taskId, input.projectId)
        if (input.op === "upsert" && input.link === undefined) {
          return yield* new InvalidArgument({ message: "link: required when op is upsert" })
        }
        const links = yield* taskLinks.update(
          resolved,
          input.op === "upsert" && input.link !== undefined
            ? { op: "upsert", id: input.id, link: input.link }
            : { op: "delete", id: input.id }
        )
        return { taskId: resolved.task.id, externalLinks: links.map(externalLink) }
      })),

    Implement.scoped(SearchTasks, ({ projectId: _projectId, ...input }) =>
      Effect.gen(function*() {
        const page = yield* search.search(yield* CurrentProject, input)
        return { tasks: page.tasks.map(taskSummary), nextCursor: page.nextCursor }
      })),

    Implement.unscoped(MoveTask, (input) =>
      Effect.gen(function*() {
        const resolved = yield* resolve(input.taskId, input.projectId)
        const parent = input.parentId === null
          ? null
          : yield* reads.resolve(yield* CurrentPrincipal, input.parentId, input.projectId ?? resolved.access.project.id, "parentId")
        return yield* tree.move(resolved, parent)
      })),

    Implement.unscoped(MoveTasksToList, (input) =>
      Effect.gen(function*() {
        const principal = yield* CurrentPrincipal
        const project = yield* refProject(input.projectId)
        const resolved = yield* Effect.forEach(input.taskIds, (taskId) => reads.resolve(principal, taskId, project, "taskIds"))
        const first = resolved[0]
        if (first === undefined) return yield* new InvalidArgument({ message: "taskIds: must name at least one task" })
        return yield* tree.moveToList(first.access, resolved, input.listId)
      })),

    Implement.unscoped(DeleteTask, (input) =>
      Effect.gen(function*() {
        const resolved = yield* resolve(input.taskId, input.projectId)
        return yield* tree.remove(resolved, input.cascadeMode ?? "delete_all")
      })),

    Implement.unscoped(CreateTaskComment, (input) =>
      Effect.gen(function*() {
        const resolved = yield* resolve(input.taskId, input.projectId)
        return yield* comments.add(yield* CurrentPrincipal, resolved, input.content)
      }))
  ] as const
})
