import { Either } from "effect"
import { callTool, describeError } from "../lib/api"
import type { OrdinaryThread, ThreadContainer } from "../lib/format"
import { listPending } from "./interactionRoutes"
import type { Entry } from "./useInteractions"

/** Where a waiting interaction comes from: its thread, and the group or workflow run it belongs to. */
export interface Origin {
  readonly thread: OrdinaryThread
  readonly container: ThreadContainer | undefined
}

/** The most recently active threads of the project that are read (a pending request moves its thread up). */
const PAGE = 50

/**
 * Every pending interaction of the person's threads in the project: the threads that say
 * `hasPendingInteraction`, and the members that do of each group or workflow run whose aggregate
 * status is `needs_attention`; then each one's pending requests.
 */
export const loadWaiting = (projectId: string, signal: AbortSignal): Promise<Either.Either<ReadonlyArray<Entry<Origin>>, string>> =>
  loadAttention(projectId, signal).then(Either.map(({ waiting }) => waiting))

/** What may need the person: the project's most recently active threads, and the requests waiting on them. */
export interface Attention {
  readonly threads: ReadonlyArray<OrdinaryThread | ThreadContainer>
  readonly waiting: ReadonlyArray<Entry<Origin>>
}

/** `loadWaiting`, with the threads it read on the way (their statuses tell what finished or failed). */
export const loadAttention = async (projectId: string, signal: AbortSignal): Promise<Either.Either<Attention, string>> => {
  const listed = await callTool("list_threads", { projectId, limit: PAGE }, signal)
  if (Either.isLeft(listed)) return Either.left(describeError(listed.left))
  const origins: Array<Origin> = []
  const containers: Array<ThreadContainer> = []
  for (const thread of listed.right.threads) {
    if (thread.kind === "thread") {
      if (thread.hasPendingInteraction) origins.push({ thread, container: undefined })
    } else if (thread.aggregateStatus === "needs_attention") containers.push(thread)
  }
  const members = await Promise.all(
    containers.map((container) =>
      callTool("list_threads", { threadId: container.threadId, includeDone: true }, signal).then((found) =>
        Either.map(
          found,
          (result) =>
            result.threads.flatMap((thread) => (thread.kind === "thread" && thread.hasPendingInteraction ? [{ thread, container }] : []))
        )
      )
    )
  )
  for (const found of members) {
    if (Either.isLeft(found)) return Either.left(describeError(found.left))
    origins.push(...found.right)
  }
  const pending = await Promise.all(
    origins.map((origin) =>
      listPending(origin.thread.threadId, signal).then((found) =>
        Either.map(found, (interactions) => interactions.map((interaction) => ({ interaction, context: origin })))
      )
    )
  )
  const entries: Array<Entry<Origin>> = []
  for (const found of pending) {
    if (Either.isLeft(found)) return Either.left(found.left)
    entries.push(...found.right)
  }
  return Either.right({
    threads: listed.right.threads,
    waiting: entries.sort((a, b) => a.interaction.createdAt.localeCompare(b.interaction.createdAt))
  })
}
