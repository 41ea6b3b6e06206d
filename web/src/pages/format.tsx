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

export const runtimeOf = (thread: OrdinaryThread): string =>
  [thread.target.cliType, thread.cliModel, thread.cliEffort].filter((part) => part !== null && part !== "").join(" · ")

export const statusLabel: Record<string, string> = {
  pending: "Pending",
  running: "Running",
  idle: "Idle",
  failed: "Failed",
  needs_attention: "Needs attention"
}

export const StatusBadge = ({ status }: { readonly status: string }) => (
  <span className={`badge status-${status}`}>{statusLabel[status] ?? status}</span>
)
