import { useEffect, useMemo } from "react"
import { toMessage } from "../../../catalog/events/compose.js"
import { MAX_MESSAGES_WINDOW } from "../../../catalog/domain/Thread.js"
import { describeError, useTool } from "../api"
import { useThreadEvents } from "../events"
import { followLink, threadsPath } from "../router"
import { ago, runtimeOf, StatusBadge } from "./format"
import { ThreadList } from "./Threads"
import { Timeline } from "../thread/Timeline"

const Conversation = ({ threadId }: { readonly threadId: string }) => {
  const [messages, reload] = useTool("list_thread_messages", { threadId, limit: MAX_MESSAGES_WINDOW }, { pollMs: 10_000 })
  const events = useThreadEvents(threadId)
  const composed = useMemo(
    () => new Map([...events.messages].map(([messageId, composition]) => [messageId, toMessage(composition)])),
    [events.messages]
  )
  const known = messages._tag === "Ready" ? messages.value.messages : []
  const unseen = [...composed.keys()].filter((messageId) => !known.some((message) => message.messageId === messageId))
  // Events of a message the list does not hold yet mean a new turn: read the list again, once per
  // newly seen message (the count is what changes), not on every event.
  const ready = messages._tag === "Ready" && !messages.refreshing
  useEffect(() => {
    if (ready && unseen.length > 0) reload()
  }, [unseen.length, ready, reload])

  if (messages._tag === "Loading") return <p className="page-status" role="status">Loading the conversation…</p>
  if (messages._tag === "Failed") return <p className="page-status" role="alert">Cannot load the conversation: {describeError(messages.error)}</p>
  return (
    <>
      <p className="hint live" role="status">{events.connected ? "Live" : "Reconnecting…"}</p>
      <Timeline messages={known} composed={composed} unseen={unseen} />
    </>
  )
}

/** One thread: its header and its conversation as the composer builds it from the event stream. */
export const ThreadPage = ({ projectId, threadId }: { readonly projectId: string; readonly threadId: string }) => {
  const [thread] = useTool("get_thread", { threadId }, { pollMs: 5_000 })
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
                <time className="meta" dateTime={thread.value.lastActivityAt}>{ago(thread.value.lastActivityAt)}</time>
              </div>
            ) : (
              <div className="row-meta">
                <StatusBadge status={thread.value.aggregateStatus} />
                <span className="meta">{thread.value.childCount} threads</span>
              </div>
            )}
          </header>
          {thread.value.kind === "thread"
            ? <Conversation threadId={threadId} />
            : <GroupThreads projectId={projectId} groupId={threadId} />}
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
