import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiError from "@effect/platform/HttpApiError"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import { Duration, Effect, Layer, Redacted } from "effect"
import { ApiKeys } from "../platform/auth/ApiKeys.js"
import { WebSessions } from "../platform/auth/WebSessions.js"
import { CurrentPrincipal } from "../platform/auth/Principal.js"
import { Projects } from "../projects/Projects.js"
import { MessagePages } from "../threads/MessagePages.js"
import { ThreadGroups } from "../threads/ThreadGroups.js"
import { ThreadControls } from "../threads/ThreadControls.js"
import { ThreadMessages } from "../threads/ThreadMessages.js"
import { TurnStops } from "../threads/TurnStops.js"
import { threadView } from "../threads/ThreadTools.js"
import { TrellisConfig } from "../platform/TrellisConfig.js"
import { AgentSessions } from "./AgentSessions.js"
import { fastRoute, type GroupHandler, makeFastEndpoints } from "../platform/http/FastEndpoints.js"
import { bearerToken } from "../platform/http/RequestGuard.js"
import { AgentGroup } from "../../catalog/bridge/AgentApi.js"
import { DEFAULT_CHANGES_PAGE } from "../../catalog/ThreadChanges.js"
import { Authentication } from "../../catalog/bridge/Authentication.js"
import { TrellisApi } from "../../catalog/bridge/TrellisApi.js"
import { EventStreams, parseCursor } from "../threads/EventStreams.js"
import { sseResponse } from "../platform/http/Sse.js"
import { ProjectHandlers } from "../projects/ProjectsHttp.js"
import { TaskFileHandlers } from "../tasks/TaskFilesHttp.js"
import { TaskOrderHandlers } from "../tasks/TaskOrderHttp.js"
import { PromptHandlers } from "../prompts/PromptsHttp.js"
import { Interactions } from "./Interactions.js"
import { Batches } from "./Batches.js"
import { ChunkUploads } from "./ChunkUploads.js"
import { ClaimLeases } from "./ClaimLeases.js"
import { ThreadClaims } from "./ThreadClaims.js"
import { WorktreeReports } from "./WorktreeReports.js"
import { ChangeReports } from "./ChangeReports.js"
import { ChangeReportPages } from "../threads/ChangeReportPages.js"

/**
 * The Bearer API key, checked like `/api/mcp`'s: the principal is what every handler acts as.
 * The platform hands over the header minus its first seven characters; the GuardMiddleware has
 * already refused any header that is not `Bearer <key>`, so putting the scheme back and parsing
 * with the guard's parser gives the key the guard checked (extra spaces, lowercase `bearer`).
 */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.zipWith(ApiKeys, WebSessions, (apiKeys, webSessions) => ({
    bearer: (token: Redacted.Redacted<string>) => {
      const key = bearerToken(`Bearer ${Redacted.value(token)}`)
      return key === undefined
        ? Effect.fail(new HttpApiError.Unauthorized())
        : apiKeys.authenticate(key).pipe(Effect.mapError(() => new HttpApiError.Unauthorized()))
    },
    // The RequestGuard has already required an allowed Origin of a session request that changes anything.
    session: (token: Redacted.Redacted<string>) =>
      Redacted.value(token) === ""
        ? Effect.fail(new HttpApiError.Unauthorized())
        : webSessions.authenticate(Redacted.value(token)).pipe(Effect.mapError(() => new HttpApiError.Unauthorized()))
  }))
)

type Hot<Name extends string> = GroupHandler<typeof AgentGroup, Name>

/**
 * The endpoints a CLI calls for every thread and batch, as plain handlers: the HttpApi group
 * serves them, and so does `trellis serve`'s fast path (src/platform/http/FastEndpoints.ts).
 */
