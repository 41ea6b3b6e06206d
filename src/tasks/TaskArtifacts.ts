import { Context, type Effect } from "effect"
import type { ArtifactSummary } from "../../catalog/domain/Artifact.js"

/**
 * What `get_task` shows of a task's artifacts, each task's summaries by task ID. Artifacts hang off
 * tasks, so `artifacts/` depends on `tasks/`; it provides this (artifacts/TaskArtifactsLive.ts) and
 * the server wires it in, so that `tasks/` never imports `artifacts/`.
 */
export class TaskArtifacts extends Context.Tag("trellis/TaskArtifacts")<TaskArtifacts, {
  readonly summariesOf: (taskIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, ReadonlyArray<typeof ArtifactSummary.Type>>>
}>() {}
