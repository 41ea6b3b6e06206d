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

/**
 * "Allow always": a permission request whose runtime offers a standing rule carries
 * `standingRule` in its `request` — exactly what the rule allows and where the runtime keeps it, in
 * words. Answering `{ "always": true }` allows this call and adds the rule (Claude Code's suggested
 * permission update, Codex's exec-policy amendment, OpenCode's "always"); a plain answer allows
 * this call once.
 */
export const STANDING_RULE_FIELD = "standingRule"
export const ALWAYS_ANSWER = { always: true } as const
