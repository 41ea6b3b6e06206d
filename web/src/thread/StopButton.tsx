import { Either } from "effect"
import { useEffect, useState } from "react"
import { callThreadRoute } from "../lib/api"
import { describeRouteError } from "./interactionRoutes"

type StopState =
  | { readonly _tag: "Idle" }
  | { readonly _tag: "Stopping" }
  | { readonly _tag: "Stopped" }
  | { readonly _tag: "Said"; readonly message: string }

/**
 * Stop, beside Send while the thread runs (`POST /api/threads/:id/stop`): the machine's CLI
 * interrupts the runtime its own way and the turn ends as Stopped; the thread then takes the next
 * message. The button says "Stopping…" until the thread's record shows it no longer runs.
 */
export const useStop = (threadId: string, running: boolean, onStopped: () => void) => {
  const [state, setState] = useState<StopState>({ _tag: "Idle" })
  useEffect(() => {
    if (!running && state._tag === "Stopping") {
      setState({ _tag: "Stopped" })
      onStopped()
    }
  }, [running, state, onStopped])
  const stop = () => {
    setState({ _tag: "Stopping" })
    void callThreadRoute((routes) => routes.stop({ path: { threadId } })).then((result) => {
      if (Either.isLeft(result)) return setState({ _tag: "Said", message: `Could not stop: ${describeRouteError(result.left)}` })
      if (!result.right.stopRequested) setState({ _tag: "Said", message: "Nothing was running: the turn had already ended." })
    })
  }
  const status = state._tag === "Stopped"
    ? "Stopped. The agent takes your next message."
    : state._tag === "Said"
    ? state.message
    : undefined
  return { stopping: state._tag === "Stopping", status, stop, reset: () => setState({ _tag: "Idle" }) }
}

export const StopButton = ({ stopping, onStop }: { readonly stopping: boolean; readonly onStop: () => void }) => (
  <button type="button" className="danger" disabled={stopping} onClick={onStop}>
    {stopping ? "Stopping…" : "Stop"}
  </button>
)
