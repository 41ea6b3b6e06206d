import { createContext, type ReactNode, useContext, useEffect, useState, useSyncExternalStore } from "react"
import { StatusBadge } from "../lib/format"
import { useReloadOnChange } from "../lib/projectChanges"
import { useToolQuery } from "./taskTools"

/** A running or pending thread bound to a task: what its card's chip shows. */
interface LiveRun {
  readonly threadId: string
  readonly status: string
}

/**
 * The board's live runs by task, held outside React state: each card subscribes to its own task,
 * so a run that starts or ends re-renders that card, not the board's two thousand.
 */
const makeLiveRuns = () => {
  let byTask = new Map<string, LiveRun>()
  const listeners = new Set<() => void>()
  return {
    set: (next: Map<string, LiveRun>) => {
      byTask = next
      for (const listener of listeners) listener()
    },
    subscribe: (listener: () => void) => {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
    /** A string, so an unchanged run is an unchanged snapshot. */
    snapshot: (taskId: string): string | undefined => {
      const run = byTask.get(taskId)
      return run === undefined ? undefined : `${run.threadId} ${run.status}`
    }
  }
}
type LiveRuns = ReturnType<typeof makeLiveRuns>

const LiveRunsContext = createContext<LiveRuns | undefined>(undefined)

/**
 * Reads the person's threads in the project (`list_threads`, most recent activity first) and
 * hands each task its running or pending one; read again, at most once a second, when the
 * changes stream names a thread.
 */
export const LiveRunsProvider = ({ projectId, children }: { readonly projectId: string; readonly children: ReactNode }) => {
  const [store] = useState(makeLiveRuns)
  const threads = useToolQuery("list_threads", { projectId, limit: 50 })
  const refetch = threads.refetch
  useReloadOnChange(() => void refetch(), { threads: "any" }, 1_000)
  useEffect(() => {
    const byTask = new Map<string, LiveRun>()
    for (const thread of threads.data?.threads ?? []) {
      if (thread.kind !== "thread" || thread.associatedTaskId === null || byTask.has(thread.associatedTaskId)) continue
      if (thread.status === "running" || thread.status === "pending") {
        byTask.set(thread.associatedTaskId, { threadId: thread.threadId, status: thread.status })
      }
    }
    store.set(byTask)
  }, [store, threads.data])
  return <LiveRunsContext.Provider value={store}>{children}</LiveRunsContext.Provider>
}

/** The last non-empty line of the agent's latest answer, as far as it has streamed. */
const latestLine = (text: string): string | undefined => text.split("\n").map((line) => line.trim()).filter((line) => line !== "").at(-1)

const Chip = ({ threadId, status }: LiveRun) => {
  const messages = useToolQuery("list_thread_messages", { threadId, limit: 1 })
  const refetch = messages.refetch
  useReloadOnChange(() => void refetch(), { threads: [threadId] }, 1_000)
  const [latest] = messages.data?.messages ?? []
  const line = latest?.role === "assistant" ? latestLine(latest.text) : undefined
  return (
    <div className="card-run" aria-live="polite">
      <StatusBadge status={status} />
      {line === undefined ? null : <span className="card-run-line">{line}</span>}
    </div>
  )
}

/** A card's live chip: the state of the thread running on its task and the agent's latest line. */
export const LiveRunChip = ({ taskId }: { readonly taskId: string }) => {
  const store = useContext(LiveRunsContext)
  const snapshot = useSyncExternalStore(
    store?.subscribe ?? (() => () => undefined),
    () => store?.snapshot(taskId)
  )
  if (snapshot === undefined) return null
  const [threadId = "", status = ""] = snapshot.split(" ")
  return <Chip threadId={threadId} status={status} />
}
