import { type Effect, Either } from "effect"
import { useState } from "react"
import type { Thread } from "../../../catalog/Threads.js"
import { callThreadRoute, type ThreadRoutes } from "../api"
import { describeRouteError, type RouteError } from "./interactionRoutes"
import "./ThreadActions.css"

type Outcome = { readonly _tag: "Done"; readonly message: string } | { readonly _tag: "Failed"; readonly message: string }

/**
 * The Thread record says whether a thread is done but not whether it is pinned or shared
 * (catalog/Threads.ts), so those two are known only once set from this page; until then both
 * directions are offered.
 */
type Flag = boolean | undefined

const FlagButtons = ({ value, on, off, busy, onSet }: {
  readonly value: Flag
  readonly on: string
  readonly off: string
  readonly busy: boolean
  readonly onSet: (value: boolean) => void
}) =>
  value === undefined ? (
    <>
      <button type="button" className="quiet" disabled={busy} onClick={() => onSet(true)}>{on}</button>
      <button type="button" className="quiet" disabled={busy} onClick={() => onSet(false)}>{off}</button>
    </>
  ) : (
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
  const [pinned, setPinned] = useState<Flag>(undefined)
  const [shared, setShared] = useState<Flag>(undefined)
  const threadId = thread.threadId

  const run = <E extends RouteError>(
    call: (routes: ThreadRoutes) => Effect.Effect<Thread, E>,
    done: string,
    after: () => void = () => undefined
  ) => {
    setBusy(true)
    setOutcome(undefined)
    void callThreadRoute(call).then((result) => {
      setBusy(false)
      if (Either.isLeft(result)) {
        setOutcome({ _tag: "Failed", message: describeRouteError(result.left) })
        return
      }
      after()
      setOutcome({ _tag: "Done", message: done })
      onChanged()
    })
  }

  const ordinary = thread.kind === "thread" ? thread : undefined
  return (
    <div className="thread-actions">
      <div className="thread-actions-row" role="group" aria-label="Thread actions">
        {ordinary !== undefined && ordinary.status === "failed" ? (
          <button type="button" disabled={busy} onClick={() => run((routes) => routes.retry({ path: { threadId } }), "Retrying: the failed batch is queued again.")}>
            Retry
          </button>
        ) : null}
        <button
          type="button"
          className="quiet"
          disabled={busy}
          onClick={() => run((routes) => routes.setDone({ path: { threadId }, payload: { done: !thread.isDone } }), thread.isDone ? "Marked not done." : "Marked done.")}
        >
          {thread.isDone ? "Mark not done" : "Mark done"}
        </button>
        <FlagButtons
          value={pinned}
          on="Pin"
          off="Unpin"
          busy={busy}
          onSet={(value) => run((routes) => routes.setPinned({ path: { threadId }, payload: { pinned: value } }), value ? "Pinned." : "Unpinned.", () => setPinned(value))}
        />
        <FlagButtons
          value={shared}
          on="Share"
          off="Unshare"
          busy={busy}
          onSet={(value) =>
            run(
              (routes) => routes.setShared({ path: { threadId }, payload: { shared: value } }),
              value ? "Shared: your teammates in the project can read it." : "No longer shared.",
              () => setShared(value)
            )}
        />
        {ordinary !== undefined ? (
          <button
            type="button"
            className="quiet"
            disabled={busy}
            onClick={() => run((routes) => routes.startFresh({ path: { threadId } }), "Started fresh: the next run begins a new session, told the conversation so far.")}
          >
            Start fresh
          </button>
        ) : null}
      </div>
      {outcome === undefined ? null : (
        <p className={outcome._tag === "Failed" ? "field-error" : "hint"} role={outcome._tag === "Failed" ? "alert" : "status"}>
          {outcome.message}
        </p>
      )}
    </div>
  )
}
