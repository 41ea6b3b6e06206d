import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { TrellisApi } from "../../catalog/bridge/TrellisApi.js"
import { CurrentPrincipal } from "../platform/auth/Principal.js"
import { TaskOrder } from "./TaskOrder.js"
import { TaskReads } from "./TaskReads.js"

/** The `taskOrder` group of the client routes: placing a task among its siblings. */
export const TaskOrderHandlers = HttpApiBuilder.group(TrellisApi, "taskOrder", (handlers) =>
  Effect.gen(function*() {
    const order = yield* TaskOrder
    const reads = yield* TaskReads
    return handlers.handle("place", ({ path, payload }) =>
      Effect.gen(function*() {
        const principal = yield* CurrentPrincipal
        const task = yield* reads.resolve(principal, path.taskId, null)
        // A bare ref names a task of the placed task's project.
        const neighbour = (address: string | null, field: "after" | "before") =>
          address === null ? Effect.succeed(null) : reads.resolve(principal, address, task.access.project.id, field)
        return yield* order.place(task, {
          after: yield* neighbour(payload.after, "after"),
          before: yield* neighbour(payload.before, "before")
        })
      }))
  }))
