import { Chunk, Duration, Effect, Option, Queue, Ref, Stream } from "effect"
import type { ProjectId } from "../../catalog/domain/Ids.js"
import type { Principal } from "../platform/auth/Principal.js"
import { RevokedKeys } from "../platform/auth/RevokedKeys.js"
import { sseBody, sseFrame } from "../platform/http/Sse.js"
import { LiveEvents, type ProjectChange } from "../platform/notifications/LiveEvents.js"
import { ChangeLog } from "./ChangeLog.js"
import { Projects } from "./Projects.js"

/**
 * A project's changes as server-sent events, for pages that show its threads and machines: each
 * frame names the threads whose state changed (a run started or ended, a request raised or
 * answered, a message, done, pinned, shared) and the machines that went online or offline, so a
 * page reads again what it shows of those and nothing else, instead of asking on a timer. The
 * frame carries ids only: what changed is read through the reader's own access, as any other read.
 * Each frame's id is the number of the last change it covers (ChangeLog), where a reconnecting
 * page resumes.
 */

/**
 * How long changes are gathered into one frame: a burst (a batch's events, a hundred threads
 * created) costs a page one read per window, and a single change still shows within it.
 */
const GATHER = Duration.millis(200)

/**
 * What the principal may read: their own threads and machines, the threads a teammate shared, and
 * the project's content (its tasks, Lists, labels, artifacts, agents, prompts and Skills are every
 * member's to read), except an organization's Skills for a key narrowed to projects (SPEC).
 */
const readableBy = (principal: Principal) => (change: ProjectChange) =>
  "kind" in change
    ? !(change.kind === "skill" && change.organization && principal.projectIds !== null)
    : change.owner === principal.userId || ("shared" in change && change.shared)

const idsOf = (changes: ReadonlyArray<ProjectChange>, pick: (change: ProjectChange) => string | undefined) => [
  ...new Set(changes.flatMap((change) => pick(change) ?? []))
]
const contentOf = (kind: "task" | "list" | "label" | "artifact" | "agent" | "prompt" | "skill") => (change: ProjectChange) =>
  "kind" in change && change.kind === kind ? change.id : undefined

/** One frame's worth: what was named, each once. */
const frameOf = (changes: ReadonlyArray<ProjectChange>) => ({
  threadIds: idsOf(changes, (change) => ("threadId" in change ? change.threadId : undefined)),
  profileIds: idsOf(changes, (change) => ("profileId" in change ? change.profileId : undefined)),
  taskIds: idsOf(changes, contentOf("task")),
  listIds: idsOf(changes, contentOf("list")),
  labelIds: idsOf(changes, contentOf("label")),
  artifactIds: idsOf(changes, contentOf("artifact")),
  agentIds: idsOf(changes, contentOf("agent")),
  promptIds: idsOf(changes, contentOf("prompt")),
  skillIds: idsOf(changes, contentOf("skill"))
})

/** The highest number among `changes`, or `told` if higher (a frame's id only ever grows). */
const highest = (told: number, changes: ReadonlyArray<ProjectChange>) => changes.reduce((max, change) => Math.max(max, change.seq), told)

/** A frame of only an id: it sets the browser's `Last-Event-ID` and shows nothing (SSE dispatches no event without data). */
const idFrame = (seq: number) => `id: ${seq}\n\n`

export class ProjectChanges extends Effect.Service<ProjectChanges>()("trellis/ProjectChanges", {
  effect: Effect.gen(function*() {
    const live = yield* LiveEvents
    const projects = yield* Projects
    const revokedKeys = yield* RevokedKeys
    const changeLog = yield* ChangeLog

    /**
     * `changes` frames for the project from now on, until the key is revoked or the client leaves;
     * with `after` (the id of the last frame the client got), first those it missed since, or a
     * `reset` frame when the log no longer holds them all.
     */
    const stream = Effect.fn("ProjectChanges.stream")(function*(principal: Principal, projectId: ProjectId, after: Option.Option<number>) {
      yield* projects.access(principal, projectId)
      const readable = readableBy(principal)
      return Stream.unwrapScoped(Effect.gen(function*() {
        // Subscribed before the log is read: a change written meanwhile comes twice, never not at all.
        const changes = yield* live.projectChanges(projectId)
        const told = yield* Ref.make(0)
        const frameOfNew = (gathered: ReadonlyArray<ProjectChange>) =>
          Effect.map(Ref.updateAndGet(told, (seq) => highest(seq, gathered)), (seq) => {
            const shown = gathered.filter(readable)
            return shown.length === 0 ? undefined : sseFrame({ id: String(seq), event: "changes", data: frameOf(shown) })
          })

        const opening = Option.match(after, {
          onNone: () => Effect.map(changeLog.latest(), ({ latest }) => [idFrame(latest)]),
          onSome: (seq) =>
            Effect.gen(function*() {
              yield* Ref.set(told, seq)
              const replay = yield* changeLog.since(projectId, seq)
              if (replay._tag === "Changes") return Option.toArray(Option.fromNullable(yield* frameOfNew(replay.changes)))
              const { latest } = yield* changeLog.latest()
              yield* Ref.set(told, latest)
              return [sseFrame({ id: String(latest), event: "reset", data: {} })]
            })
        })

        const gathered = Effect.gen(function*() {
          const first = yield* Queue.take(changes)
          yield* Effect.sleep(GATHER)
          const rest = yield* Queue.takeAll(changes)
          return yield* frameOfNew(Chunk.toArray(Chunk.prepend(rest, first)))
        })
        const frames = Stream.concat(
          Stream.fromIterableEffect(opening),
          Stream.repeatEffect(gathered).pipe(Stream.filterMap(Option.fromNullable))
        )
        // A stream outlives the request that authenticated it: it ends when its key is revoked.
        return sseBody(frames, yield* revokedKeys.revoked(principal.apiKeyId))
      }))
    })

    return { stream } as const
  }),
  dependencies: [LiveEvents.Default, Projects.Default, RevokedKeys.Default, ChangeLog.Default]
}) {}
