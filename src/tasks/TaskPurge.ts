import { Effect, Layer, Schedule } from "effect"
import { TaskTree } from "./TaskTree.js"

/**
 * Removes soft-deleted tasks for good once their retention has passed: at start, then hourly.
 * Several backend instances may run it at once; each purge is one idempotent transaction.
 */
export const TaskPurgeLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const tree = yield* TaskTree
    const purge = tree.purgeDeleted().pipe(
      Effect.tap((count) => count > 0 ? Effect.logInfo(`purged ${count} deleted tasks`) : Effect.void),
      Effect.catchAllCause((cause) => Effect.logWarning("purging deleted tasks failed; will retry", cause))
    )
    yield* Effect.forkScoped(Effect.repeat(purge, Schedule.spaced("1 hour")))
  })
)
