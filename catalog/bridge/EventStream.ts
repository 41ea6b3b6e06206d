import * as HttpApiSchema from "@effect/platform/HttpApiSchema"

/**
 * Server-sent events: `event: event` frames carry `{id, messageId, seq, event}`; `event: pending`
 * frames `{threadIds}`; `event: changes` frames `{threadIds, profileIds}`.
 */
export const EventStream = HttpApiSchema.Text({ contentType: "text/event-stream" })
