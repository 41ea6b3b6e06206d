import { Either } from "effect"
import { createContext, useContext, useState } from "react"
import { callThreadRoute } from "../lib/api"
import { describeRouteError } from "./interactionRoutes"
import { Markdown } from "./Markdown"
import type { Message } from "./rows"

/**
 * Whole texts read so far, by message ID, for the thread on screen: kept above the virtualized
 * rows so that a message opened in full stays open after scrolling away and back.
 */
export interface WholeTexts {
  readonly threadId: string
  readonly texts: Map<string, string>
}

export const WholeTextsContext = createContext<WholeTexts | undefined>(undefined)

/**
 * A user message. Pages carry each text capped (about 4,000 characters, as the MCP tool caps it);
 * a longer one says so and reads its whole text on "Show all" (`GET …/messages/:messageId`).
 */
export const UserText = ({ message }: { readonly message: Message }) => {
  const whole = useContext(WholeTextsContext)
  const [, setShown] = useState(0)
  const [state, setState] = useState<
    { readonly _tag: "Idle" } | { readonly _tag: "Loading" } | { readonly _tag: "Failed"; readonly message: string }
  >({ _tag: "Idle" })
  const text = whole?.texts.get(message.messageId)
  if (message.truncated !== true || text !== undefined || whole === undefined) return <Markdown text={text ?? message.text} />

  const showAll = () => {
    setState({ _tag: "Loading" })
    void callThreadRoute((routes) => routes.message({ path: { threadId: whole.threadId, messageId: message.messageId } })).then((read) => {
      if (Either.isLeft(read)) {
        setState({ _tag: "Failed", message: describeRouteError(read.left) })
        return
      }
      whole.texts.set(message.messageId, read.right.text)
      setState({ _tag: "Idle" })
      setShown((n) => n + 1)
    })
  }
  return (
    <>
      <Markdown text={message.text} />
      <p className="hint truncated">
        <span>Truncated: the first {message.text.length.toLocaleString("en")} characters.</span>{" "}
        <button type="button" className="quiet" onClick={showAll} disabled={state._tag === "Loading"}>
          {state._tag === "Loading" ? "Reading…" : "Show all"}
        </button>
        {state._tag === "Failed" ? <span role="alert">Cannot read the whole message: {state.message}</span> : null}
      </p>
    </>
  )
}
