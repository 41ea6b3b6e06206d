import { Chunk, Duration, Effect, Queue, Stream } from "effect"
import type { ProjectId } from "../../catalog/domain/Ids.js"
import type { Principal } from "../platform/auth/Principal.js"
import { RevokedKeys } from "../platform/auth/RevokedKeys.js"
import { sseBody, sseFrame } from "../platform/http/Sse.js"
import { LiveEvents, type ThreadChange } from "../platform/notifications/LiveEvents.js"
import { Projects } from "../projects/Projects.js"

/**
 * A project's thread changes as server-sent events, for pages that show its threads: each frame
 * names the threads whose state changed (a run started or ended, a request raised or answered, a
 * message, done, pinned, shared), so a page reads again what it shows of those and nothing else,
 * instead of asking on a timer. The frame carries ids only: what changed is read through the
 * reader's own access, as any other read.
 */

/**
 * How long changes are gathered into one frame: a burst (a batch's events, a hundred threads
 * created) costs a page one read per window, and a single change still shows within it.
 */
const GATHER = Duration.millis(200)

/** The thread changes the principal may read: their own threads and what a teammate shared. */
const readableBy = (principal: Principal) => (change: ThreadChange) => change.owner === principal.userId || change.shared

export class ProjectChanges extends Effect.Service<ProjectChanges>()("trellis/ProjectChanges", {
  effect: Effect.gen(function* () {
    const live = yield* LiveEvents
    const projects = yield* Projects
    const revokedKeys = yield* RevokedKeys

    /** `changes` frames (`{threadIds}`) for the project from now on, until the key is revoked or the client leaves. */
    const stream = Effect.fn("ProjectChanges.stream")(function* (principal: Principal, projectId: ProjectId) {
      yield* projects.access(principal, projectId)
      const readable = readableBy(principal)
      return Stream.unwrapScoped(Effect.gen(function* () {
        const changes = yield* live.projectChanges(projectId)
        const gathered = Effect.gen(function* () {
          const first = yield* Queue.take(changes)
          yield* Effect.sleep(GATHER)
          const rest = yield* Queue.takeAll(changes)
          return [...new Set(Chunk.toArray(Chunk.prepend(rest, first)).filter(readable).map((change) => change.threadId))]
        })
        const frames = Stream.repeatEffect(gathered).pipe(
          Stream.filter((threadIds) => threadIds.length > 0),
          Stream.map((threadIds) => sseFrame({ event: "changes", data: { threadIds } }))
        )
        // A stream outlives the request that authenticated it: it ends when its key is revoked.
        return sseBody(frames, yield* revokedKeys.revoked(principal.apiKeyId))
      }))
    })

    return { stream } as const
  }),
  dependencies: [LiveEvents.Default, Projects.Default, RevokedKeys.Default]
}) {}
