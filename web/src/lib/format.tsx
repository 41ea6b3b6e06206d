import type { Thread } from "../../../catalog/Threads.js"

export type OrdinaryThread = Extract<Thread, { readonly kind: "thread" }>
export type ThreadContainer = Exclude<Thread, OrdinaryThread>

const minute = 60_000

/** "just now", "5 min ago", "3 h ago", else the date: enough to order activity at a glance. */
export const ago = (iso: string, now = Date.now()): string => {
  const elapsed = now - Date.parse(iso)
  if (!Number.isFinite(elapsed)) return iso
  if (elapsed < minute) return "just now"
  if (elapsed < 60 * minute) return `${Math.floor(elapsed / minute)} min ago`
  if (elapsed < 24 * 60 * minute) return `${Math.floor(elapsed / (60 * minute))} h ago`
  return new Date(iso).toLocaleDateString()
}

export const tokens = (count: number): string =>
  count >= 1000 ? `${(count / 1000).toFixed(count >= 100_000 ? 0 : 1)}k` : String(Math.round(count))

export const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`

export const usd = (cost: number): string => `$${cost < 0.01 ? cost.toFixed(4) : cost.toFixed(2)}`

/** A run's length at a glance: seconds under a minute, then minutes, then hours and minutes. */
export const duration = (ms: number): string => {
  if (ms < minute) return seconds(Math.max(0, ms))
  if (ms < 60 * minute) return `${Math.floor(ms / minute)} min`
  return `${Math.floor(ms / (60 * minute))} h ${Math.floor((ms % (60 * minute)) / minute)} min`
}

export const runtimeOf = (thread: OrdinaryThread): string =>
  [thread.target.cliType, thread.cliModel, thread.cliEffort].filter((part) => part !== null && part !== "").join(" · ")

/**
 * One vocabulary for a thread (the list, the header) and an agent turn (the conversation): a
 * thread is `idle` once its turn `completed`, and both read "Finished"; `running` and `streaming`
 * both read "Running"; a turn its owner stopped reads "Stopped"; a group whose member waits on the
 * person reads like that member's badge.
 */
export const statusLabel: Record<string, string> = {
  pending: "Pending",
  running: "Running",
  streaming: "Running",
  idle: "Finished",
  completed: "Finished",
  failed: "Failed",
  stopped: "Stopped",
  needs_attention: "Waiting for you"
}

/** The badge's colour class: a turn's states take their thread counterparts' colours. */
const statusClass: Record<string, string> = { streaming: "running", completed: "idle", stopped: "idle" }

export const StatusBadge = ({ status }: { readonly status: string }) => (
  <span className={`badge status-${statusClass[status] ?? status}`}>{statusLabel[status] ?? status}</span>
)

/**
 * A thread's status, and for a queued thread whose machine is offline, which machine it waits
 * for: it starts when that machine's CLI connects, not before.
 */
export const ThreadStatus = ({ thread }: { readonly thread: OrdinaryThread }) => (
  <>
    <StatusBadge status={thread.status} />
    {thread.status === "pending" && !thread.targetOnline
      ? <span className="meta waits-for">Waits for {thread.target.profileName} (offline)</span>
      : null}
  </>
)
