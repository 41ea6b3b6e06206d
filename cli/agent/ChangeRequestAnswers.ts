import { Effect, FiberSet } from "effect"
import type { ChangeRequest } from "../../catalog/bridge/AgentApi.js"
import type { AgentSessionId } from "../../catalog/domain/Ids.js"
import type { AgentLog } from "./AgentLog.js"
import type { BridgeClient } from "./BridgeClient.js"
import { answerChangeRequest } from "./ChangeReporter.js"

/**
 * The change reports asked between turns (the pending stream's `changes`), each answered in a
 * fiber of its own, once at a time per thread. One asked of a thread this CLI is running waits for
 * the run to end (`afterRun`): its turn's report may answer it first, and the backend then refuses
 * the late answer, which is only logged.
 */
export const makeChangeRequestAnswers = (options: {
  readonly client: BridgeClient
  readonly log: AgentLog
  readonly sessionId: Effect.Effect<AgentSessionId>
  readonly isRunning: (threadId: string) => boolean
}) =>
  Effect.gen(function*() {
    const reports = yield* FiberSet.make()
    const reporting = new Set<string>()
    const waiting = new Map<string, ChangeRequest>()

    const answerOne = (request: ChangeRequest) =>
      Effect.gen(function*() {
        if (reporting.has(request.threadId)) return
        reporting.add(request.threadId)
        const sessionId = yield* options.sessionId
        yield* FiberSet.run(
          reports,
          answerChangeRequest(options.client, sessionId, request, options.log).pipe(
            Effect.ensuring(Effect.sync(() => reporting.delete(request.threadId)))
          )
        )
      })

    const answer = (requests: ReadonlyArray<ChangeRequest>) =>
      Effect.forEach(requests, (request) => {
        if (!options.isRunning(request.threadId)) return answerOne(request)
        waiting.set(request.threadId, request)
        return Effect.void
      }, { discard: true })

    /** Called as a run ends (from a finalizer: the answer's fiber is made interruptible). */
    const afterRun = (threadId: string) =>
      Effect.suspend(() => {
        const request = waiting.get(threadId)
        waiting.delete(threadId)
        return request === undefined ? Effect.void : Effect.interruptible(answerOne(request))
      })

    return { answer, afterRun } as const
  })