const hotHandlers = Effect.gen(function*() {
  const sessions = yield* AgentSessions
  const claims = yield* ThreadClaims
  const leases = yield* ClaimLeases
  const batches = yield* Batches
  const uploads = yield* ChunkUploads
  const { bridge } = yield* TrellisConfig
  const timings = { heartbeatIntervalMs: bridge.heartbeatIntervalMs, sessionTtlMs: bridge.sessionTtlMs, claimLeaseMs: bridge.claimLeaseMs }
  const heartbeat: Hot<"heartbeat"> = ({ payload }) =>
    Effect.flatMap(CurrentPrincipal, (principal) => sessions.heartbeat(principal, payload.sessionId)).pipe(Effect.as(timings))
  const claim: Hot<"claim"> = ({ payload }) =>
    Effect.gen(function*() {
      const thread = yield* claims.claim(yield* CurrentPrincipal, payload.sessionId, payload.threadId)
      return { thread: thread ?? null }
    })
  const renew: Hot<"renew"> = ({ path, payload }) =>
    Effect.gen(function*() {
      const lease = yield* leases.renew(yield* CurrentPrincipal, payload.sessionId, path.threadId, payload.epoch)
      return { leaseExpiresAt: lease.toISOString() }
    })
  const startBatch: Hot<"startBatch"> = ({ path, payload }) =>
    Effect.flatMap(
      CurrentPrincipal,
      (principal) => batches.startBatch(principal, payload.sessionId, path.threadId, payload.epoch, payload.transport)
    )
  const uploadChunks: Hot<"uploadChunks"> = ({ path, payload }) =>
    Effect.flatMap(
      CurrentPrincipal,
      (principal) => uploads.uploadChunks(principal, payload.sessionId, path.threadId, payload.epoch, payload)
    )
  const complete: Hot<"complete"> = ({ path, payload }) =>
    Effect.flatMap(CurrentPrincipal, (principal) =>
      batches.finishBatch(principal, payload.sessionId, path.threadId, payload.epoch, {
        messageId: payload.messageId,
        outcome: { _tag: "Completed" },
        runtimeSessionId: payload.runtimeSessionId
      }))
  const fail: Hot<"fail"> = ({ path, payload }) =>
    Effect.flatMap(CurrentPrincipal, (principal) =>
      batches.finishBatch(principal, payload.sessionId, path.threadId, payload.epoch, {
        messageId: payload.messageId,
        outcome: { _tag: "Failed", errorMessage: payload.errorMessage },
        runtimeSessionId: payload.runtimeSessionId
      }))
  const release: Hot<"release"> = ({ path, payload }) =>
    Effect.flatMap(CurrentPrincipal, (principal) => leases.release(principal, payload.sessionId, path.threadId, payload.epoch))
  return { timings, heartbeat, claim, renew, startBatch, uploadChunks, complete, fail, release } as const
})

/** The hot endpoints on `trellis serve`'s `node:http` fast path. */
export const makeAgentFastEndpoints = Effect.map(hotHandlers, (hot) =>
  makeFastEndpoints([
    fastRoute(AgentGroup, "heartbeat", hot.heartbeat),
    fastRoute(AgentGroup, "claim", hot.claim),
    fastRoute(AgentGroup, "renew", hot.renew),
    fastRoute(AgentGroup, "startBatch", hot.startBatch),
    fastRoute(AgentGroup, "uploadChunks", hot.uploadChunks),
    fastRoute(AgentGroup, "complete", hot.complete),
    fastRoute(AgentGroup, "fail", hot.fail),
    fastRoute(AgentGroup, "release", hot.release)
  ]))

const AgentHandlers = HttpApiBuilder.group(TrellisApi, "agent", (handlers) =>
  Effect.gen(function*() {
    const sessions = yield* AgentSessions
    const streams = yield* EventStreams
    const interactions = yield* Interactions
    const hot = yield* hotHandlers
    const worktrees = yield* WorktreeReports
    const changes = yield* ChangeReports
    const stops = yield* TurnStops
    return handlers
      .handle("register", ({ payload }) =>
        Effect.gen(function*() {
          const registered = yield* sessions.register(yield* CurrentPrincipal, payload)
          return { sessionId: registered.sessionId, profile: registered.profile, timings: hot.timings }
        }))
      .handle("heartbeat", hot.heartbeat)
      .handle("disconnect", ({ payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => sessions.disconnect(principal, payload.sessionId)))
      .handleRaw("pendingThreads", ({ path }) =>
        Effect.gen(function*() {
          const stream = yield* streams.pendingThreads(yield* CurrentPrincipal, path.sessionId)
          return sseResponse(stream)
        }))
      .handle("claim", hot.claim)
      .handle("renew", hot.renew)
      .handle("startBatch", hot.startBatch)
      .handle("uploadChunks", hot.uploadChunks)
      .handle("complete", hot.complete)
      .handle("fail", hot.fail)
      .handle("reportWorktree", ({ path, payload }) =>
        Effect.gen(function*() {
          const pathId = yield* worktrees.reportWorktree(yield* CurrentPrincipal, payload.sessionId, path.threadId, payload.epoch, payload)
          return { pathId }
        }))
      .handle("reportChanges", ({ path, payload: { epoch, sessionId, ...body } }) =>
        Effect.gen(function*() {
          const reportId = yield* changes.report(yield* CurrentPrincipal, sessionId, path.threadId, epoch, body)
          return { reportId }
        }))
      .handle("reportRequestedChanges", ({ path, payload: { requestedAt, sessionId, ...body } }) =>
        Effect.gen(function*() {
          const reportId = yield* changes.reportRequested(yield* CurrentPrincipal, sessionId, path.threadId, requestedAt, body)
          return { reportId }
        }))
      .handle("requestInteraction", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          interactions.request(principal, payload.sessionId, path.threadId, payload.epoch, payload)))
      .handle("awaitInteraction", ({ path, urlParams }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          interactions.await(principal, path.interactionId, Duration.millis(urlParams.waitMs ?? 0))))
      .handle("release", hot.release)
      .handle("awaitStop", ({ path, urlParams }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          stops.await(principal, path.threadId, urlParams.messageId, Duration.millis(urlParams.waitMs ?? 0))))
  }))

