import { useEffect, useState } from "react"
import { describeError } from "../lib/api"
import { ago, duration, type OrdinaryThread, runtimeOf, ThreadStatus, tokens, usd } from "../lib/format"
import { useReloadOnChange } from "../lib/projectChanges"
import { followLink, threadPath } from "../lib/router"
import { useToolQuery } from "../board/taskTools"

const isActive = (run: OrdinaryThread) => run.status === "running" || run.status === "pending"

/** Redraws every second while a run is active, so its duration counts up. */
const useNow = (ticking: boolean): number => {
  const [now, setNow] = useState(Date.now)
  useEffect(() => {
    if (!ticking) return
    const timer = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(timer)
  }, [ticking])
  return now
}

/**
 * What the run changed in its working copy, by its latest change report: files and lines, opening
 * the thread's Changes panel to review them. Nothing while it has no report.
 */
const RunChanges = (
  { projectId, threadId, version }: { readonly projectId: string; readonly threadId: string; readonly version: string }
) => {
  const changes = useToolQuery("get_thread_changes", { threadId, limit: 1 })
  const refetch = changes.refetch
  // A report comes with a change of the thread (its last activity): read again then.
  useEffect(() => void refetch(), [version, refetch])
  const report = changes.data?.report
  if (report === undefined || report === null) return null
  const { additions, deletions, files } = report.totals
  return (
    <span className="run-changes">
      <a href={`${threadPath(projectId, threadId)}#changes`} onClick={followLink}>
        {files} {files === 1 ? "file" : "files"} changed <span className="added">+{additions}</span>{" "}
        <span className="removed">−{deletions}</span>
        <span className="visually-hidden">: review the changes</span>
      </a>
    </span>
  )
}

const Run = ({ projectId, run, now }: { readonly projectId: string; readonly run: OrdinaryThread; readonly now: number }) => {
  const end = isActive(run) ? now : Date.parse(run.lastActivityAt)
  const spent = [
    run.usage?.contextTokens == null ? null : `${tokens(run.usage.contextTokens)} tokens`,
    run.usage?.costUsd == null ? null : usd(run.usage.costUsd)
  ].filter((part) => part !== null)
  return (
    <li className="task-run">
      <a href={threadPath(projectId, run.threadId)} onClick={followLink}>{run.title}</a>
      <ThreadStatus thread={run} />
      <span className="meta">
        {[run.target.profileName, runtimeOf(run), duration(end - Date.parse(run.createdAt)), ...spent, ago(run.lastActivityAt, now)]
          .join(" · ")}
      </span>
      <RunChanges projectId={projectId} threadId={run.threadId} version={run.lastActivityAt} />
    </li>
  )
}

/**
 * The task's runs (`list_threads` with its taskId): the threads bound to it that the person may
 * read, running and pending first, each opening its thread, with what it changed (its latest change
 * report) opening the thread's Changes panel. Read again when a thread changes.
 */
export const TaskRuns = ({ projectId, taskId }: { readonly projectId: string; readonly taskId: string }) => {
  const runs = useToolQuery("list_threads", { projectId, taskId, includeDone: true })
  const refetch = runs.refetch
  useReloadOnChange(() => void refetch(), { threads: "any" }, 1000)
  const ordinary = (runs.data?.threads ?? []).filter((run): run is OrdinaryThread => run.kind === "thread")
  const now = useNow(ordinary.some(isActive))
  return (
    <section className="task-section" aria-labelledby="task-runs">
      <h2 id="task-runs">
        Runs <span className="meta">{ordinary.length}</span>
      </h2>
      {runs.isError ? <p className="field-error" role="alert">{describeError(runs.error)}</p> : null}
      {runs.isSuccess && ordinary.length === 0 ? <p className="meta">No agent has run on this task yet.</p> : null}
      <ul className="task-rows">
        {ordinary.map((run) => <Run key={run.threadId} projectId={projectId} run={run} now={now} />)}
      </ul>
    </section>
  )
}
