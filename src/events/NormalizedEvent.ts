import { Schema } from "effect"

/**
 * Normalized events: what a raw runtime chunk (`type`, `data`) becomes at insert
 * time. Every runtime module maps its own stream onto these kinds (SPEC "Events").
 * Optional fields are exact: absent, never `undefined`.
 */

const opt = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

export const TextEvent = Schema.Struct({
  kind: Schema.Literal("text"),
  text: Schema.String,
  itemId: opt(Schema.String)
})

export const ReasoningEvent = Schema.Struct({
  kind: Schema.Literal("reasoning"),
  text: Schema.String,
  itemId: opt(Schema.String)
})

export const ContextWindowEvent = Schema.Struct({
  kind: Schema.Literal("context-window"),
  usedTokens: Schema.Number,
  limitTokens: opt(Schema.Number),
  inputTokens: opt(Schema.Number),
  outputTokens: opt(Schema.Number),
  cacheReadTokens: opt(Schema.Number),
  cacheCreationTokens: opt(Schema.Number)
})

export const ContextCompactionEvent = Schema.Struct({
  kind: Schema.Literal("context-compaction"),
  trigger: opt(Schema.String),
  preTokens: opt(Schema.Number)
})

export const ToolInputEvent = Schema.Struct({
  kind: Schema.Literal("tool-input"),
  toolCallId: Schema.String,
  toolName: Schema.String,
  /** The tool input as a JSON string. */
  inputJson: Schema.String
})

export const ToolOutputEvent = Schema.Struct({
  kind: Schema.Literal("tool-output"),
  toolCallId: Schema.String,
  /** The tool result as a JSON string. */
  outputJson: Schema.String
})

export const ToolErrorEvent = Schema.Struct({
  kind: Schema.Literal("tool-error"),
  toolCallId: Schema.String,
  message: Schema.String
})

export const MetadataEvent = Schema.Struct({
  kind: Schema.Literal("metadata"),
  sessionId: opt(Schema.String),
  model: opt(Schema.String),
  costUsd: opt(Schema.Number),
  durationMs: opt(Schema.Number),
  numTurns: opt(Schema.Number),
  /** Anything else as a JSON string; a bundle holds `{ "events": [...] }` here. */
  otherJson: opt(Schema.String)
})

export const RuntimeNoticeEvent = Schema.Struct({
  kind: Schema.Literal("runtime-notice"),
  message: Schema.String,
  attempt: opt(Schema.Number),
  delayMs: opt(Schema.Number),
  /** An upstream HTTP status (e.g. 529 on an API retry). */
  status: opt(Schema.Number)
})

export const WarningEvent = Schema.Struct({
  kind: Schema.Literal("warning"),
  message: Schema.String
})

export const UnknownEvent = Schema.Struct({
  kind: Schema.Literal("unknown"),
  /** `json-parse-error`, `unexpected-shape`, `unrecognized-type` or `ignored`. */
  reason: Schema.String,
  rawType: Schema.String,
  rawData: Schema.String
})

export const NormalizedEvent = Schema.Union(
  TextEvent,
  ReasoningEvent,
  ContextWindowEvent,
  ContextCompactionEvent,
  ToolInputEvent,
  ToolOutputEvent,
  ToolErrorEvent,
  MetadataEvent,
  RuntimeNoticeEvent,
  WarningEvent,
  UnknownEvent
)
export type NormalizedEvent = typeof NormalizedEvent.Type
export type NormalizedEventKind = NormalizedEvent["kind"]
