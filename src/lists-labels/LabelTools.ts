import { Effect } from "effect"
import { CreateTaskLabel, DeleteTaskLabel, ListTaskLabels, UpdateTaskLabel } from "../../catalog/Labels.js"
import { CurrentProject } from "../platform/auth/Principal.js"
import { Labels } from "./Labels.js"
import * as Implement from "../platform/mcp/ToolImplementation.js"

export const LabelTools = Effect.gen(function*() {
  const labels = yield* Labels
  return [
    Implement.scoped(ListTaskLabels, () =>
      Effect.gen(function*() {
        const rows = yield* labels.list(yield* CurrentProject)
        return { labels: rows.map((label) => ({ _id: label.id, name: label.name, color: label.color })) }
      })),
    Implement.scoped(CreateTaskLabel, ({ name, color }) =>
      Effect.gen(function*() {
        const label = yield* labels.create(yield* CurrentProject, { name, color })
        return { labelId: label.id }
      })),
    Implement.scoped(UpdateTaskLabel, ({ labelId, name, color }) =>
      Effect.gen(function*() {
        const label = yield* labels.update(yield* CurrentProject, labelId, { name, color })
        return { labelId: label.id }
      })),
    Implement.scoped(DeleteTaskLabel, ({ labelId, reassignTo, resolution }) =>
      Effect.gen(function*() {
        const affectedTaskIds = yield* labels.remove(yield* CurrentProject, labelId, resolution ?? "clear", reassignTo)
        return { affectedTaskIds }
      }))
  ] as const
})
