import { Schema } from "effect"

/*
 * The errors a tool call can fail with. Each carries a human-readable `message` that names
 * the field and the rule; the MCP layer turns them into `isError: true` results with
 * `structuredContent: { error: { code, message } }`.
 */

export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", { message: Schema.String }) {
  readonly code = "not_found"
}

export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", { message: Schema.String }) {
  readonly code = "forbidden"
}

export class InvalidArgument extends Schema.TaggedError<InvalidArgument>()("InvalidArgument", {
  message: Schema.String
}) {
  readonly code = "invalid_argument"
}

export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", { message: Schema.String }) {
  readonly code = "conflict"
}

export class LimitExceeded extends Schema.TaggedError<LimitExceeded>()("LimitExceeded", {
  message: Schema.String
}) {
  readonly code = "limit_exceeded"
}

export const ToolError = Schema.Union(NotFound, Forbidden, InvalidArgument, Conflict, LimitExceeded)
export type ToolError = typeof ToolError.Type

/** The wire shape of a tool error, as it appears in `structuredContent.error`. */
export const ToolErrorBody = Schema.Struct({
  code: Schema.Literal("not_found", "forbidden", "invalid_argument", "conflict", "limit_exceeded"),
  message: Schema.String
})
