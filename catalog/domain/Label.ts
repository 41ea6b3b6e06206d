import { Schema } from "effect"
import { ListColor } from "./TaskList.js"

/** The extended palette: the List palette plus ten more hues, so labels on one board stay distinct. */
export const LabelColor = Schema.Literal(
  ...ListColor.literals,
  "amber",
  "lime",
  "emerald",
  "cyan",
  "sky",
  "violet",
  "fuchsia",
  "rose",
  "brown",
  "slate"
)
export type LabelColor = typeof LabelColor.Type

export const DEFAULT_LABEL_COLOR: LabelColor = "blue"
export const MAX_LABELS = 20
export const MAX_LABEL_NAME_LENGTH = 50
