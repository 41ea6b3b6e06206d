import { Either, Schema } from "effect"
import { applyEvent, type ComposedMessage, type Composition, emptyComposition, toMessage } from "../../../catalog/events/compose.js"
import { NormalizedEvent } from "../../../catalog/events/NormalizedEvent.js"
import { useEffect, useState } from "react"
import { flushSync } from "react-dom"
import { keepOpen } from "./liveSource"

/** One event of a thread's event stream (catalog/bridge/ThreadsApi.ts); an `events` frame carries an array of them. */
const StreamedEvent = Schema.Struct({ id: Schema.String, messageId: Schema.String, seq: Schema.Number, event: NormalizedEvent })
// A guard, not a decode: the event's Schema has no transformation, and checking 20,000 events in
// place costs half of building them again.
const isStreamedEvent = Schema.is(StreamedEvent)
const decodeBatch = Schema.decodeUnknownEither(Schema.parseJson(Schema.Array(Schema.Unknown)))

export interface ThreadEvents {
  /** Each assistant message's composition so far, in the order the stream first named them. */
  readonly messages: ReadonlyMap<string, Composition>
  /** The same messages composed (`toMessage`); a message no event changed keeps its object. */
  readonly composed: ReadonlyMap<string, ComposedMessage>
  readonly connected: boolean
}

const none: ThreadEvents = { messages: new Map(), composed: new Map(), connected: false }

// A composition is immutable, so its composed message can be kept beside it: re-composing only
// the messages an event touched keeps a flush proportional to what changed, not to the thread.
const composedCache = new WeakMap<Composition, ComposedMessage>()

/** `toMessage`, once per composition. */
export const composedOf = (composition: Composition): ComposedMessage => {
  const cached = composedCache.get(composition)
  if (cached !== undefined) return cached
  const composed = toMessage(composition)
  composedCache.set(composition, composed)
  return composed
}

/** A cursor is a decimal integer id; the stream sends them in increasing order. */
const cursorOf = (id: string): bigint | undefined => (/^\d{1,19}$/.test(id) ? BigInt(id) : undefined)

/**
 * The fold outside React: frames are decoded and applied as they arrive, and React sees the result
 * once per animation frame. The stream bootstraps a thread with every stored event at once (20,000
 * for a long run), and one state update per event would render the page that many times.
 */
const makeFold = () => {
  const messages = new Map<string, Composition>()
  let last: bigint = -1n
  let changed = false
  return {
    /** Applies one streamed event; false when it is not one this build can read or was seen before. */
    apply: (data: unknown): boolean => {
      // An event of a kind this build does not know is skipped rather than breaking the page.
      if (!isStreamedEvent(data)) return false
      const { id, messageId, event } = data
      // After a reconnection the server resumes after `Last-Event-ID`; an id at or before the last
      // one applied (a server that replays more than asked) would otherwise be applied twice.
      const cursor = cursorOf(id)
      if (cursor !== undefined) {
        if (cursor <= last) return false
        last = cursor
      }
      messages.set(messageId, applyEvent(messages.get(messageId) ?? emptyComposition, event))
      changed = true
      return true
    },
    /** The id of the last event applied, to resume after; undefined before the first. */
    lastId: (): string | undefined => (last < 0n ? undefined : last.toString()),
    /** The messages as of now, when anything changed since the last call. */
    take: (): ReadonlyMap<string, Composition> | undefined => {
      if (!changed) return undefined
      changed = false
      return new Map(messages)
    }
  }
}

/**
 * The thread's event stream (batched), folded per message by the catalog's composer as events arrive.
 * `EventSource` sends the session cookie (same origin) and, on reconnecting, `Last-Event-ID`, so the
 * server resumes after the last event received and none is applied twice.
 */
export const useThreadEvents = (threadId: string): ThreadEvents => {
  const [state, setState] = useState<ThreadEvents & { readonly threadId: string }>({ threadId, ...none })

  useEffect(() => {
    setState({ threadId, ...none })
    const fold = makeFold()
    let frame: number | undefined
    let timer: ReturnType<typeof setTimeout> | undefined

    const flush = () => {
      if (frame !== undefined) cancelAnimationFrame(frame)
      if (timer !== undefined) clearTimeout(timer)
      frame = undefined
      timer = undefined
      const messages = fold.take()
      if (messages === undefined) return
      const composed = new Map([...messages].map(([messageId, composition]) => [messageId, composedOf(composition)]))
      // Committed before this frame paints: a streamed event shows in the frame after it arrived.
      flushSync(() => setState((previous) => ({ ...previous, messages, composed })))
    }
    // A hidden tab runs no animation frames: the timer flushes there (at the browser's pace).
    const schedule = () => {
      if (frame === undefined) frame = requestAnimationFrame(flush)
      if (timer === undefined) timer = setTimeout(flush, 250)
    }

    const close = keepOpen(() => {
      const after = fold.lastId()
      // Batched: a long thread's backlog comes as a few dozen frames of up to 500 events, not one frame each.
      return `/api/threads/${encodeURIComponent(threadId)}/events?batch=1${after === undefined ? "" : `&after=${after}`}`
    }, {
      listen: (source) =>
        source.addEventListener("events", (message: MessageEvent<unknown>) => {
          const events = decodeBatch(message.data)
          if (Either.isLeft(events)) return
          let applied = false
          for (const event of events.right) applied = fold.apply(event) || applied
          if (applied) schedule()
        }),
      opened: () => setState((previous) => ({ ...previous, connected: true })),
      lost: () => setState((previous) => ({ ...previous, connected: false }))
    })
    return () => {
      close()
      if (frame !== undefined) cancelAnimationFrame(frame)
      if (timer !== undefined) clearTimeout(timer)
    }
  }, [threadId])

  return state.threadId === threadId ? state : none
}
