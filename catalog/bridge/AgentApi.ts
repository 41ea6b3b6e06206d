import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { Authentication } from "./Authentication.js"
import { EventStream } from "./EventStream.js"
import { AvailableCli, CliProfile } from "../domain/CliProfile.js"
import { CliType, RuntimeTransport } from "../domain/CliType.js"
import { Conflict, Forbidden, InvalidArgument, NotFound } from "../domain/Errors.js"
import { AgentSessionId, CliProfileId, ProjectId } from "../domain/Ids.js"
import { ClaimLost, SessionConflict, SessionExpired } from "./BridgeErrors.js"
import { Interaction, InteractionKind } from "../domain/Interaction.js"
import { ChangeReportBody, Commit } from "../domain/ChangeReport.js"

/**
 * The CLI bridge over HTTP (SPEC "CLI bridge HTTP endpoints", DESIGN §6): the contract both the
 * backend and the CLI's typed client are built from. OpenAPI is served at `/api/openapi.json`.
 */

const threadIdParam = HttpApiSchema.param("threadId", Schema.String)

const Epoch = Schema.Int.pipe(Schema.nonNegative()).annotations({
  description: "The claim epoch the thread was claimed under; a write under an older epoch is refused (fencing)"
})

const SessionRef = Schema.Struct({ sessionId: AgentSessionId })

const ClaimRef = Schema.Struct({ sessionId: AgentSessionId, epoch: Epoch })

export const RegisterPayload = Schema.Struct({
  profileId: Schema.optional(CliProfileId).annotations({
    description: "The profile this CLI registered before; omitted on first registration"
  }),
  projectId: ProjectId,
  name: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(80)),
  hostname: Schema.String.pipe(Schema.maxLength(255)),
  machineId: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(128))).annotations({
    description: "Stable for the machine the CLI runs on: a thread whose runtime session this machine holds is only claimed here"
  }),
  appVersion: Schema.String.pipe(Schema.maxLength(64)),
  availableClis: Schema.Array(AvailableCli).pipe(Schema.maxItems(20)),
  paths: Schema.Array(Schema.Struct({
    path: Schema.String.pipe(Schema.startsWith("/", { message: () => "must be an absolute path" })),
    label: Schema.optional(Schema.String),
    gitRemoteUrl: Schema.optional(Schema.NullOr(Schema.String)),
    branch: Schema.optional(Schema.NullOr(Schema.String))
  })).pipe(Schema.maxItems(200)),
  force: Schema.optionalWith(Schema.Boolean, { default: () => false }).annotations({
    description: "End the profile's other live session (and release its claims) instead of failing with 409"
  })
})

export const Timings = Schema.Struct({
  heartbeatIntervalMs: Schema.Number,
  sessionTtlMs: Schema.Number,
  claimLeaseMs: Schema.Number
})

export const ClaimedThread = Schema.Struct({
  threadId: Schema.String,
  title: Schema.String,
  epoch: Epoch,
  leaseExpiresAt: Schema.String,
  cliType: CliType,
  cliModel: Schema.NullOr(Schema.String),
  cliEffort: Schema.NullOr(Schema.String),
  cliMode: Schema.NullOr(Schema.String),
  pathId: Schema.NullOr(Schema.String),
  path: Schema.NullOr(Schema.String),
  worktree: Schema.NullOr(Schema.Unknown),
  runtimeSessionId: Schema.NullOr(Schema.String),
  agentPrompt: Schema.NullOr(Schema.String)
})

export type ClaimedThread = typeof ClaimedThread.Type

export const BatchUserMessage = Schema.Struct({
  messageId: Schema.String,
  content: Schema.String,
  runtimeCommand: Schema.Boolean,
  sentByThreadId: Schema.NullOr(Schema.String),
  createdAt: Schema.String
})

export const BatchResponse = Schema.Union(
  Schema.Struct({ drained: Schema.Literal(true) }),
  Schema.Struct({
    drained: Schema.Literal(false),
    assistantMessageId: Schema.String,
    messages: Schema.Array(BatchUserMessage),
    runtimeSessionId: Schema.NullOr(Schema.String)
  })
)

export const MAX_CHUNKS_PER_UPLOAD = 1000

/**
 * A line the CLI itself adds to a runtime's stream, the same for every runtime: `{"message"}`
 * (e.g. a lost runtime session started afresh).
 */
export const CLI_WARNING_TYPE = "trellis.warning"

/**
 * The line the CLI adds when a turn ended because its owner stopped it (`{"message"}`), after
 * the runtime's own lines: the turn reads Stopped whatever the runtime said of it.
 */
