import { Either } from "effect"
import { useEffect, useMemo, useRef, useState } from "react"
import { inFront, showNotification, useNotifyNew, useTabTitleCount } from "./lib/notify"
import { readRequest, summarize } from "./thread/interactionRequest"
import { loadAttention } from "./thread/waitingInteractions"
import { outcomes, type Statuses } from "./lib/threadOutcomes"
import { onSettled } from "./lib/waitingSignal"
import { useReloadOnChange, type Watched } from "./lib/projectChanges"

/**
 * Every page looks for new requests and finished runs when the project's changes stream names a
 * thread, at most once a second; also while the tab is hidden, since that is when a notification
 * is worth most.
 */
const SPACING_MS = 1_000
const WATCHED: Watched = { threads: "any" }

/**
 * On every page of a project: how many requests wait on the person (in the navigation), a browser
 * notification for each new one and for each thread that finishes or fails, once they allowed
 * notifications, and in the tab title the waiting requests plus the runs that ended while they
 * were away from the tab.
 */
export const useWaitingCount = (projectId: string | undefined): number => {
  const [state, setState] = useState<
    { readonly projectId: string | undefined; readonly alerts: ReadonlyArray<{ id: string; title: string; body: string }> } | undefined
  >(undefined)
  const [ended, setEnded] = useState(0)
  const statuses = useRef<Statuses>(new Map())
  const [generation, setGeneration] = useState(0)
  useReloadOnChange(() => setGeneration((n) => n + 1), WATCHED, SPACING_MS)

  useEffect(() => {
    if (projectId === undefined) return
    statuses.current = new Map()
    setEnded(0)
  }, [projectId])

  useEffect(() => {
    if (projectId === undefined) return
    const abort = new AbortController()
    const read = () => {
      void loadAttention(projectId, abort.signal).then((found) => {
        if (abort.signal.aborted || Either.isLeft(found)) return
        const { alerts, now } = outcomes(statuses.current, found.right.threads)
        statuses.current = now
        for (const alert of alerts) showNotification(alert)
        if (alerts.length > 0 && !inFront()) setEnded((count) => count + alerts.length)
        setState({
          projectId,
          alerts: found.right.waiting.map(({ interaction, context }) => ({
            id: interaction.interactionId,
            title: `Waiting on you: ${context.thread.title}`,
            body: summarize(readRequest(interaction.kind, interaction.request))
          }))
        })
      }, () => undefined)
    }
    // Back at the tab, the runs that ended meanwhile are seen.
    const seen = () => {
      if (inFront()) setEnded(0)
    }
    read()
    const unsubscribe = onSettled(read)
    window.addEventListener("focus", seen)
    document.addEventListener("visibilitychange", seen)
    return () => {
      abort.abort()
      unsubscribe()
      window.removeEventListener("focus", seen)
      document.removeEventListener("visibilitychange", seen)
    }
  }, [projectId, generation])

  const alerts = useMemo(() => state !== undefined && state.projectId === projectId ? state.alerts : [], [state, projectId])
  useTabTitleCount(alerts.length + ended)
  useNotifyNew(alerts, state?.projectId === projectId)
  return alerts.length
}
