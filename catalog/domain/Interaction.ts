import { Schema } from "effect"

/** A permission or question request a runtime made mid-run, as the bridge and its clients see it. */

export const InteractionKind = Schema.Literal("permission", "question")
export const InteractionStatus = Schema.Literal("pending", "answered", "denied", "expired")

export const Interaction = Schema.Struct({
  interactionId: Schema.String,
  threadId: Schema.String,
  kind: InteractionKind,
  request: Schema.Unknown,
  status: InteractionStatus,
  answer: Schema.NullOr(Schema.Unknown),
  createdAt: Schema.String,
  answeredAt: Schema.NullOr(Schema.String),
  expiresAt: Schema.NullOr(Schema.String)
}).annotations({ identifier: "Interaction" })
export type Interaction = typeof Interaction.Type
