import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { Conflict, Forbidden, InvalidArgument, NotFound } from "../domain/Errors.js"
import { Authentication } from "./Authentication.js"
import { taskIdParam } from "./TaskFilesApi.js"

const Neighbour = Schema.optionalWith(
  Schema.NullOr(Schema.String.annotations({ description: "A task ID (task_…) or scoped ref of the same parent" })),
  { default: () => null }
)

/** A task's new place among its siblings, by the neighbours it was dropped between. */
export const TaskPlacement = Schema.Struct({
  after: Neighbour.annotations({ description: "The task it goes right after; null or absent: none (the start)" }),
  before: Neighbour.annotations({ description: "The task it goes right before; null or absent: none (the end)" })
})

/** Reordering a task: SPEC's tools take no rank, so the board places a card through this route. */
export class TaskOrderGroup extends HttpApiGroup.make("taskOrder")
  .add(
    HttpApiEndpoint.post("place")`/${taskIdParam}/place`
      .setPayload(TaskPlacement)
      .addSuccess(Schema.Struct({ taskId: Schema.String }))
      .annotate(
        OpenApi.Description,
        "Move a task within its siblings' order: right after `after`, right before `before`, or between both (which must be " +
          "in that order: 409 otherwise). Neighbours have the task's parent. Needs the project role member or admin"
      )
  )
  .addError(NotFound, { status: 404 })
  .addError(Forbidden, { status: 403 })
  .addError(InvalidArgument, { status: 400 })
  .addError(Conflict, { status: 409 })
  .prefix("/api/tasks")
  .middleware(Authentication)
{}
