import { type Effect, Either } from "effect"
import { useState } from "react"
import type { Thread } from "../../../catalog/Threads.js"
import { callThreadRoute, type ThreadRoutes } from "../lib/api"
import { describeRouteError, type RouteError } from "./interactionRoutes"
import "./ThreadActions.css"

type Outcome = { readonly _tag: "Done"; readonly message: string } | { readonly _tag: "Failed"; readonly message: string }

const FlagButton = ({ value, on, off, busy, onSet }: {
  readonly value: boolean
  readonly on: string
  readonly off: string
  readonly busy: boolean
  readonly onSet: (value: boolean) => void
}) => (
  <button type="button" className="quiet" disabled={busy} onClick={() => onSet(!value)}>
    {value ? off : on}
  </button>
)

/**
 * What the owner does to a thread as a whole: retry a failed batch, start it fresh (a new runtime
 * session), mark it done, pin it, share it. Each is a thread route; `onChanged` reads the thread again.
 */
export const ThreadActions = ({ thread, onChanged }: { readonly thread: Thread; readonly onChanged: () => void }) => {
  const [busy, setBusy] = useState(false)
  const [outcome, setOutcome] = useState<Outcome | undefined>(undefined)
  const threadId = thread.threadId

  const run = <E extends RouteError>(call: (routes: ThreadRoutes) => Effect.Effect<Thread, E>, done: string) => {
    setBusy(true)
    setOutcome(undefined)
    void callThreadRoute(call).then((result) => {
      setBusy(false)
      if (Either.isLeft(result)) {
        setOutcome({ _tag: "Failed", message: describeRouteError(result.left) })
        return
      }
      setOutcome({ _tag: "Done", message: done })
      onChanged()
    })
  }

  const ordinary = thread.kind === "thread" ? thread : undefined
  return (
    <div className="thread-actions">
      <div className="thread-actions-row" role="group" aria-label="Thread actions">
        {ordinary !== undefined && ordinary.status === "failed" ?
          (
            <button
              type="button"
              disabled={busy}
              onClick={() => run((routes) => routes.retry({ path: { threadId } }), "Retrying: the failed batch is queued again.")}
            >
              Retry
            </button>
          ) :
          null}
        <button
          type="button"
          className="quiet"
          disabled={busy}
          onClick={() =>
            run(
              (routes) => routes.setDone({ path: { threadId }, payload: { done: !thread.isDone } }),
              thread.isDone ? "Marked not done." : "Marked done."
            )}
        >
          {thread.isDone ? "Mark not done" : "Mark done"}
        </button>
        <FlagButton
          value={thread.isPinned}
          on="Pin"
          off="Unpin"
          busy={busy}
          onSet={(value) =>
            run((routes) => routes.setPinned({ path: { threadId }, payload: { pinned: value } }), value ? "Pinned." : "Unpinned.")}
        />
        <FlagButton
          value={thread.isShared}
          on="Share"
          off="Unshare"
          busy={busy}
          onSet={(value) =>
            run(
              (routes) => routes.setShared({ path: { threadId }, payload: { shared: value } }),
              value ? "Shared: your teammates in the project can read it." : "No longer shared."
            )}
        />
        {ordinary !== undefined ?
          (
            <button
              type="button"
              className="quiet"
              disabled={busy}
              onClick={() =>
                run(
                  (routes) => routes.startFresh({ path: { threadId } }),
                  "Started fresh: the next run begins a new session, told the conversation so far."
                )}
            >
              Start fresh
            </button>
          ) :
          null}
      </div>
      {outcome === undefined ?
        null :
        (
          <p className={outcome._tag === "Failed" ? "field-error" : "hint"} role={outcome._tag === "Failed" ? "alert" : "status"}>
            {outcome.message}
          </p>
        )}
    </div>
  )
}
