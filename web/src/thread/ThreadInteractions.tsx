import { Either } from "effect"
import type { Interaction } from "../../../catalog/domain/Interaction.js"
import { useCallback, useEffect, useRef, useState } from "react"
import { focusComposer } from "./Composer"
import { InteractionCard } from "./InteractionCard"
import { listPending } from "./interactionRoutes"
import { revealCard, useRevealRequests } from "./revealRequest"
import { isWaiting, useInteractions } from "./useInteractions"
import { useStickToBottom } from "./useStickToBottom"

/**
 * The thread's requests waiting on the person, at the end of the conversation where the call that
 * asks stands, answerable in place. They are read again whenever `changed` does (the thread's
 * `hasPendingInteraction` and last activity, from its record) and when the project's changes stream
 * names the thread (another tab's answer, while more requests wait, leaves those flags as they were); the ones settled while the
 * page is open stay, showing how they ended.
 *
 * Opening the page brings the first waiting card into view with the focus on its first control; a
 * request that arrives while the person reads further up raises the "Waiting on you — review" bar
 * instead of moving the page under them; an answer moves the focus to the next waiting card, or to
 * the composer when none waits.
 */
export const ThreadInteractions = ({ threadId, changed }: { readonly threadId: string; readonly changed: string }) => {
  const load = useCallback(
    (signal: AbortSignal) =>
      listPending(threadId, signal).then((found) =>
        Either.map(found, (interactions) => interactions.map((interaction) => ({ interaction, context: undefined })))
      ),
    [threadId]
  )
  const { entries, loaded, error, settle } = useInteractions(load, `${threadId}:${changed}`, { threads: [threadId] })
  const section = useRef<HTMLElement>(null)
  const waitingIds = entries.filter((entry) => isWaiting(entry.interaction)).map((entry) => entry.interaction.interactionId)
  const firstWaiting = waitingIds[0]
  const { offScreen, goTo, cardOf } = useRevealRequests(section, firstWaiting)
  const stick = useStickToBottom()

  // The first read decides what the page opens on; later ones only bring news.
  const seen = useRef<ReadonlySet<string> | undefined>(undefined)
  useEffect(() => {
    if (!loaded) return
    const known = seen.current
    seen.current = new Set(entries.map((entry) => entry.interaction.interactionId))
    if (known === undefined) {
      if (firstWaiting !== undefined) goTo(firstWaiting)
      return
    }
    const arrived = waitingIds.find((interactionId) => !known.has(interactionId))
    if (arrived === undefined) return
    // A reader following the end sees it come; one reading further up gets the bar, not a jump.
    const card = cardOf(arrived)
    if (stick.stuck() && card !== null) revealCard(card)
  })

  // After an answer, the focus (which was on the card's buttons, now gone) moves on.
  const [answered, setAnswered] = useState<string | undefined>(undefined)
  useEffect(() => {
    if (answered === undefined) return
    setAnswered(undefined)
    const next = waitingIds.find((interactionId) => interactionId !== answered)
    if (next === undefined) focusComposer()
    else goTo(next)
  }, [answered, waitingIds, goTo])
  const onSettled = useCallback((interaction: Interaction) => {
    settle(interaction)
    setAnswered(interaction.interactionId)
  }, [settle])

  if (entries.length === 0 && error === undefined) return null
  const waiting = waitingIds.length
  return (
    <section ref={section} aria-label="Waiting on you" className="thread-interactions">
      {waiting > 0
        ? (
          <p className="hint" role="status">
            {waiting === 1 ? "The agent is waiting on you." : `The agent is waiting on you (${waiting} requests).`}
          </p>
        )
        : null}
      {error === undefined ? null : <p className="notice warning" role="alert">Cannot read the requests: {error}</p>}
      <ul className="interactions">
        {entries.map((entry) => (
          <li key={entry.interaction.interactionId} data-interaction={entry.interaction.interactionId}>
            <InteractionCard interaction={entry.interaction} onSettled={onSettled} />
          </li>
        ))}
      </ul>
      {offScreen && firstWaiting !== undefined ?
        (
          <div className="review-bar">
            <button type="button" onClick={() => goTo(firstWaiting)}>
              Waiting on you — review{waiting > 1 ? ` (${waiting})` : ""}
            </button>
          </div>
        ) :
        null}
    </section>
  )
}
