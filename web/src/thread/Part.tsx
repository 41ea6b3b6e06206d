import { memo, type ReactNode } from "react"
import type { MessagePart, ToolPart } from "../../../catalog/events/compose.js"
import { seconds, tokens } from "../lib/format"
import { Markdown } from "./Markdown"
import { STOPPED_CALL } from "./rows"

const toolStateLabel = {
  running: "Running",
  completed: "Done",
  error: "Failed",
  denied: "Denied by you",
  expired: "Not answered in time",
  stopped: "Stopped"
} as const

/**
 * A call the person refused did not fail: it reads as their answer, not as an error. A request
 * nobody answered is refused too, with the CLI's message saying so: that one was not theirs.
 */
const toolState = (part: ToolPart): keyof typeof toolStateLabel =>
  part.state === "error" && part.denied === true
    ? (part.errorMessage?.startsWith("Nobody answered this request in time") === true ? "expired" : "denied")
    : part.state === "error" && part.errorMessage === STOPPED_CALL
    ? "stopped"
    : part.state

const pretty = (json: string): string => {
  try {
    return JSON.stringify(JSON.parse(json), null, 2)
  } catch {
    return json
  }
}

/**
 * Whether a collapsible part is open is held by the timeline, not the `details` element: a row
 * scrolled off screen is unmounted, and would come back closed.
 */
export interface Disclosure {
  readonly open: boolean
  readonly onToggle: (open: boolean) => void
}

const Collapsible = ({ className, disclosure, summary, children }: {
  readonly className: string
  readonly disclosure: Disclosure
  readonly summary: ReactNode
  readonly children: () => ReactNode
}) => (
  <details
    className={className}
    open={disclosure.open}
    onToggle={(event) => {
      if (event.currentTarget.open !== disclosure.open) disclosure.onToggle(event.currentTarget.open)
    }}
  >
    <summary>{summary}</summary>
    {/* A closed call's input and output are not rendered: a long run holds thousands of them. */}
    {disclosure.open ? children() : null}
  </details>
)

const PartView = (
  { part, disclosure, asking = false }: { readonly part: MessagePart; readonly disclosure: Disclosure; readonly asking?: boolean }
) => {
  switch (part.type) {
    case "text":
      return <Markdown text={part.text} />
    case "reasoning":
      return (
        <Collapsible className="reasoning" disclosure={disclosure} summary="Thinking">
          {() => <div className="text">{part.text}</div>}
        </Collapsible>
      )
    case "tool":
      return (
        <Collapsible
          className={`tool tool-${part.state}`}
          disclosure={disclosure}
          summary={
            <>
              <span className="tool-name">{part.toolName}</span>
              {asking
                ? <span className="badge attention">Waiting on you</span>
                : <span className={`badge tool-state-${toolState(part)}`}>{toolStateLabel[toolState(part)]}</span>}
            </>
          }
        >
          {() => (
            <div className="tool-body">
              <h3>Input</h3>
              <pre>{pretty(part.inputJson)}</pre>
              {part.outputJson !== undefined
                ? (
                  <>
                    <h3>Output</h3>
                    <pre>{pretty(part.outputJson)}</pre>
                  </>
                )
                : null}
              {part.errorMessage !== undefined
                ? (
                  <>
                    <h3>Error</h3>
                    <pre>{part.errorMessage}</pre>
                  </>
                )
                : null}
            </div>
          )}
        </Collapsible>
      )
    case "notice":
      return (
        <p className="notice runtime-notice">
          <span className="notice-mark" aria-hidden="true">↻</span>
          {part.message}
          {part.delayMs !== undefined ? ` · next try in ${seconds(part.delayMs)}` : null}
        </p>
      )
    case "warning":
      return (
        <p className="notice warning">
          <span className="notice-mark" aria-hidden="true">⚠</span>
          <span className="visually-hidden">Warning:</span>
          {part.message}
        </p>
      )
    case "compaction":
      return (
        <p className="compaction">
          <span>
            Context compacted
            {part.trigger === undefined ? "" : ` (${part.trigger})`}
            {part.preTokens === undefined ? "" : ` · ${tokens(part.preTokens)} tokens before`}
          </span>
        </p>
      )
  }
}

/**
 * One composed part. The composer hands back the same part object while it is unchanged, except
 * text runs, which it joins anew: those compare by their text, so a flush re-renders only what changed.
 */
export const Part = memo(PartView, (before, after) =>
  before.disclosure.open === after.disclosure.open && before.asking === after.asking &&
  (before.part === after.part || (before.part.type === "text" && after.part.type === "text" && before.part.text === after.part.text)))