export const CLI_STOPPED_TYPE = "trellis.stopped"

export const ChunkUpload = Schema.Struct({
  sessionId: AgentSessionId,
  epoch: Epoch,
  messageId: Schema.String,
  chunks: Schema.Array(Schema.Struct({
    seq: Schema.Int.pipe(Schema.nonNegative()),
    type: Schema.String.pipe(Schema.maxLength(200)),
    data: Schema.String
  })).pipe(Schema.maxItems(MAX_CHUNKS_PER_UPLOAD)),
  runtimeSessionId: Schema.optional(Schema.String)
})

/** A change report (issue 31 §1), sent under the claim after each turn. */
export const ChangeReportPayload = Schema.Struct({ sessionId: AgentSessionId, epoch: Epoch, ...ChangeReportBody.fields })

/**
 * A fresh report asked for (`refresh_thread_changes`), as a session's pending stream lists them in
 * its `changes` event (`{"requests": [...]}`): the thread's working copy on this machine and the
 * base its last report was measured against.
 */
export const ChangeRequest = Schema.Struct({
  threadId: Schema.String,
  directory: Schema.String,
  baseCommit: Commit,
  requestedAt: Schema.String.annotations({ description: "When it was asked: a request asked again after an answer is a new one" })
})
export type ChangeRequest = typeof ChangeRequest.Type
export const ChangeRequestsEvent = Schema.Struct({ requests: Schema.Array(ChangeRequest) })

/** The answer to a change request: a report sent with no claim, by a session of the thread's machine. */
export const RequestedChangeReportPayload = Schema.Struct({
  sessionId: AgentSessionId,
  requestedAt: ChangeRequest.fields.requestedAt.annotations({
    description: "The request answered, as the pending stream gave it: one asked again since stays asked"
  }),
  ...ChangeReportBody.fields
})

