import { lazy, type ReactNode, Suspense, useCallback, useEffect, useMemo, useRef } from "react"
import { describeError } from "../lib/api"
import { useTool } from "../lib/useTool"
import { useThreadEvents } from "../lib/events"
import { followLink, threadsPath } from "../lib/router"
import { usePageTitle } from "../lib/tabTitle"
import { ago, runtimeOf, StatusBadge, ThreadStatus } from "../lib/format"
import { LIST_SPACING_MS, LISTED, ThreadList } from "./Threads"
import { useReloadOnChange } from "../lib/projectChanges"
import { Timeline } from "../thread/Timeline"
import { Earlier } from "../thread/Earlier"
import { type Message, newTurns } from "../thread/rows"
import { useConversation } from "../thread/useConversation"
import { WholeTextsContext } from "../thread/UserText"
import { Composer } from "../thread/Composer"
import { ThreadActions } from "../thread/ThreadActions"
import { ThreadInteractions } from "../thread/ThreadInteractions"
import type { CliType } from "../../../catalog/domain/CliType.js"

/** What the thread changed: a chunk of its own, with the change report's Schemas and the diff view. */
const ChangesPanel = lazy(() => import("../changes/ChangesPanel"))

const noMessages: ReadonlyArray<Message> = []

/**
 * The messages come in pages from the client route (newest first, older ones as the reader
 * scrolls up) and the turns from the event stream. The newest end is read again only when
 * something changed: the stream names a turn the page does not hold, the thread's record moved
 * on (`activity`: its status and last activity, which the page reads anyway), or a message was
 * sent. Nothing is polled, so an idle tab reads only its event stream.
 * `requests` (the waiting cards) go between the conversation and the composer, where the call that asks stands.
 */
const Conversation = ({ threadId, cliType, running, waitingOnYou, requests, activity }: {
  readonly threadId: string
  readonly cliType: CliType
  readonly running: boolean
  readonly waitingOnYou: boolean
  readonly requests: ReactNode
  readonly activity: string
}) => {
  const { state, refresh, loadEarlier } = useConversation(threadId)
  const events = useThreadEvents(threadId)
  const composed = events.composed
  const known = state._tag === "Ready" ? state.messages : noMessages
  const hasEarlier = state._tag === "Ready" && state.hasEarlier
  const unseen = useMemo(() => newTurns(known, composed, hasEarlier), [known, composed, hasEarlier])
  // A turn the stream names and the page does not hold: read the newest end once for it.
  const asked = useRef(new Set<string>())
  const ready = state._tag === "Ready"
  useEffect(() => {
    if (!ready) return
    const fresh = unseen.filter((messageId) => !asked.current.has(messageId))
    if (fresh.length === 0) return
    for (const messageId of fresh) asked.current.add(messageId)
    void refresh()
  }, [unseen, ready, refresh])
  const seenActivity = useRef(activity)
  useEffect(() => {
    if (seenActivity.current === activity) return
    seenActivity.current = activity
    if (ready) void refresh()
  }, [activity, ready, refresh])
  const wholeTexts = useMemo(() => ({ threadId, texts: new Map<string, string>() }), [threadId])
  const onChanged = useCallback(() => void refresh(), [refresh])

  if (state._tag === "Loading") return <p className="page-status" role="status">Loading the conversation…</p>
  if (state._tag === "Failed") {
    return (
      <>
        <p className="page-status" role="alert">Cannot load the conversation: {state.message}</p>
        {requests}
      </>
    )
  }
  return (
    <WholeTextsContext.Provider value={wholeTexts}>
      <p className="hint live" role="status">{events.connected ? "Live" : "Reconnecting…"}</p>
      <Earlier
        hasEarlier={state.hasEarlier}
        loading={state.loadingEarlier}
        error={state.earlierError}
        onLoad={() => void loadEarlier()}
        count={known.length}
      />
      <Timeline messages={known} composed={composed} unseen={unseen} waitingOnYou={waitingOnYou} />
      {requests}
      <Composer threadId={threadId} cliType={cliType} running={running} onSent={onChanged} />
    </WholeTextsContext.Provider>
  )
}

