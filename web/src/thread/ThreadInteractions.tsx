import { Either } from "effect"
import { useCallback } from "react"
import { InteractionCard } from "./InteractionCard"
import { listPending } from "./interactionRoutes"
import { isWaiting, useInteractions } from "./useInteractions"

/** A backstop read while the page is open: another tab's answer leaves the thread's flags unchanged when more requests wait. */
const POLL_MS = 10_000

/**
 * The thread's requests waiting on the person, above its conversation, answerable in place. They
 * are read again whenever `changed` does (the thread's `hasPendingInteraction` and last activity,
 * from its polled record); the ones settled while the page is open stay, showing how they ended.
 */
export const ThreadInteractions = ({ threadId, changed }: { readonly threadId: string; readonly changed: string }) => {
  const load = useCallback(
    (signal: AbortSignal) =>
      listPending(threadId, signal).then((found) =>
        Either.map(found, (interactions) => interactions.map((interaction) => ({ interaction, context: undefined })))),
    [threadId]
  )
  const { entries, error, settle } = useInteractions(load, `${threadId}:${changed}`, POLL_MS)
  if (entries.length === 0 && error === undefined) return null
  const waiting = entries.filter((entry) => isWaiting(entry.interaction)).length
  return (
    <section aria-label="Waiting on you" className="thread-interactions">
      {waiting > 0 ? <p className="hint" role="status">{waiting === 1 ? "The agent is waiting on you." : `The agent is waiting on you (${waiting} requests).`}</p> : null}
      {error === undefined ? null : <p className="notice warning" role="alert">Cannot read the requests: {error}</p>}
      <ul className="interactions">
        {entries.map((entry) => (
          <li key={entry.interaction.interactionId}>
            <InteractionCard interaction={entry.interaction} onSettled={settle} />
          </li>
        ))}
      </ul>
    </section>
  )
}
