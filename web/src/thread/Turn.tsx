import type { ContextWindow, SessionInfo } from "../../../catalog/events/compose.js"
import { seconds, StatusBadge, tokens, usd } from "../lib/format"

/** The assistant turn's heading: who speaks and the message's state. */
export const TurnHead = ({ state, model }: { readonly state: string; readonly model: string | undefined }) => (
  <div className="turn-head">
    <span className="turn-who">Agent</span>
    <StatusBadge status={state} />
    {model === undefined ? null : <span className="meta">{model}</span>}
  </div>
)

/** How full the context window is: a meter when the runtime reported its size, the count alone otherwise. */
const ContextMeter = ({ window }: { readonly window: ContextWindow }) => {
  const { usedTokens, limitTokens } = window
  if (limitTokens === undefined || limitTokens <= 0) return <span className="meta">{tokens(usedTokens)} tokens in context</span>
  const percent = Math.round((100 * usedTokens) / limitTokens)
  return (
    <span className="meta context-window">
      <meter
        min={0}
        max={limitTokens}
        value={Math.min(usedTokens, limitTokens)}
        high={limitTokens * 0.8}
        optimum={0}
        aria-label="Context window used"
      />
      <span>{tokens(usedTokens)} / {tokens(limitTokens)} tokens ({percent}%)</span>
    </span>
  )
}

/** The end of an assistant turn: still working, how it failed, and what the run cost. */
export const TurnEnd = ({ state, session, contextWindow, errorMessage, asking = false }: {
  readonly state: string
  readonly session: SessionInfo
  readonly contextWindow: ContextWindow | undefined
  readonly errorMessage: string | undefined
  /** The run is held on a request of the person's, shown below the conversation. */
  readonly asking?: boolean
}) => (
  <div className="turn-end">
    {state === "pending" ? <p className="hint">Waiting for the machine to start it…</p> : null}
    {state === "streaming" && !asking ? <p className="hint working">Working…</p> : null}
    {state === "streaming" && asking ? <p className="notice asking">Waiting on you: the request is below.</p> : null}
    {state === "stopped" ? <p className="hint">Stopped by you: the agent takes your next message.</p> : null}
    {state === "failed"
      ? <p className="notice warning">This run failed{errorMessage === undefined ? "." : `: ${errorMessage}`}</p>
      : null}
    <div className="row-meta">
      {session.durationMs === undefined ? null : <span className="meta">{seconds(session.durationMs)}</span>}
      {session.costUsd === undefined ? null : <span className="meta">{usd(session.costUsd)}</span>}
      {session.numTurns === undefined ? null : <span className="meta">{session.numTurns} {session.numTurns === 1 ? "turn" : "turns"}</span>}
      {contextWindow === undefined ? null : <ContextMeter window={contextWindow} />}
    </div>
  </div>
)
