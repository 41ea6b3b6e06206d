import { useState } from "react"
import { describeError } from "../lib/api"
import { useTool } from "../lib/useTool"
import { followLink, machinesPath, newThreadPath, threadPath } from "../lib/router"
import { useReloadOnChange, type Watched } from "../lib/projectChanges"
import "./Threads.css"
import { ago, type OrdinaryThread, runtimeOf, StatusBadge, ThreadStatus, type ThreadContainer } from "../lib/format"

/**
 * A list of the project's threads is read again when any of them changes (activity moves threads
 * up; a machine's dot goes on and off), at most once a second.
 */
export const LISTED: Watched = { threads: "any", machines: true }
export const LIST_SPACING_MS = 1_000

const ThreadRow = ({ projectId, thread }: { readonly projectId: string; readonly thread: OrdinaryThread }) => (
  <li className="row">
    <a className="row-title" href={threadPath(projectId, thread.threadId)} onClick={followLink}>
      {thread.title}
    </a>
    <div className="row-meta">
      <ThreadStatus thread={thread} />
      {thread.hasPendingInteraction ? <span className="badge attention">Waiting for you</span> : null}
      {thread.isDone ? <span className="badge done">Done</span> : null}
      <span className="meta" title="Runtime">{runtimeOf(thread)}</span>
      <span className="meta" title="Machine">
        <span className={thread.targetOnline ? "dot online" : "dot"} aria-hidden="true" />
        {thread.target.profileName}
        <span className="visually-hidden">{thread.targetOnline ? " (online)" : " (offline)"}</span>
      </span>
      <time className="meta" dateTime={thread.lastActivityAt} title={thread.lastActivityAt}>{ago(thread.lastActivityAt)}</time>
    </div>
  </li>
)

const GroupMembers = ({ projectId, groupId }: { readonly projectId: string; readonly groupId: string }) => {
  const [members, reload] = useTool("list_threads", { threadId: groupId, includeDone: true })
  useReloadOnChange(reload, LISTED, LIST_SPACING_MS)
  if (members._tag === "Loading") return <p className="hint" role="status">Loading the group…</p>
  if (members._tag === "Failed") return <p role="alert">Cannot load the group: {describeError(members.error)}</p>
  return <ThreadList projectId={projectId} threads={members.value.threads} label="Threads of the group" />
}

const GroupRow = ({ projectId, group }: { readonly projectId: string; readonly group: ThreadContainer }) => {
  const [open, setOpen] = useState(false)
  const membersId = `members-${group.threadId}`
  return (
    <li className="row group">
      <button type="button" className="row-title disclosure" aria-expanded={open} aria-controls={membersId} onClick={() => setOpen(!open)}>
        <span aria-hidden="true">{open ? "▾" : "▸"}</span> {group.title}
      </button>
      <div className="row-meta">
        <StatusBadge status={group.aggregateStatus} />
        <span className="meta">
          {group.kind === "workflow_run" ? "Workflow run" : "Group"} · {group.childCount} {group.childCount === 1 ? "thread" : "threads"}
        </span>
        {group.isDone ? <span className="badge done">Done</span> : null}
        <time className="meta" dateTime={group.lastActivityAt} title={group.lastActivityAt}>{ago(group.lastActivityAt)}</time>
      </div>
      {open
        ? (
          <div id={membersId} className="members">
            <GroupMembers projectId={projectId} groupId={group.threadId} />
          </div>
        )
        : null}
    </li>
  )
}

export const ThreadList = ({ projectId, threads, label }: {
  readonly projectId: string
  readonly threads: ReadonlyArray<OrdinaryThread | ThreadContainer>
  readonly label: string
}) => (
  <ul className="rows" aria-label={label}>
    {threads.map((thread) =>
      thread.kind === "thread"
        ? <ThreadRow key={thread.threadId} projectId={projectId} thread={thread} />
        : <GroupRow key={thread.threadId} projectId={projectId} group={thread} />
    )}
  </ul>
)

/** Where a first thread comes from: the form, on a machine that serves the project. */
const NoThreads = ({ projectId, includeDone }: { readonly projectId: string; readonly includeDone: boolean }) => (
  <section className="empty-threads" aria-labelledby="no-threads-title">
    <h2 id="no-threads-title">No threads{includeDone ? "" : " in progress"} in this project</h2>
    <p>
      A thread is an agent at work on one of your machines. Start one from New thread; a machine shows under Machines once its{" "}
      <code>trellis agent</code> connects.
    </p>
    <div className="empty-actions">
      <a className="button-link" href={newThreadPath(projectId)} onClick={followLink}>New thread</a>
      <a className="button-link quiet" href={machinesPath(projectId)} onClick={followLink}>Machines</a>
    </div>
  </section>
)

/** The person's threads in the project, most recent activity first (the order `list_threads` gives). */
export const ThreadsPage = ({ projectId }: { readonly projectId: string }) => {
  const [includeDone, setIncludeDone] = useState(false)
  const [threads, reload] = useTool("list_threads", { projectId, includeDone, limit: 50 }, { keepPrevious: true })
  useReloadOnChange(reload, LISTED, LIST_SPACING_MS)

  return (
    <section aria-labelledby="threads-title">
      <div className="page-head">
        <h1 id="threads-title">Threads</h1>
        <label className="toggle">
          <input type="checkbox" checked={includeDone} onChange={(event) => setIncludeDone(event.currentTarget.checked)} />
          Include done
        </label>
        <button type="button" className="quiet" onClick={reload}>Refresh</button>
      </div>
      {threads._tag === "Loading" ? <p className="page-status" role="status">Loading threads…</p> : null}
      {threads._tag === "Failed"
        ? <p className="page-status" role="alert">Cannot load the threads: {describeError(threads.error)}</p>
        : null}
      {threads._tag === "Ready" && threads.value.threads.length === 0
        ? <NoThreads projectId={projectId} includeDone={includeDone} />
        : null}
      {threads._tag === "Ready" && threads.value.threads.length > 0
        ? <ThreadList projectId={projectId} threads={threads.value.threads} label="Threads" />
        : null}
    </section>
  )
}
