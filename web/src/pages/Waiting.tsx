import { useMemo } from "react"
import { NotificationsToggle } from "../lib/notify"
import { followLink, threadPath } from "../lib/router"
import { InteractionCard } from "../thread/InteractionCard"
import { useInteractions } from "../thread/useInteractions"
import { loadWaiting } from "../thread/waitingInteractions"
import { LIST_SPACING_MS, LISTED } from "./Threads"

/**
 * Waiting on you: every pending request of the person's threads in the project, oldest first, each
 * answerable in place and linked to its thread. Answered ones stay until the page is left, showing
 * how they ended.
 */
export const WaitingPage = ({ projectId }: { readonly projectId: string }) => {
  const load = useMemo(() => (signal: AbortSignal) => loadWaiting(projectId, signal), [projectId])
  const { entries, loaded, error, settle, reload } = useInteractions(load, projectId, LISTED, LIST_SPACING_MS)
  // The tab title's count and the notifications are the app's, on every page (waitingCount.ts).

  return (
    <section aria-labelledby="page-title" className="waiting">
      <div className="page-head">
        <h1 id="page-title">Waiting on you</h1>
        <NotificationsToggle />
        <button type="button" className="quiet" onClick={reload}>Refresh</button>
      </div>
      {!loaded ? <p className="page-status" role="status">Looking for requests…</p> : null}
      {error === undefined ? null : <p className="page-status" role="alert">Cannot read the requests: {error}</p>}
      {loaded && error === undefined && entries.length === 0
        ? <p className="page-status">Nothing is waiting on you. Requests from your agents (permissions, questions, plans) appear here.</p>
        : null}
      {entries.length === 0 ? null : (
        <ul className="interactions" aria-label="Requests">
          {entries.map(({ interaction, context }) => (
            <li key={interaction.interactionId}>
              <InteractionCard
                interaction={interaction}
                onSettled={settle}
                context={
                  <p className="interaction-from">
                    <a href={threadPath(projectId, context.thread.threadId)} onClick={followLink}>{context.thread.title}</a>
                    {context.container === undefined ? null : ` in ${context.container.title}`}
                    {` · ${context.thread.target.cliType} on ${context.thread.target.profileName}`}
                  </p>
                }
              />
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
