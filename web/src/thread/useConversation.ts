import { Either } from "effect"
import { useCallback, useEffect, useRef, useState } from "react"
import { MAX_MESSAGE_PAGE, MESSAGE_PAGE_SIZE } from "../../../catalog/bridge/MessagePage.js"
import { callThreadRoute } from "../lib/api"
import { describeRouteError } from "./interactionRoutes"
import type { Message } from "./rows"

/**
 * The thread's messages as the person has scrolled through them: the newest page on open, older
 * pages on demand, and the newest end read again only when something says it changed (the event
 * stream names a message the page does not hold, the thread's record moved on, a message was sent).
 * It never polls: an open tab on an idle thread reads nothing but its event stream.
 */
export type Conversation =
  | { readonly _tag: "Loading" }
  | { readonly _tag: "Failed"; readonly message: string }
  | {
    readonly _tag: "Ready"
    /** In the server's order (created_at, id), oldest first. */
    readonly messages: ReadonlyArray<Message>
    readonly hasEarlier: boolean
    readonly loadingEarlier: boolean
    readonly earlierError: string | undefined
  }

interface Held {
  readonly messages: ReadonlyArray<Message>
  /** The cursor of the page before the oldest held message; null when the thread's first message is held. */
  readonly earlier: string | null
}

const isOpen = (message: Message): boolean => message.status === "pending" || message.status === "streaming"

const before = (a: Message, b: Message): boolean => a.createdAt < b.createdAt || (a.createdAt === b.createdAt && a.messageId < b.messageId)

/** `fetched` is the thread's newest end: it replaces whatever `held` has from its first message on. */
const mergeNewest = (held: ReadonlyArray<Message>, fetched: ReadonlyArray<Message>): ReadonlyArray<Message> => {
  const first = fetched[0]
  if (first === undefined) return held
  const at = held.findIndex((message) => message.messageId === first.messageId)
  const kept = at >= 0 ? held.slice(0, at) : held.filter((message) => before(message, first))
  return [...kept, ...fetched]
}

export const useConversation = (threadId: string) => {
  const [state, setState] = useState<Conversation>({ _tag: "Loading" })
  const held = useRef<Held | undefined>(undefined)
  const refreshing = useRef(false)
  const refreshAgain = useRef(false)
  const loadingEarlier = useRef(false)
  const alive = useRef(true)

  const show = useCallback((next: Held, extra: { readonly loadingEarlier?: boolean; readonly earlierError?: string } = {}) => {
    held.current = next
    if (!alive.current) return
    setState({
      _tag: "Ready",
      messages: next.messages,
      hasEarlier: next.earlier !== null,
      loadingEarlier: extra.loadingEarlier ?? false,
      earlierError: extra.earlierError
    })
  }, [])

  const readPage = useCallback(
    (urlParams: { readonly cursor?: string; readonly limit: number }) =>
      callThreadRoute((routes) => routes.messages({ path: { threadId }, urlParams: { order: "newest", ...urlParams } })),
    [threadId]
  )

  useEffect(() => {
    alive.current = true
    held.current = undefined
    setState({ _tag: "Loading" })
    void readPage({ limit: MESSAGE_PAGE_SIZE }).then((page) => {
      if (!alive.current) return
      if (Either.isLeft(page)) setState({ _tag: "Failed", message: describeRouteError(page.left) })
      else show({ messages: page.right.messages, earlier: page.right.nextCursor })
    })
    return () => {
      alive.current = false
    }
  }, [readPage, show])

  /**
   * Reads the newest end again, back to the first message still open (pending or streaming), or the
   * newest one held: usually one request. Calls while one runs are folded into one more read.
   */
  const refresh = useCallback(async () => {
    if (refreshing.current) {
      refreshAgain.current = true
      return
    }
    refreshing.current = true
    try {
      do {
        refreshAgain.current = false
        const list = held.current?.messages
        if (list === undefined) return
        const anchor = list.find(isOpen) ?? list[list.length - 1]
        let fetched: ReadonlyArray<Message> = []
        let cursor: string | undefined
        let reachedStart = false
        for (;;) {
          const page = await readPage({ limit: MAX_MESSAGE_PAGE, ...(cursor === undefined ? {} : { cursor }) })
          // A failed read keeps what is shown; the next change asks again.
          if (Either.isLeft(page) || !alive.current) return
          fetched = [...page.right.messages, ...fetched]
          const oldest = page.right.messages[0]
          if (page.right.nextCursor === null) reachedStart = true
          if (
            reachedStart || anchor === undefined || oldest === undefined ||
            page.right.messages.some((message) => message.messageId === anchor.messageId) || before(oldest, anchor)
          ) break
          cursor = page.right.nextCursor ?? undefined
        }
        const current = held.current
        if (current === undefined) return
        show(
          { messages: mergeNewest(current.messages, fetched), earlier: reachedStart ? null : current.earlier },
          { loadingEarlier: loadingEarlier.current }
        )
      } while (refreshAgain.current)
    } finally {
      refreshing.current = false
    }
  }, [readPage, show])

  /** The page before the oldest message held. */
  const loadEarlier = useCallback(async () => {
    const current = held.current
    if (current === undefined || current.earlier === null || loadingEarlier.current) return
    loadingEarlier.current = true
    show(current, { loadingEarlier: true })
    const page = await readPage({ limit: MESSAGE_PAGE_SIZE, cursor: current.earlier })
    loadingEarlier.current = false
    const now = held.current ?? current
    if (Either.isLeft(page)) {
      show(now, { earlierError: describeRouteError(page.left) })
      return
    }
    const known = new Set(now.messages.map((message) => message.messageId))
    show({
      messages: [...page.right.messages.filter((message) => !known.has(message.messageId)), ...now.messages],
      earlier: page.right.nextCursor
    })
  }, [readPage, show])

  return { state, refresh, loadEarlier } as const
}
