import { Effect } from "effect"
import { type BuiltInTaskTypeKey, ListTaskTypes } from "../../catalog/Tasks.js"
import * as Implement from "./ToolImplementation.js"

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

export const TaskTools = Effect.succeed([
  Implement.unscoped(ListTaskTypes, () => Effect.succeed(taskTypes))
] as const)
