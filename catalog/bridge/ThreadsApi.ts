import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { Thread, ThreadMessage } from "../Threads.js"
import { Conflict, Forbidden, InvalidArgument, NotFound } from "../domain/Errors.js"
import { ProjectId } from "../domain/Ids.js"
import { Interaction } from "../domain/Interaction.js"
import { Authentication } from "./Authentication.js"
import { EventStream } from "./EventStream.js"
import { MessagePage, MessagePageParams } from "./MessagePage.js"
import { ChangesPage, ChangesPageInput, MAX_CHANGES_PAGE } from "../ThreadChanges.js"

const threadIdParam = HttpApiSchema.param("threadId", Schema.String)

/** What asking to stop a thread did: `stopRequested: false` when it was running nothing. */
export const StopResult = Schema.Struct({
  stopRequested: Schema.Boolean,
  messageId: Schema.NullOr(Schema.String).annotations({ description: "The turn (assistant message) being stopped" })
})

/** What a client beside MCP needs (the web UI of SPEC's architecture). */
export class ThreadsGroup extends HttpApiGroup.make("threads")
  .add(
    HttpApiEndpoint.get("events")`/${threadIdParam}/events`
      .setUrlParams(Schema.Struct({
        after: Schema.optional(Schema.String).annotations({
          description: "Resume after this event id (the SSE `Last-Event-ID` header does the same)"
        }),
        batch: Schema.optional(Schema.Literal("1")).annotations({
          description:
            "Send `events` frames, one per read of up to 5,000 events (data: an array of what `event` frames carry; id: the last one's), instead of one `event` frame per event"
        })
      }))
      .addSuccess(EventStream)
  )
  .add(
    HttpApiEndpoint.get("messages")`/${threadIdParam}/messages`
      .setUrlParams(MessagePageParams)
      .addSuccess(MessagePage)
      .annotate(
        OpenApi.Description,
        "A page of the thread's messages, with a cursor to the next; an unreadable thread is 404, a group or workflow run 400"
      )
  )
  .add(
    HttpApiEndpoint.get("message")`/${threadIdParam}/messages/${HttpApiSchema.param("messageId", Schema.String)}`
      .addSuccess(ThreadMessage)
      .annotate(OpenApi.Description, "One message with its whole text, never truncated")
  )
  .add(
    HttpApiEndpoint.get("changes")`/${threadIdParam}/changes`
      .setUrlParams(Schema.Struct({
        reportId: ChangesPageInput.fields.reportId,
        path: ChangesPageInput.fields.path,
        cursor: Schema.optional(Schema.String),
        limit: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, MAX_CHANGES_PAGE)))
      }))
      .addSuccess(ChangesPage)
      .annotate(OpenApi.Description, "A page of the thread's latest (or reportId's) change report, as get_thread_changes returns it")
  )
  .add(HttpApiEndpoint.post("retry")`/${threadIdParam}/retry`.addSuccess(Thread).addError(Conflict, { status: 409 }))
  .add(
    HttpApiEndpoint.post("startFresh")`/${threadIdParam}/start-fresh`
      .addSuccess(Thread)
      .addError(Conflict, { status: 409 })
      .annotate(
        OpenApi.Description,
        "Forget the thread's runtime session: its next run starts a new one on any machine of the profile, told the conversation so far"
      )
  )
  .add(
    HttpApiEndpoint.post("stop")`/${threadIdParam}/stop`
      .addSuccess(StopResult)
      .annotate(
        OpenApi.Description,
        "Stop the running turn: the CLI interrupts the runtime and the turn ends as stopped; with nothing running, nothing changes (stopRequested: false)"
      )
  )
  .add(
    HttpApiEndpoint.post("setDone")`/${threadIdParam}/done`
      .setPayload(Schema.Struct({ done: Schema.Boolean }))
      .addSuccess(Thread)
  )
  .add(
    HttpApiEndpoint.post("setPinned")`/${threadIdParam}/pin`
      .setPayload(Schema.Struct({ pinned: Schema.Boolean }))
      .addSuccess(Thread)
  )
  .add(
    HttpApiEndpoint.post("setShared")`/${threadIdParam}/share`
      .setPayload(Schema.Struct({ shared: Schema.Boolean }))
      .addSuccess(Thread)
  )
  .add(
    HttpApiEndpoint.post("setQueueHeld")`/${threadIdParam}/queue`
      .setPayload(Schema.Struct({ held: Schema.Boolean }))
      .addSuccess(Thread)
  )
  .add(
    HttpApiEndpoint.get("pendingInteractions")`/${threadIdParam}/interactions`
      .addSuccess(Schema.Struct({ interactions: Schema.Array(Interaction) }))
  )
  .add(
    HttpApiEndpoint.post("answerInteraction")`/interactions/${HttpApiSchema.param("interactionId", Schema.String)}/answer`
      .setPayload(Schema.Struct({
        deny: Schema.optional(Schema.Boolean).annotations({ description: "Refuse instead of answering (default false)" }),
        answer: Schema.optional(Schema.Unknown).annotations({
          description: "The reply: a permission decision or the chosen answers; the first answer stands"
        })
      }))
      .addSuccess(Interaction)
  )
  .add(
    HttpApiEndpoint.post("createWorkflowRun", "/workflow-runs")
      .setPayload(Schema.Struct({ projectId: ProjectId, title: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(80)) }))
      .addSuccess(Thread)
  )
  .addError(NotFound, { status: 404 })
  .addError(Forbidden, { status: 403 })
  .addError(InvalidArgument, { status: 400 })
  .prefix("/api/threads")
  .middleware(Authentication)
{}
