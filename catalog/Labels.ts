import { Schema } from "effect"
import { LabelId } from "./domain/Ids.js"
import { DEFAULT_LABEL_COLOR, LabelColor, MAX_LABEL_NAME_LENGTH, MAX_LABELS } from "./domain/Label.js"
import * as Tool from "./Tool.js"

const LabelName = Schema.String.pipe(
  Schema.minLength(1, { message: () => "must not be empty or blank" }),
  Schema.maxLength(MAX_LABEL_NAME_LENGTH, { message: () => `must be at most ${MAX_LABEL_NAME_LENGTH} characters` })
).annotations({
  title: "Label name",
  description: `1–${MAX_LABEL_NAME_LENGTH} characters, trimmed; unique in the project ignoring case`
})

const LabelIdOrName = Schema.String.pipe(Schema.minLength(1, { message: () => "must not be empty" })).annotations({
  title: "Label ID or name",
  description: "The label's ID (label_…) or its exact name (ignoring case)"
})

const Color = LabelColor.annotations({ description: "A color of the extended (label) palette" })

export const Label = Schema.Struct({
  _id: LabelId,
  name: Schema.String,
  color: LabelColor
}).annotations({ identifier: "Label" })

const LabelResult = Schema.Struct({ labelId: LabelId })

export const ListTaskLabels = Tool.make("list_task_labels", {
  title: "List task labels",
  description: "Lists the project's labels in board-column order (a new label is added last). Tools that take a label accept its ID " +
    "or its exact name, ignoring case.",
  input: Schema.Struct({ projectId: Tool.ProjectIdArgument }),
  output: Schema.Struct({ labels: Schema.Array(Label) }),
  annotations: { readOnly: true, destructive: false, idempotent: true }
})

export const CreateTaskLabel = Tool.make("create_task_label", {
  title: "Create a task label",
  description: `Creates a label as the last board column. A project has at most ${MAX_LABELS} labels. Needs project admin.`,
  input: Schema.Struct({
    projectId: Tool.ProjectIdArgument,
    name: LabelName,
    color: Schema.optional(Color.annotations({ default: DEFAULT_LABEL_COLOR }))
  }),
  output: LabelResult,
  annotations: { readOnly: false, destructive: false, idempotent: false }
})

export const UpdateTaskLabel = Tool.make("update_task_label", {
  title: "Update a task label",
  description: "Renames or recolors a label; pass at least one of name, color. Tasks keep the label. Needs project admin. " +
    "Returns the label's ID.",
  input: Schema.Struct({
    projectId: Tool.ProjectIdArgument,
    labelId: LabelIdOrName,
    name: Schema.optional(LabelName),
    color: Schema.optional(Color)
  }),
  output: LabelResult,
  annotations: { readOnly: false, destructive: false, idempotent: true }
})

export const DeleteTaskLabel = Tool.make("delete_task_label", {
  title: "Delete a task label",
  description: "Deletes a label. What happens to its tasks: `clear` (default) removes the label from them; `reassign` gives them " +
    "the label `reassignTo` (ID or exact name, required then); `archiveTasks` removes the label and archives the tasks " +
    "that were active. One transaction. Needs project admin. Returns the IDs of the tasks that carried the label.",
  input: Schema.Struct({
    projectId: Tool.ProjectIdArgument,
    labelId: LabelIdOrName,
    resolution: Schema.optional(Schema.Literal("clear", "reassign", "archiveTasks").annotations({ default: "clear" })),
    reassignTo: Schema.optional(LabelIdOrName.annotations({ description: "Required with `reassign`: the label the tasks get instead" }))
  }),
  output: Schema.Struct({ affectedTaskIds: Schema.Array(Schema.String) }),
  annotations: { readOnly: false, destructive: true, idempotent: false }
})