export class AgentGroup extends HttpApiGroup.make("agent")
  .add(
    HttpApiEndpoint.post("register", "/register")
      .setPayload(RegisterPayload)
      .addSuccess(Schema.Struct({ sessionId: AgentSessionId, profile: CliProfile, timings: Timings }))
      .addError(SessionConflict, { status: 409 })
  )
  .add(
    HttpApiEndpoint.post("heartbeat", "/heartbeat")
      .setPayload(SessionRef)
      .addSuccess(Timings)
      .addError(SessionExpired, { status: 410 })
  )
  .add(HttpApiEndpoint.post("disconnect", "/disconnect").setPayload(SessionRef).addSuccess(HttpApiSchema.NoContent))
  .add(
    HttpApiEndpoint.get("pendingThreads")`/sessions/${HttpApiSchema.param("sessionId", AgentSessionId)}/pending`
      .addSuccess(EventStream)
      .addError(SessionExpired, { status: 410 })
  )
  .add(
    HttpApiEndpoint.post("claim", "/claim")
      .setPayload(Schema.Struct({ sessionId: AgentSessionId, threadId: Schema.optional(Schema.String) }))
      .addSuccess(Schema.Struct({ thread: Schema.NullOr(ClaimedThread) }))
      .addError(SessionExpired, { status: 410 })
  )
  .add(
    HttpApiEndpoint.post("renew")`/threads/${threadIdParam}/renew`
      .setPayload(ClaimRef)
      .addSuccess(Schema.Struct({ leaseExpiresAt: Schema.String }))
      .addError(ClaimLost, { status: 409 })
      .addError(SessionExpired, { status: 410 })
  )
  .add(
    HttpApiEndpoint.post("startBatch")`/threads/${threadIdParam}/batch`
      .setPayload(Schema.Struct({ sessionId: AgentSessionId, epoch: Epoch, transport: Schema.optional(RuntimeTransport) }))
      .addSuccess(BatchResponse)
      .addError(ClaimLost, { status: 409 })
      .addError(SessionExpired, { status: 410 })
  )
  .add(
    HttpApiEndpoint.post("uploadChunks")`/threads/${threadIdParam}/chunks`
      .setPayload(ChunkUpload)
      .addSuccess(Schema.Struct({ accepted: Schema.Number, duplicates: Schema.Number }))
      .addError(ClaimLost, { status: 409 })
      .addError(SessionExpired, { status: 410 })
  )
  .add(
    HttpApiEndpoint.post("complete")`/threads/${threadIdParam}/complete`
      .setPayload(Schema.Struct({
        sessionId: AgentSessionId,
        epoch: Epoch,
        messageId: Schema.String,
        runtimeSessionId: Schema.optional(Schema.String)
      }))
      .addSuccess(HttpApiSchema.NoContent)
      .addError(ClaimLost, { status: 409 })
      .addError(SessionExpired, { status: 410 })
  )
  .add(
    HttpApiEndpoint.post("fail")`/threads/${threadIdParam}/fail`
      .setPayload(Schema.Struct({
        sessionId: AgentSessionId,
        epoch: Epoch,
        messageId: Schema.String,
        errorMessage: Schema.String.pipe(Schema.maxLength(10_000)),
        runtimeSessionId: Schema.optional(Schema.String)
      }))
      .addSuccess(HttpApiSchema.NoContent)
      .addError(ClaimLost, { status: 409 })
      .addError(SessionExpired, { status: 410 })
  )
  .add(
    HttpApiEndpoint.post("release")`/threads/${threadIdParam}/release`
      .setPayload(ClaimRef)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(ClaimLost, { status: 409 })
      .addError(SessionExpired, { status: 410 })
  )
  .add(
    HttpApiEndpoint.post("reportWorktree")`/threads/${threadIdParam}/worktree`
      .setPayload(Schema.Struct({
        sessionId: AgentSessionId,
        epoch: Epoch,
        path: Schema.String.pipe(Schema.startsWith("/", { message: () => "must be an absolute path" })),
        branch: Schema.String
      }))
      .addSuccess(Schema.Struct({ pathId: Schema.String }))
      .addError(ClaimLost, { status: 409 })
      .addError(SessionExpired, { status: 410 })
  )
  .add(
    HttpApiEndpoint.post("reportChanges")`/threads/${threadIdParam}/changes`
      .setPayload(ChangeReportPayload)
      .addSuccess(Schema.Struct({ reportId: Schema.String }))
      .addError(ClaimLost, { status: 409 })
      .addError(SessionExpired, { status: 410 })
      .annotate(OpenApi.Description, "The thread's working copy against its base after a turn; the newest 20 per thread are kept")
  )
  .add(
    HttpApiEndpoint.post("reportRequestedChanges")`/threads/${threadIdParam}/requested-changes`
      .setPayload(RequestedChangeReportPayload)
      .addSuccess(Schema.Struct({ reportId: Schema.String }))
      .addError(Conflict, { status: 409 })
      .addError(SessionExpired, { status: 410 })
      .annotate(
        OpenApi.Description,
        "The thread's working copy reported between turns, answering a change request of the pending stream; refused (409) when nothing is asked of the thread or it runs on another machine"
      )
  )
  .add(
    HttpApiEndpoint.post("requestInteraction")`/threads/${threadIdParam}/interactions`
      .setPayload(Schema.Struct({
        sessionId: AgentSessionId,
        epoch: Epoch,
        kind: InteractionKind,
        request: Schema.Unknown.annotations({ description: "What the runtime asks: the tool and its input, or the questions" }),
        expiresInMs: Schema.optional(Schema.Int.pipe(Schema.positive())).annotations({
          description: "Unanswered after this long, the request expires (reported to the runtime as expired, never as denied)"
        })
      }))
      .addSuccess(Interaction)
      .addError(ClaimLost, { status: 409 })
      .addError(SessionExpired, { status: 410 })
  )
  .add(
    HttpApiEndpoint.get("awaitInteraction")`/interactions/${HttpApiSchema.param("interactionId", Schema.String)}`
      .setUrlParams(Schema.Struct({
        waitMs: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(0, 25_000))).annotations({
          description: "Long-poll: wait up to this long (at most 25 s) for an answer"
        })
      }))
      .addSuccess(Interaction)
  )
  .add(
    HttpApiEndpoint.get("awaitStop")`/threads/${threadIdParam}/stop`
      .setUrlParams(Schema.Struct({
        messageId: Schema.String.annotations({ description: "The assistant message of the turn being run" }),
        waitMs: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(0, 25_000))).annotations({
          description: "Long-poll: wait up to this long (at most 25 s) for a stop"
        })
      }))
      .addSuccess(Schema.Struct({ stopRequested: Schema.Boolean }))
      .annotate(
        OpenApi.Description,
        "Whether the thread's owner asked to stop this turn; answers at once when they have or the turn has ended"
      )
  )
  .addError(NotFound, { status: 404 })
  .addError(Forbidden, { status: 403 })
  .addError(InvalidArgument, { status: 400 })
  .prefix("/api/agent")
  .middleware(Authentication)
{}
