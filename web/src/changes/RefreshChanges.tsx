import { Either } from "effect"
import { useEffect, useState } from "react"
import { describeError } from "../lib/api"
import { callChangesTool } from "./changeTools"

type Asked =
  | { readonly _tag: "Idle" }
  | { readonly _tag: "Asking" }
  | { readonly _tag: "Asked"; readonly reportId: string; readonly online: boolean }
  | { readonly _tag: "Failed"; readonly message: string }
  | { readonly _tag: "Unanswered" }

/** How long the panel says it is waiting before it says no report came (the CLI gives a report 60 s). */
const PATIENCE_MS = 75_000

/**
 * Asks the thread's machine for a fresh report (`refresh_thread_changes`), for edits made since
 * the last turn; the new report arrives through the changes stream, which ends the wait.
 */
export const RefreshChanges = ({ reportId, threadId }: { readonly threadId: string; readonly reportId: string }) => {
  const [asked, setAsked] = useState<Asked>({ _tag: "Idle" })
  const waiting = asked._tag === "Asked" && asked.reportId === reportId
  useEffect(() => {
    if (!waiting) return
    const timer = setTimeout(() => setAsked({ _tag: "Unanswered" }), PATIENCE_MS)
    return () => clearTimeout(timer)
  }, [waiting])
  const ask = () => {
    setAsked({ _tag: "Asking" })
    void callChangesTool("refresh_thread_changes", { threadId }).then((result) =>
      setAsked(Either.match(result, {
        onLeft: (error) => ({ _tag: "Failed", message: describeError(error) }),
        onRight: (answer) => ({ _tag: "Asked", reportId, online: answer.machineOnline })
      }))
    )
  }
  return (
    <>
      <button type="button" className="quiet" onClick={ask} disabled={asked._tag === "Asking" || waiting}>Refresh</button>
      <span className="meta" role="status">
        {waiting
          ? asked.online ? "Asking the machine for its working copy…" : "The machine is offline: it reports when its CLI connects."
          : asked._tag === "Failed"
          ? `Not asked: ${asked.message}`
          : asked._tag === "Unanswered"
          ? "No report came: the machine may be busy or unable to read its working copy. Refresh asks again."
          : ""}
      </span>
    </>
  )
}
