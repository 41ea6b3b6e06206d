import type { OrdinaryThread, ThreadContainer } from "./format"
import type { Alert } from "./notify"

/** What each thread was doing at the last read, by id. */
export type Statuses = ReadonlyMap<string, OrdinaryThread["status"]>

const working = (status: OrdinaryThread["status"] | undefined): boolean => status === "pending" || status === "running"

/**
 * The threads that finished or failed since the last read: each one that was working then and is
 * idle or failed now. A thread first seen already done is no news; a group is told by its members' pages.
 */
export const outcomes = (before: Statuses, threads: ReadonlyArray<OrdinaryThread | ThreadContainer>): {
  readonly alerts: ReadonlyArray<Alert>
  readonly now: Statuses
} => {
  const now = new Map<string, OrdinaryThread["status"]>()
  const alerts: Array<Alert> = []
  for (const thread of threads) {
    if (thread.kind !== "thread") continue
    now.set(thread.threadId, thread.status)
    if (!working(before.get(thread.threadId)) || working(thread.status)) continue
    const failed = thread.status === "failed"
    alerts.push({
      id: `${thread.threadId}:${thread.status}:${thread.lastActivityAt}`,
      title: `${failed ? "Failed" : "Finished"}: ${thread.title}`,
      body: failed ? "The agent's run failed: open the thread to retry it." : "The agent finished its turn."
    })
  }
  return { alerts, now }
}
