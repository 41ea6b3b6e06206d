import { Effect, Layer } from "effect"
import { TaskArtifacts } from "../tasks/TaskArtifacts.js"
import { Artifacts } from "./Artifacts.js"
import { artifactSummary } from "./ArtifactViews.js"

/** The artifacts a task's details show, as their summaries. */
export const TaskArtifactsLive = Layer.effect(
  TaskArtifacts,
  Effect.map(Artifacts, (artifacts) => ({
    summariesOf: (taskIds: ReadonlyArray<string>) =>
      Effect.map(
        artifacts.summariesOf(taskIds),
        (byTask) => new Map([...byTask].map(([taskId, rows]) => [taskId, rows.map(artifactSummary)]))
      )
  }))
).pipe(Layer.provide(Artifacts.Default))
