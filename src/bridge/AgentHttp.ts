import { HttpApiBuilder, HttpApiError, HttpLayerRouter, HttpServerResponse } from "@effect/platform"
import { Duration, Effect, Layer, Redacted, Stream } from "effect"
import { ApiKeys } from "../auth/ApiKeys.js"
import { CurrentPrincipal } from "../auth/Principal.js"
import { Projects } from "../services/Projects.js"
import { Threads } from "../services/Threads.js"
import { threadView } from "../tools/ThreadTools.js"
import { TrellisConfig } from "../TrellisConfig.js"
import { AgentSessions } from "./AgentSessions.js"
import { Authentication, TrellisApi } from "./AgentApi.js"
import { EventStreams, parseCursor } from "./EventStreams.js"
import { Interactions } from "./Interactions.js"
import { ThreadQueue } from "./ThreadQueue.js"

/** The Bearer API key, checked like `/api/mcp`'s: the principal is what every handler acts as. */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.map(ApiKeys, (apiKeys) => ({
    bearer: (token: Redacted.Redacted<string>) =>
      apiKeys.authenticate(Redacted.value(token)).pipe(Effect.mapError(() => new HttpApiError.Unauthorized()))
  }))
)

const AgentHandlers = HttpApiBuilder.group(TrellisApi, "agent", (handlers) =>
  Effect.gen(function* () {
    const sessions = yield* AgentSessions
    const queue = yield* ThreadQueue
    const streams = yield* EventStreams
    const interactions = yield* Interactions
    const { bridge } = yield* TrellisConfig
    const timings = { heartbeatIntervalMs: bridge.heartbeatIntervalMs, sessionTtlMs: bridge.sessionTtlMs, claimLeaseMs: bridge.claimLeaseMs }
    return handlers
      .handle("register", ({ payload }) =>
        Effect.gen(function* () {
          const registered = yield* sessions.register(yield* CurrentPrincipal, payload)
          return { sessionId: registered.sessionId, profile: registered.profile, timings }
        }))
      .handle("heartbeat", ({ payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => sessions.heartbeat(principal, payload.sessionId)).pipe(Effect.as(timings)))
      .handle("disconnect", ({ payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => sessions.disconnect(principal, payload.sessionId)))
      .handleRaw("pendingThreads", ({ path }) =>
        Effect.gen(function* () {
          const stream = yield* streams.pendingThreads(yield* CurrentPrincipal, path.sessionId)
          return sseResponse(stream)
        }))
      .handle("claim", ({ payload }) =>
        Effect.gen(function* () {
          const thread = yield* queue.claim(yield* CurrentPrincipal, payload.sessionId, payload.threadId)
          return { thread: thread === undefined ? null : { ...thread, leaseExpiresAt: thread.leaseExpiresAt.toISOString() } }
        }))
      .handle("renew", ({ path, payload }) =>
        Effect.gen(function* () {
          const lease = yield* queue.renew(yield* CurrentPrincipal, payload.sessionId, path.threadId, payload.epoch)
          return { leaseExpiresAt: lease.toISOString() }
        }))
      .handle("startBatch", ({ path, payload }) =>
        Effect.gen(function* () {
          const batch = yield* queue.startBatch(yield* CurrentPrincipal, payload.sessionId, path.threadId, payload.epoch, payload.transport)
          if (batch._tag === "Drained") return { drained: true as const }
          return {
            drained: false as const,
            assistantMessageId: batch.assistantMessageId,
            runtimeSessionId: batch.runtimeSessionId,
            messages: batch.messages.map((m) => ({ ...m, createdAt: m.createdAt.toISOString() }))
          }
        }))
      .handle("uploadChunks", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          queue.uploadChunks(principal, payload.sessionId, path.threadId, payload.epoch, payload)))
      .handle("complete", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          queue.finishBatch(principal, payload.sessionId, path.threadId, payload.epoch, {
            messageId: payload.messageId,
            outcome: { _tag: "Completed" },
            runtimeSessionId: payload.runtimeSessionId
          })))
      .handle("fail", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          queue.finishBatch(principal, payload.sessionId, path.threadId, payload.epoch, {
            messageId: payload.messageId,
            outcome: { _tag: "Failed", errorMessage: payload.errorMessage },
            runtimeSessionId: payload.runtimeSessionId
          })))
      .handle("reportWorktree", ({ path, payload }) =>
        Effect.gen(function* () {
          const pathId = yield* queue.reportWorktree(yield* CurrentPrincipal, payload.sessionId, path.threadId, payload.epoch, payload)
          return { pathId }
        }))
      .handle("requestInteraction", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          interactions.request(principal, payload.sessionId, path.threadId, payload.epoch, payload)))
      .handle("awaitInteraction", ({ path, urlParams }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          interactions.await(principal, path.interactionId, Duration.millis(urlParams.waitMs ?? 0))))
      .handle("release", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => queue.release(principal, payload.sessionId, path.threadId, payload.epoch)))
  })
)

const ThreadHandlers = HttpApiBuilder.group(TrellisApi, "threads", (handlers) =>
  Effect.gen(function* () {
    const threads = yield* Threads
    const projects = yield* Projects
    const streams = yield* EventStreams
    const interactions = yield* Interactions
    return handlers
      .handleRaw("events", ({ path, request, urlParams }) =>
        Effect.gen(function* () {
          const after = parseCursor(urlParams.after ?? request.headers["last-event-id"])
          const stream = yield* streams.threadEvents(yield* CurrentPrincipal, path.threadId, after)
          return sseResponse(stream)
        }))
      .handle("retry", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => threads.retry(principal, path.threadId)).pipe(Effect.map(threadView)))
      .handle("setDone", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => threads.setDone(principal, path.threadId, payload.done)).pipe(
          Effect.map(threadView)
        ))
      .handle("setPinned", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => threads.setFlag(principal, path.threadId, "pinned", payload.pinned)).pipe(
          Effect.map(threadView)
        ))
      .handle("setShared", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => threads.setFlag(principal, path.threadId, "shared", payload.shared)).pipe(
          Effect.map(threadView)
        ))
      .handle("setQueueHeld", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => threads.setQueueHeld(principal, path.threadId, payload.held)).pipe(
          Effect.map(threadView)
        ))
      .handle("pendingInteractions", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => interactions.listPending(principal, path.threadId)).pipe(
          Effect.map((list) => ({ interactions: list }))
        ))
      .handle("answerInteraction", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => interactions.answer(principal, path.interactionId, { deny: payload.deny ?? false, answer: payload.answer })))
      .handle("createWorkflowRun", ({ payload }) =>
        Effect.gen(function* () {
          const principal = yield* CurrentPrincipal
          const access = yield* projects.access(principal, payload.projectId)
          return threadView(yield* threads.createWorkflowRun(principal, access, payload.title))
        }))
  })
)

const sseResponse = <E>(stream: Stream.Stream<string, E>) =>
  HttpServerResponse.stream(stream.pipe(Stream.encodeText), {
    contentType: "text/event-stream",
    headers: { "cache-control": "no-cache", "x-accel-buffering": "no" }
  })

export const OPENAPI_PATH = "/api/openapi.json"

/** The bridge and client endpoints on the router, with their OpenAPI document. */
export const AgentRoutes = HttpLayerRouter.addHttpApi(TrellisApi, { openapiPath: OPENAPI_PATH }).pipe(
  Layer.provide(Layer.mergeAll(AgentHandlers, ThreadHandlers).pipe(Layer.provideMerge(AuthenticationLive)))
)