/** One thread: its header and its conversation as the composer builds it from the event stream. */
export const ThreadPage = ({ projectId, threadId }: { readonly projectId: string; readonly threadId: string }) => {
  const [thread, reloadThread] = useTool("get_thread", { threadId })
  // Its record is read again when the project's changes stream names it (its `hasPendingInteraction`
  // is what brings a new request to the page); a group's or a workflow run's, when any thread changes.
  const single = thread._tag !== "Ready" || thread.value.kind === "thread"
  useReloadOnChange(reloadThread, single ? { threads: [threadId] } : LISTED, single ? 0 : LIST_SPACING_MS)
  usePageTitle(thread._tag === "Ready" ? thread.value.title : undefined)
  return (
    <article aria-labelledby="thread-title">
      <a className="back" href={threadsPath(projectId)} onClick={followLink}>← Threads</a>
      {thread._tag === "Loading" ? <p className="page-status" role="status">Loading the thread…</p> : null}
      {thread._tag === "Failed" ? <p className="page-status" role="alert">Cannot load the thread: {describeError(thread.error)}</p> : null}
      {thread._tag === "Ready" ?
        (
          <>
            <header className="thread-head">
              <h1 id="thread-title">{thread.value.title}</h1>
              {thread.value.kind === "thread" ?
                (
                  <div className="row-meta">
                    <ThreadStatus thread={thread.value} />
                    {thread.value.hasPendingInteraction ? <span className="badge attention">Waiting for you</span> : null}
                    <span className="meta">{runtimeOf(thread.value)}</span>
                    <span className="meta">
                      {thread.value.target.profileName}
                      {thread.value.target.path === null ? "" : `: ${thread.value.target.path}`}
                    </span>
                    {thread.value.isDone ? <span className="badge done">Done</span> : null}
                    <time className="meta" dateTime={thread.value.lastActivityAt}>{ago(thread.value.lastActivityAt)}</time>
                  </div>
                ) :
                (
                  <div className="row-meta">
                    <StatusBadge status={thread.value.aggregateStatus} />
                    <span className="meta">{thread.value.childCount} threads</span>
                    {thread.value.isDone ? <span className="badge done">Done</span> : null}
                  </div>
                )}
              <ThreadActions key={threadId} thread={thread.value} onChanged={reloadThread} />
            </header>
            {thread.value.kind === "thread" ?
              (
                <>
                  <Suspense fallback={null}>
                    <ChangesPanel key={threadId} threadId={threadId} />
                  </Suspense>
                  <Conversation
                    key={threadId}
                    threadId={threadId}
                    cliType={thread.value.target.cliType}
                    running={thread.value.status === "running"}
                    waitingOnYou={thread.value.hasPendingInteraction}
                    activity={`${thread.value.status}:${thread.value.lastActivityAt}`}
                    requests={
                      <ThreadInteractions
                        key={threadId}
                        threadId={threadId}
                        changed={`${thread.value.hasPendingInteraction}:${thread.value.lastActivityAt}`}
                      />
                    }
                  />
                </>
              ) :
              (
                <>
                  <p className="hint">
                    A {thread.value.kind === "workflow_run" ? "workflow run" : "group"}{" "}
                    cannot receive messages: open one of its threads to write to it.
                  </p>
                  <GroupThreads projectId={projectId} groupId={threadId} />
                </>
              )}
          </>
        ) :
        null}
    </article>
  )
}

const GroupThreads = ({ projectId, groupId }: { readonly projectId: string; readonly groupId: string }) => {
  const [members, reload] = useTool("list_threads", { threadId: groupId, includeDone: true })
  useReloadOnChange(reload, LISTED, LIST_SPACING_MS)
  if (members._tag !== "Ready") return null
  return <ThreadList projectId={projectId} threads={members.value.threads} label="Threads of the group" />
}
