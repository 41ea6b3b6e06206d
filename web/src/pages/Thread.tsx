import { useEffect, useState } from "react"
import { MAX_MESSAGES_WINDOW } from "../../../catalog/domain/Thread.js"
import { describeError, useTool } from "../api"
import { useThreadEvents } from "../events"
import { followLink, threadsPath } from "../router"
import { usePageTitle } from "../tabTitle"
import { ago, runtimeOf, StatusBadge } from "./format"
import { ThreadList } from "./Threads"
import { Timeline } from "../thread/Timeline"
import { Composer } from "../thread/Composer"
import { ThreadActions } from "../thread/ThreadActions"
import { ThreadInteractions } from "../thread/ThreadInteractions"
import type { CliType } from "../../../catalog/domain/CliType.js"

/** How often the thread's record is read: its `hasPendingInteraction` is what brings a new request to the page. */
const THREAD_POLL_MS = 3_000
/** While a message waits for the agent or a turn streams, the list is read often enough to see it taken. */
const BUSY_POLL_MS = 2_000

const Conversation = ({ threadId, cliType }: { readonly threadId: string; readonly cliType: CliType }) => {
  const [busy, setBusy] = useState(false)
  const [messages, reload] = useTool("list_thread_messages", { threadId, limit: MAX_MESSAGES_WINDOW }, { pollMs: busy ? BUSY_POLL_MS : 10_000 })
  const events = useThreadEvents(threadId)
  const composed = events.composed
  const known = messages._tag === "Ready" ? messages.value.messages : []
  const unseen = [...composed.keys()].filter((messageId) => !known.some((message) => message.messageId === messageId))
  // Events of a message the list does not hold yet mean a new turn: read the list again, once per
  // newly seen message (the count is what changes), not on every event.
  const ready = messages._tag === "Ready" && !messages.refreshing
  useEffect(() => {
    if (ready && unseen.length > 0) reload()
  }, [unseen.length, ready, reload])
  const waiting = known.some((message) => message.status === "pending" || message.status === "streaming")
  useEffect(() => setBusy(waiting), [waiting])

  if (messages._tag === "Loading") return <p className="page-status" role="status">Loading the conversation…</p>
  if (messages._tag === "Failed") return <p className="page-status" role="alert">Cannot load the conversation: {describeError(messages.error)}</p>
  return (
    <>
      <p className="hint live" role="status">{events.connected ? "Live" : "Reconnecting…"}</p>
      <Timeline messages={known} composed={composed} unseen={unseen} />
      <Composer threadId={threadId} cliType={cliType} onSent={reload} />
    </>
  )
}

/** One thread: its header and its conversation as the composer builds it from the event stream. */
export const ThreadPage = ({ projectId, threadId }: { readonly projectId: string; readonly threadId: string }) => {
  const [thread, reloadThread] = useTool("get_thread", { threadId }, { pollMs: THREAD_POLL_MS })
  usePageTitle(thread._tag === "Ready" ? thread.value.title : undefined)
  return (
    <article aria-labelledby="thread-title">
      <a className="back" href={threadsPath(projectId)} onClick={followLink}>← Threads</a>
      {thread._tag === "Loading" ? <p className="page-status" role="status">Loading the thread…</p> : null}
      {thread._tag === "Failed" ? <p className="page-status" role="alert">Cannot load the thread: {describeError(thread.error)}</p> : null}
      {thread._tag === "Ready" ? (
        <>
          <header className="thread-head">
            <h1 id="thread-title">{thread.value.title}</h1>
            {thread.value.kind === "thread" ? (
              <div className="row-meta">
                <StatusBadge status={thread.value.status} />
                {thread.value.hasPendingInteraction ? <span className="badge attention">Waiting for you</span> : null}
                <span className="meta">{runtimeOf(thread.value)}</span>
                <span className="meta">{thread.value.target.profileName}{thread.value.target.path === null ? "" : `: ${thread.value.target.path}`}</span>
                {thread.value.isDone ? <span className="badge done">Done</span> : null}
                <time className="meta" dateTime={thread.value.lastActivityAt}>{ago(thread.value.lastActivityAt)}</time>
              </div>
            ) : (
              <div className="row-meta">
                <StatusBadge status={thread.value.aggregateStatus} />
                <span className="meta">{thread.value.childCount} threads</span>
                {thread.value.isDone ? <span className="badge done">Done</span> : null}
              </div>
            )}
            <ThreadActions key={threadId} thread={thread.value} onChanged={reloadThread} />
          </header>
          {thread.value.kind === "thread" ? (
            <>
              <ThreadInteractions
                key={threadId}
                threadId={threadId}
                changed={`${thread.value.hasPendingInteraction}:${thread.value.lastActivityAt}`}
              />
              <Conversation key={threadId} threadId={threadId} cliType={thread.value.target.cliType} />
            </>
          ) : (
            <>
              <p className="hint">A {thread.value.kind === "workflow_run" ? "workflow run" : "group"} cannot receive messages: open one of its threads to write to it.</p>
              <GroupThreads projectId={projectId} groupId={threadId} />
            </>
          )}
        </>
      ) : null}
    </article>
  )
}

const GroupThreads = ({ projectId, groupId }: { readonly projectId: string; readonly groupId: string }) => {
  const [members] = useTool("list_threads", { threadId: groupId, includeDone: true }, { pollMs: 5_000 })
  if (members._tag !== "Ready") return null
  return <ThreadList projectId={projectId} threads={members.value.threads} label="Threads of the group" />
}
