import * as HttpApiSchema from "@effect/platform/HttpApiSchema"

/**
 * Server-sent events: `event: event` frames carry `{id, messageId, seq, event}`; `event: pending`
 * frames `{threadIds}`; `event: changes` frames the ids of what changed in a project (ProjectsApi.ts).
 */
export const EventStream = HttpApiSchema.Text({ contentType: "text/event-stream" })
