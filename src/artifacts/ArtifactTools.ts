import { Effect } from "effect"
import {
  CreateTaskArtifact,
  DeleteTaskArtifact,
  GetTaskArtifact,
  ListTaskArtifacts,
  MoveTaskArtifact,
  ReplaceInTaskArtifact,
  UpdateTaskArtifact
} from "../../catalog/Artifacts.js"
import { CurrentPrincipal } from "../platform/auth/Principal.js"
import { InvalidArgument } from "../../catalog/domain/Errors.js"
import type { ArtifactId } from "../../catalog/domain/Ids.js"
import { ArtifactComments } from "./ArtifactComments.js"
import { Artifacts } from "./Artifacts.js"
import { TaskReads } from "../tasks/TaskReads.js"
import { artifactListItem, artifactView, threadView } from "./ArtifactViews.js"
import { refProject, resolveTask } from "../tasks/TaskTools.js"
import * as Implement from "../platform/mcp/ToolImplementation.js"

export const ArtifactTools = Effect.gen(function*() {
  const tasks = yield* TaskReads
  const artifacts = yield* Artifacts
  const comments = yield* ArtifactComments

  const resolve = (artifactId: ArtifactId) => Effect.flatMap(CurrentPrincipal, (principal) => artifacts.resolve(principal, artifactId))

  return [
    Implement.unscoped(ListTaskArtifacts, (input) =>
      Effect.gen(function*() {
        const rows = yield* artifacts.listOf(yield* resolveTask(tasks, input.taskId, input.projectId))
        return { artifacts: rows.map(artifactListItem) }
      })),

    Implement.unscoped(GetTaskArtifact, (input) =>
      Effect.gen(function*() {
        if (input.commentsStatus !== undefined && input.includeComments !== true) {
          return yield* new InvalidArgument({ message: "commentsStatus: only applies with includeComments: true" })
        }
        const { artifact } = yield* artifacts.read(yield* CurrentPrincipal, input.artifactId)
        if (input.includeComments !== true) return artifactView(artifact)
        const threads = yield* comments.threadsOf(artifact.id, input.commentsStatus)
        return { ...artifactView(artifact), comments: threads.map(threadView) }
      })),

    Implement.unscoped(CreateTaskArtifact, ({ projectId, taskId, ...input }) =>
      Effect.gen(function*() {
        const task = yield* resolveTask(tasks, taskId, projectId)
        return yield* artifacts.create(yield* CurrentPrincipal, task, input)
      })),

    Implement.unscoped(
      UpdateTaskArtifact,
      ({ artifactId, ...changes }) => Effect.flatMap(resolve(artifactId), (resolved) => artifacts.update(resolved, changes))
    ),

    Implement.unscoped(
      ReplaceInTaskArtifact,
      ({ artifactId, ...replacement }) => Effect.flatMap(resolve(artifactId), (resolved) => artifacts.replace(resolved, replacement))
    ),

    Implement.unscoped(MoveTaskArtifact, (input) =>
      Effect.gen(function*() {
        const resolved = yield* resolve(input.artifactId)
        // A bare ref without projectId or ?project= is looked up in the artifact's own project, the only valid target.
        const project = (yield* refProject(input.projectId)) ?? resolved.access.project.id
        const target = yield* tasks.resolve(yield* CurrentPrincipal, input.taskId, project)
        return yield* artifacts.move(resolved, target)
      })),

    Implement.unscoped(DeleteTaskArtifact, (input) => Effect.flatMap(resolve(input.artifactId), artifacts.remove))
  ] as const
})
