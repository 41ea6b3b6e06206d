import { Either, Schema } from "effect"
import { applyEvent, type Composition, emptyComposition } from "../../catalog/events/compose.js"
import { NormalizedEvent } from "../../catalog/events/NormalizedEvent.js"
import { useEffect, useState } from "react"

/** One `event: event` frame of a thread's event stream (catalog/bridge/AgentApi.ts). */
const EventFrame = Schema.parseJson(Schema.Struct({ id: Schema.String, messageId: Schema.String, seq: Schema.Number, event: NormalizedEvent }))
const decodeFrame = Schema.decodeUnknownEither(EventFrame)

export interface ThreadEvents {
  /** Each assistant message's composition so far, in the order the stream first named them. */
  readonly messages: ReadonlyMap<string, Composition>
  readonly connected: boolean
}

/**
 * The thread's event stream, folded per message by the catalog's composer as events arrive.
 * `EventSource` sends the session cookie (same origin) and, on reconnecting, `Last-Event-ID`, so the
 * server resumes after the last event applied and none is applied twice.
 */
export const useThreadEvents = (threadId: string): ThreadEvents => {
  const [state, setState] = useState<ThreadEvents & { readonly threadId: string }>({ threadId, messages: new Map(), connected: false })

  useEffect(() => {
    setState({ threadId, messages: new Map(), connected: false })
    const source = new EventSource(`/api/threads/${encodeURIComponent(threadId)}/events`)
    const onEvent = (message: MessageEvent<unknown>) => {
      const frame = decodeFrame(message.data)
      // An event of a kind this build does not know is skipped rather than breaking the page.
      if (Either.isLeft(frame)) return
      const { messageId, event } = frame.right
      setState((previous) => {
        const messages = new Map(previous.messages)
        messages.set(messageId, applyEvent(previous.messages.get(messageId) ?? emptyComposition, event))
        return { ...previous, messages }
      })
    }
    source.addEventListener("event", onEvent)
    source.onopen = () => setState((previous) => ({ ...previous, connected: true }))
    source.onerror = () => setState((previous) => ({ ...previous, connected: false }))
    return () => source.close()
  }, [threadId])

  return state.threadId === threadId ? state : { messages: new Map(), connected: false }
}
