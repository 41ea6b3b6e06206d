import { Either } from "effect"
import { useEffect, useMemo, useState } from "react"
import { useNotifyNew, useTabTitleCount } from "./notify"
import { readRequest, summarize } from "./thread/interactionRequest"
import { loadWaiting } from "./thread/waitingInteractions"
import { onSettled } from "./waitingSignal"

/** How often every page looks for new requests while the tab is visible. */
const POLL_MS = 5_000

/**
 * On every page of a project: how many requests wait on the person (in the tab title and the
 * navigation), and a browser notification for each new one once they allowed notifications.
 */
export const useWaitingCount = (projectId: string | undefined): number => {
  const [state, setState] = useState<{ readonly projectId: string | undefined; readonly alerts: ReadonlyArray<{ id: string; title: string; body: string }> } | undefined>(undefined)

  useEffect(() => {
    if (projectId === undefined) return
    const abort = new AbortController()
    let first = true
    const read = () => {
      if (!first && document.visibilityState !== "visible") return
      first = false
      void loadWaiting(projectId, abort.signal).then((found) => {
        if (abort.signal.aborted || Either.isLeft(found)) return
        setState({
          projectId,
          alerts: found.right.map(({ interaction, context }) => ({
            id: interaction.interactionId,
            title: `Waiting on you: ${context.thread.title}`,
            body: summarize(readRequest(interaction.kind, interaction.request))
          }))
        })
      }, () => undefined)
    }
    read()
    const timer = setInterval(read, POLL_MS)
    const unsubscribe = onSettled(read)
    return () => {
      abort.abort()
      clearInterval(timer)
      unsubscribe()
    }
  }, [projectId])

  const alerts = useMemo(() => state !== undefined && state.projectId === projectId ? state.alerts : [], [state, projectId])
  useTabTitleCount(alerts.length)
  useNotifyNew(alerts, state?.projectId === projectId)
  return alerts.length
}
