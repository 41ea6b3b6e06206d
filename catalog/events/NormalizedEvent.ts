import { Schema } from "effect"

/**
 * Normalized events: what a raw runtime chunk (`type`, `data`) becomes at insert time.
 * Every runtime module maps its own stream onto these kinds (SPEC "Events"); docs/events.md
 * is generated from the descriptions here. Optional fields are exact: absent, never `undefined`.
 */

const opt = <S extends Schema.Schema.Any>(schema: S, description: string) =>
  Schema.optionalWith(schema, { exact: true }).annotations({ description })
const req = <S extends Schema.Schema.Any>(schema: S, description: string) => Schema.propertySignature(schema).annotations({ description })

const itemId = opt(
  Schema.String,
  "Stable id of the runtime item (message block, part) this text belongs to; the composer replaces or extends the part with this id."
)
const delta = opt(
  Schema.Literal(true),
  "Present when `text` holds only an increment of a streaming item; the item's full text arrives later in an event without `delta`."
)

export const TextEvent = Schema.Struct({
  kind: Schema.Literal("text"),
  text: req(Schema.String, "Assistant text."),
  itemId,
  delta
}).annotations({ identifier: "text", description: "Assistant text block." })

export const ReasoningEvent = Schema.Struct({
  kind: Schema.Literal("reasoning"),
  text: req(Schema.String, "The model's reasoning (or its summary, where the runtime only exposes one)."),
  itemId,
  delta
}).annotations({ identifier: "reasoning", description: "Model reasoning block." })

export const ContextWindowEvent = Schema.Struct({
  kind: Schema.Literal("context-window"),
  usedTokens: req(Schema.Finite, "Tokens in the context window now: the sum of the classes below that the runtime reports."),
  limitTokens: opt(Schema.Finite, "Size of the model's context window, when the runtime reports it."),
  inputTokens: opt(Schema.Finite, "Uncached input tokens."),
  outputTokens: opt(Schema.Finite, "Output tokens (reasoning included where the runtime counts it there)."),
  reasoningTokens: opt(Schema.Finite, "Reasoning output tokens, when reported separately."),
  cacheReadTokens: opt(Schema.Finite, "Input tokens read from the prompt cache."),
  cacheCreationTokens: opt(Schema.Finite, "Input tokens written to the prompt cache.")
}).annotations({ identifier: "context-window", description: "Token usage / context window meter." })

export const ContextCompactionEvent = Schema.Struct({
  kind: Schema.Literal("context-compaction"),
  trigger: opt(Schema.String, "`manual` (a /compact command) or `auto`."),
  preTokens: opt(Schema.Finite, "Tokens in the context before compaction.")
}).annotations({ identifier: "context-compaction", description: "The runtime compacted its context." })

export const ToolInputEvent = Schema.Struct({
  kind: Schema.Literal("tool-input"),
  toolCallId: req(Schema.String, "The runtime's id of the call; its output or error carries the same id."),
  toolName: req(Schema.String, "The tool's name as the runtime reports it (`Bash`, `commandExecution`, `bash`…)."),
  inputJson: req(Schema.String, "The tool input as a JSON string.")
}).annotations({ identifier: "tool-input", description: "A tool call." })

export const ToolOutputEvent = Schema.Struct({
  kind: Schema.Literal("tool-output"),
  toolCallId: req(Schema.String, "The id of the call this is the result of."),
  outputJson: req(Schema.String, "The tool result as a JSON string.")
}).annotations({ identifier: "tool-output", description: "A tool result." })

export const ToolErrorEvent = Schema.Struct({
  kind: Schema.Literal("tool-error"),
  toolCallId: req(Schema.String, "The id of the call that failed."),
  message: req(Schema.String, "The error as the runtime reported it (a denial, a failed command's output)."),
  denied: opt(
    Schema.Literal(true),
    "Present when the call was refused its permission (the person's Deny through the bridge) rather than run and failed. A denied `tool-error` for a call that already ended keeps that call's message."
  )
}).annotations({ identifier: "tool-error", description: "A tool result marked as an error." })

export const MetadataEvent = Schema.Struct({
  kind: Schema.Literal("metadata"),
  sessionId: opt(Schema.String, "The runtime's session id (what a later run resumes)."),
  model: opt(Schema.String, "The model the runtime uses."),
  costUsd: opt(Schema.Finite, "Cost of the run in US dollars, as the runtime reports it."),
  durationMs: opt(Schema.Finite, "Duration of the run or turn in milliseconds."),
  numTurns: opt(Schema.Finite, "Number of model turns in the run."),
  otherJson: opt(
    Schema.String,
    "Anything else as a JSON string (for example `{\"turnStatus\":\"failed\"}`); a bundle holds `{ \"events\": [...] }` here and nothing else."
  )
}).annotations({ identifier: "metadata", description: "Session metadata, cost/duration, or a bundle of events." })

export const RuntimeNoticeEvent = Schema.Struct({
  kind: Schema.Literal("runtime-notice"),
  message: req(Schema.String, "What happened, for a reader."),
  attempt: opt(Schema.Finite, "Retry attempt number, for a retry."),
  delayMs: opt(Schema.Finite, "Delay before the retry, in milliseconds."),
  status: opt(Schema.Finite, "Upstream HTTP status (for example 529 or 503 on an API retry).")
}).annotations({ identifier: "runtime-notice", description: "Runtime-level notice: an API retry, a permission request, a status change." })

export const WarningEvent = Schema.Struct({
  kind: Schema.Literal("warning"),
  message: req(Schema.String, "The warning, or the error that ended the run.")
}).annotations({ identifier: "warning", description: "Non-fatal warning; a failed run's error is reported as a warning too." })

export const UnknownEvent = Schema.Struct({
  kind: Schema.Literal("unknown"),
  reason: req(
    Schema.String,
    "`json-parse-error`, `unexpected-shape`, `unrecognized-type`, or `ignored` (a known line with nothing to show)."
  ),
  rawType: req(Schema.String, "The chunk's raw type."),
  rawData: req(Schema.String, "The chunk's raw data, unchanged.")
}).annotations({ identifier: "unknown", description: "A chunk that gave no event; kept whole for debugging." })

export const NormalizedEventKinds = [
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
] as const

export const NormalizedEvent = Schema.Union(...NormalizedEventKinds)
export type NormalizedEvent = typeof NormalizedEvent.Type
export type NormalizedEventKind = NormalizedEvent["kind"]
