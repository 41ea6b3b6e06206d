import { Schema } from "effect"
import * as Tool from "./Tool.js"

export const BuiltInTaskTypeKey = Schema.Literal("task", "bug", "feature", "epic", "investigation", "chore", "idea")
export type BuiltInTaskTypeKey = typeof BuiltInTaskTypeKey.Type

export const TaskType = Schema.Struct({
  key: Schema.String,
  name: Schema.String.annotations({ description: "Display name" }),
  builtIn: Schema.Boolean
}).annotations({ identifier: "TaskType" })

export const ListTaskTypes = Tool.make("list_task_types", {
  title: "List task types",
  description:
    "Lists the task types available to the key: the built-in ones (task, bug, feature, epic, investigation, chore, idea) and any organization-scoped custom types. `taskTypeKey` on tasks takes one of the built-in keys.",
  input: Schema.Struct({}),
  output: Schema.Struct({ taskTypes: Schema.Array(TaskType) }),
  annotations: { readOnly: true, destructive: false, idempotent: true }
})
