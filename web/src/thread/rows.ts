import type { ComposedMessage, ContextWindow, MessagePart, SessionInfo } from "../../../catalog/events/compose.js"
import type { ThreadMessage } from "../../../catalog/Threads.js"

/** What a call still running when its turn was stopped reads. */
export const STOPPED_CALL = "Stopped by you"

/** A message as the conversation's pages give it (`GET /api/threads/:id/messages`). */
export type Message = typeof ThreadMessage.Type

/**
 * One row of the virtualized conversation: a user message, or a piece of an assistant turn (its
 * heading with the state, each composed part, the closing line with cost, duration and context).
 * A turn of thousands of parts is thousands of rows, so only the ones on screen are rendered.
 */
export type Row =
  | { readonly kind: "user"; readonly key: string; readonly message: Message }
  | { readonly kind: "turn"; readonly key: string; readonly state: string; readonly model: string | undefined }
  | { readonly kind: "part"; readonly key: string; readonly part: MessagePart }
  | { readonly kind: "fallback"; readonly key: string; readonly text: string }
  | {
    readonly kind: "end"
    readonly key: string
    readonly state: string
    readonly session: SessionInfo
    readonly contextWindow: ContextWindow | undefined
    readonly errorMessage: string | undefined
  }

/** A part's key: a tool call by its id (stable however the parts around it merge), anything else by position. */
const partKey = (messageId: string, part: MessagePart, index: number): string =>
  part.type === "tool" ? `${messageId}:tool:${part.toolCallId}` : `${messageId}:${index}`

const hasMeta = (session: SessionInfo, contextWindow: ContextWindow | undefined): boolean =>
  contextWindow !== undefined || session.costUsd !== undefined || session.durationMs !== undefined || session.numTurns !== undefined

const assistantRows = (
  rows: Array<Row>,
  messageId: string,
  composed: ComposedMessage | undefined,
  listed: { readonly status: string; readonly text: string; readonly errorMessage?: string } | undefined
) => {
  // A turn the list does not hold yet is one the stream is writing; one the runtime said failed
  // (a /compact that could not compact) failed, though its run ended without an error.
  const failedByRuntime = composed?.session.turnFailed !== undefined && listed?.status === "completed"
  // A turn its owner stopped ended without an error: it reads Stopped, not Finished.
  const stopped = composed?.session.turnStopped === true && listed?.status === "completed"
  const state = stopped ? "stopped" : failedByRuntime ? "failed" : listed?.status ?? "streaming"
  rows.push({ kind: "turn", key: `${messageId}:turn`, state, model: composed?.session.model })
  if (composed !== undefined && composed.parts.length > 0) {
    composed.parts.forEach((part, index) => {
      // A call the stop cut short never reports its end (OpenCode's aborted bash stays running).
      const shown = stopped && part.type === "tool" && part.state === "running"
        ? { ...part, state: "error" as const, errorMessage: STOPPED_CALL }
        : part
      rows.push({ kind: "part", key: partKey(messageId, part, index), part: shown })
    })
  } else if (listed !== undefined && listed.text !== "") {
    // Events not (yet) received: the list's text stands in.
    rows.push({ kind: "fallback", key: `${messageId}:text`, text: listed.text })
  }
  const session = composed?.session ?? {}
  const contextWindow = composed?.contextWindow
  const errorMessage = listed?.errorMessage ?? (failedByRuntime ? composed?.session.turnFailed?.error : undefined)
  if (state !== "completed" || hasMeta(session, contextWindow) || errorMessage !== undefined) {
    rows.push({ kind: "end", key: `${messageId}:end`, state, session, contextWindow, errorMessage })
  }
}

/** The conversation's rows: the listed messages in order, then the turns the event stream named before the list caught up. */
export const timelineRows = (
  messages: ReadonlyArray<Message>,
  composed: ReadonlyMap<string, ComposedMessage>,
  unseen: ReadonlyArray<string>
): ReadonlyArray<Row> => {
  const rows: Array<Row> = []
  for (const message of messages) {
    if (message.role === "user") rows.push({ kind: "user", key: message.messageId, message })
    else assistantRows(rows, message.messageId, composed.get(message.messageId), message)
  }
  for (const messageId of unseen) assistantRows(rows, messageId, composed.get(messageId), undefined)
  return rows
}

/**
 * The turns the event stream names that come after every message the page holds: a turn started
 * since the newest page was read. The stream names messages in the order their first event came
 * (`composed` keeps that order), and it bootstraps the whole thread, older pages' turns included:
 * those are not new, only not loaded yet, and never shown at the bottom. With no held turn to
 * place them by, a stream message counts as new only when the whole thread is held.
 */
export const newTurns = (
  messages: ReadonlyArray<Message>,
  composed: ReadonlyMap<string, ComposedMessage>,
  hasEarlier: boolean
): ReadonlyArray<string> => {
  const held = new Set(messages.map((message) => message.messageId))
  const order = [...composed.keys()]
  let lastHeld = -1
  order.forEach((messageId, index) => {
    if (held.has(messageId)) lastHeld = index
  })
  if (lastHeld === -1 && hasEarlier) return []
  return order.slice(lastHeld + 1).filter((messageId) => !held.has(messageId))
}

/** A first guess at a row's height in pixels, until it is rendered and measured. */
export const estimateHeight = (row: Row): number => {
  switch (row.kind) {
    case "user":
      return 56 + 22 * Math.ceil(row.message.text.length / 70)
    case "turn":
      return 36
    case "fallback":
      return 16 + 22 * Math.ceil(row.text.length / 80)
    case "end":
      return 44
    case "part":
      switch (row.part.type) {
        case "text":
          return 16 + 22 * Math.max(1, Math.ceil(row.part.text.length / 80))
        case "tool":
        case "reasoning":
          return 48
        default:
          return 34
      }
  }
}