const ThreadHandlers = HttpApiBuilder.group(TrellisApi, "threads", (handlers) =>
  Effect.gen(function*() {
    const pages = yield* MessagePages
    const groups = yield* ThreadGroups
    const messages = yield* ThreadMessages
    const controls = yield* ThreadControls
    const stops = yield* TurnStops
    const projects = yield* Projects
    const streams = yield* EventStreams
    const interactions = yield* Interactions
    const changePages = yield* ChangeReportPages
    return handlers
      .handleRaw("events", ({ path, request, urlParams }) =>
        Effect.gen(function*() {
          const after = parseCursor(urlParams.after ?? request.headers["last-event-id"])
          const stream = yield* streams.threadEvents(yield* CurrentPrincipal, path.threadId, after, urlParams.batch === "1")
          return sseResponse(stream)
        }))
      .handle("messages", ({ path, urlParams }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => pages.page(principal, path.threadId, urlParams)))
      .handle("message", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          pages.message(principal, path.threadId, path.messageId)))
      .handle("changes", ({ path, urlParams }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          changePages.page(principal, {
            threadId: path.threadId,
            reportId: urlParams.reportId,
            path: urlParams.path,
            limit: urlParams.limit ?? DEFAULT_CHANGES_PAGE,
            cursor: urlParams.cursor ?? null
          })))
      .handle("retry", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          messages.retry(principal, path.threadId)).pipe(Effect.map(threadView)))
      .handle("startFresh", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          controls.startFresh(principal, path.threadId)).pipe(Effect.map(threadView)))
      .handle("stop", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          stops.request(principal, path.threadId)))
      .handle("setDone", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          controls.setDone(principal, path.threadId, payload.done)).pipe(
            Effect.map(threadView)
          ))
      .handle("setPinned", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          controls.setFlag(principal, path.threadId, "pinned", payload.pinned)).pipe(
            Effect.map(threadView)
          ))
      .handle("setShared", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          controls.setFlag(principal, path.threadId, "shared", payload.shared)).pipe(
            Effect.map(threadView)
          ))
      .handle("setQueueHeld", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          controls.setQueueHeld(principal, path.threadId, payload.held)).pipe(
            Effect.map(threadView)
          ))
      .handle("pendingInteractions", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          interactions.listPending(principal, path.threadId)).pipe(
            Effect.map((list) => ({ interactions: list }))
          ))
      .handle("answerInteraction", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          interactions.answer(principal, path.interactionId, { deny: payload.deny ?? false, answer: payload.answer })))
      .handle("createWorkflowRun", ({ payload }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const access = yield* projects.access(principal, payload.projectId)
          return threadView(yield* groups.createWorkflowRun(principal, access, payload.title))
        }))
  }))

export const OPENAPI_PATH = "/api/openapi.json"

/** The bridge and client endpoints on the router, with their OpenAPI document. */
export const AgentRoutes = HttpLayerRouter.addHttpApi(TrellisApi, { openapiPath: OPENAPI_PATH }).pipe(
  Layer.provide(
    Layer.mergeAll(AgentHandlers, ThreadHandlers, ProjectHandlers, TaskFileHandlers, TaskOrderHandlers, PromptHandlers).pipe(
      Layer.provideMerge(AuthenticationLive)
    )
  )
)
