import { HashMap, Option, Order, RedBlackTree, Schema } from "effect"
import { unbundle } from "./Bundles.js"
import type { ContextWindowEvent, NormalizedEvent } from "./NormalizedEvent.js"

/**
 * Client-side composer: turns a thread's normalized events into UI message parts (SPEC "Events",
 * docs/decisions.md "Events"). Pure: `applyEvent` folds one event into an immutable state (a live
 * client applies events as they stream), `toMessage` reads the parts out, `composeEvents` does both.
 */

export interface TextPart {
  readonly type: "text"
  readonly text: string
}

export interface ReasoningPart {
  readonly type: "reasoning"
  readonly text: string
}

export interface ToolPart {
  readonly type: "tool"
  readonly toolCallId: string
  readonly toolName: string
  readonly inputJson: string
  readonly state: "running" | "completed" | "error"
  readonly outputJson?: string
  readonly errorMessage?: string
  /** The call was refused its permission (an `error` that is the person's answer, not a failure). */
  readonly denied?: true
}

export interface NoticePart {
  readonly type: "notice"
  readonly message: string
  readonly attempt?: number
  readonly delayMs?: number
  readonly status?: number
}

export interface WarningPart {
  readonly type: "warning"
  readonly message: string
}

export interface CompactionPart {
  readonly type: "compaction"
  readonly trigger?: string
  readonly preTokens?: number
}

export type MessagePart = TextPart | ReasoningPart | ToolPart | NoticePart | WarningPart | CompactionPart

export interface SessionInfo {
  readonly sessionId?: string
  readonly model?: string
  readonly costUsd?: number
  readonly durationMs?: number
  readonly numTurns?: number
  /** The runtime said the turn failed (`metadata.otherJson` `{turnStatus: "failed", error}`), whatever the run's exit said. */
  readonly turnFailed?: { readonly error?: string }
  /** The turn's owner stopped it (`turnStatus: "stopped"`, the CLI's; Codex's own `"interrupted"`). */
  readonly turnStopped?: true
}

/** The latest `context-window` event, without its `kind`. */
export type ContextWindow = Omit<typeof ContextWindowEvent.Type, "kind">

export interface ComposedMessage {
  readonly parts: ReadonlyArray<MessagePart>
  readonly session: SessionInfo
  readonly contextWindow?: ContextWindow
}

type TextKind = "text" | "reasoning"

/** A stored part; text and reasoning parts remember the `itemId` they are indexed under. */
export interface CompositionEntry {
  readonly part: MessagePart
  readonly itemId?: string
}

type Drafts = RedBlackTree.RedBlackTree<number, true>

/**
 * The fold's state. Persistent maps keep each event O(log n): parts by position, text/reasoning
 * positions by `itemId`, tool positions by `toolCallId`, and the open drafts of each kind (parts
 * built from deltas that no full item has replaced yet), ordered so the oldest is first.
 * Treat it as opaque; read it with `toMessage`.
 */
export interface Composition {
  readonly parts: HashMap.HashMap<number, CompositionEntry>
  readonly size: number
  readonly byItemId: HashMap.HashMap<string, number>
  readonly byToolCallId: HashMap.HashMap<string, number>
  readonly drafts: { readonly text: Drafts; readonly reasoning: Drafts }
  readonly session: SessionInfo
  readonly contextWindow?: ContextWindow
}

const noDrafts: Drafts = RedBlackTree.empty<number, true>(Order.number)

export const emptyComposition: Composition = {
  parts: HashMap.empty(),
  size: 0,
  byItemId: HashMap.empty(),
  byToolCallId: HashMap.empty(),
  drafts: { text: noDrafts, reasoning: noDrafts },
  session: {}
}

// ---------------------------------------------------------------------------------------------
// Parts
// ---------------------------------------------------------------------------------------------

const entryAt = (state: Composition, index: number): CompositionEntry | undefined => Option.getOrUndefined(HashMap.get(state.parts, index))

const push = (state: Composition, entry: CompositionEntry): Composition => ({
  ...state,
  parts: HashMap.set(state.parts, state.size, entry),
  size: state.size + 1
})

const setAt = (state: Composition, index: number, entry: CompositionEntry): Composition => ({
  ...state,
  parts: HashMap.set(state.parts, index, entry)
})

const textPart = (kind: TextKind, text: string): MessagePart => (kind === "text" ? { type: "text", text } : { type: "reasoning", text })

const textEntry = (kind: TextKind, text: string, itemId: string | undefined): CompositionEntry =>
  itemId === undefined ? { part: textPart(kind, text) } : { part: textPart(kind, text), itemId }

/** The position of the text or reasoning part indexed under `itemId`. */
const textIndex = (state: Composition, itemId: string | undefined): number | undefined => {
  if (itemId === undefined) return undefined
  const index = Option.getOrUndefined(HashMap.get(state.byItemId, itemId))
  if (index === undefined) return undefined
  const part = entryAt(state, index)?.part
  return part?.type === "text" || part?.type === "reasoning" ? index : undefined
}

/** Appends a new text or reasoning part, indexed by `itemId` and, for a draft, among the open drafts. */
const pushText = (state: Composition, kind: TextKind, text: string, itemId: string | undefined, draft: boolean): Composition => {
  const index = state.size
  const next = push(state, textEntry(kind, text, itemId))
  return {
    ...next,
    byItemId: itemId === undefined ? next.byItemId : HashMap.set(next.byItemId, itemId, index),
    drafts: draft ? { ...next.drafts, [kind]: RedBlackTree.insert(next.drafts[kind], index, true) } : next.drafts
  }
}

/** Rule 3: a delta extends the part it names, the last open draft of its kind, or starts a draft. */
const applyDelta = (state: Composition, kind: TextKind, text: string, itemId: string | undefined): Composition => {
  const named = textIndex(state, itemId)
  const target = named !== undefined
    ? named
    : itemId === undefined && state.size > 0 && RedBlackTree.has(state.drafts[kind], state.size - 1)
    ? state.size - 1
    : undefined
  const entry = target === undefined ? undefined : entryAt(state, target)
  if (target === undefined || entry === undefined || (entry.part.type !== "text" && entry.part.type !== "reasoning")) {
    return pushText(state, kind, text, itemId, true)
  }
  return setAt(state, target, { ...entry, part: { ...entry.part, text: entry.part.text + text } })
}

/**
 * Replaces the part at `index` with a final text or reasoning part: it leaves the open drafts, and
 * is indexed under the full item's `itemId` instead of the draft's (Claude reuses `block:N`).
 */
const finalizeAt = (state: Composition, index: number, kind: TextKind, text: string, itemId: string | undefined): Composition => {
  const previous = entryAt(state, index)?.itemId
  const unindexed = previous !== undefined && previous !== itemId ? HashMap.remove(state.byItemId, previous) : state.byItemId
  return {
    ...setAt(state, index, textEntry(kind, text, itemId)),
    byItemId: itemId === undefined ? unindexed : HashMap.set(unindexed, itemId, index),
    drafts: {
      text: RedBlackTree.removeFirst(state.drafts.text, index),
      reasoning: RedBlackTree.removeFirst(state.drafts.reasoning, index)
    }
  }
}

/** Rule 4: a full item replaces the part it names, else the oldest open draft of its kind, else is appended. */
const applyFull = (state: Composition, kind: TextKind, text: string, itemId: string | undefined): Composition => {
  const named = textIndex(state, itemId)
  if (named !== undefined) return finalizeAt(state, named, kind, text, itemId)
  const oldest = Option.getOrUndefined(RedBlackTree.first(state.drafts[kind]))
  if (oldest !== undefined) return finalizeAt(state, oldest[0], kind, text, itemId)
  return pushText(state, kind, text, itemId, false)
}

type ToolResult =
  | { readonly state: "completed"; readonly outputJson: string }
  | { readonly state: "error"; readonly errorMessage: string; readonly denied?: true }

const toolAt = (state: Composition, toolCallId: string): { readonly index: number; readonly part: ToolPart } | undefined => {
  const index = Option.getOrUndefined(HashMap.get(state.byToolCallId, toolCallId))
  if (index === undefined) return undefined
  const part = entryAt(state, index)?.part
  return part?.type === "tool" ? { index, part } : undefined
}

const pushTool = (state: Composition, part: ToolPart): Composition => ({
  ...push(state, { part }),
  byToolCallId: HashMap.set(state.byToolCallId, part.toolCallId, state.size)
})

/** Rule 5: a repeated tool-input updates the call in place (its state is kept). */
const applyToolInput = (state: Composition, toolCallId: string, toolName: string, inputJson: string): Composition => {
  const existing = toolAt(state, toolCallId)
  return existing === undefined
    ? pushTool(state, { type: "tool", toolCallId, toolName, inputJson, state: "running" })
    : setAt(state, existing.index, { part: { ...existing.part, toolName, inputJson } })
}

/** Rule 5: a result settles its call; a result for an unseen call gets a call of its own. */
const applyToolResult = (state: Composition, toolCallId: string, result: ToolResult): Composition => {
  const existing = toolAt(state, toolCallId)
  const call = existing?.part ?? { toolName: "unknown", inputJson: "{}" }
  const part: ToolPart = { type: "tool", toolCallId, toolName: call.toolName, inputJson: call.inputJson, ...result }
  return existing === undefined ? pushTool(state, part) : setAt(state, existing.index, { part })
}

/**
 * A refusal. Claude says which calls were refused only in its closing `result`, after each call's
 * error (the refusal's message): that error's message stands, and the call is marked denied.
 */
const applyDenial = (state: Composition, toolCallId: string, message: string): Composition => {
  const existing = toolAt(state, toolCallId)?.part
  const errorMessage = existing?.state === "error" && existing.errorMessage !== undefined ? existing.errorMessage : message
  return applyToolResult(state, toolCallId, { state: "error", errorMessage, denied: true })
}

// ---------------------------------------------------------------------------------------------
// The fold
// ---------------------------------------------------------------------------------------------

const mergeSession = (session: SessionInfo, event: Extract<NormalizedEvent, { kind: "metadata" }>): SessionInfo => ({
  ...session,
  ...(event.sessionId !== undefined ? { sessionId: event.sessionId } : {}),
  ...(event.model !== undefined ? { model: event.model } : {}),
  ...(event.costUsd !== undefined ? { costUsd: event.costUsd } : {}),
  ...(event.durationMs !== undefined ? { durationMs: event.durationMs } : {}),
  ...(event.numTurns !== undefined ? { numTurns: event.numTurns } : {}),
  ...turnFailure(event.otherJson)
})

const TurnStatus = Schema.parseJson(Schema.Struct({ turnStatus: Schema.String, error: Schema.optional(Schema.NullOr(Schema.String)) }))
const decodeTurnStatus = Schema.decodeUnknownOption(TurnStatus)

const turnFailure = (otherJson: string | undefined): { readonly turnFailed?: { readonly error?: string }; readonly turnStopped?: true } => {
  if (otherJson === undefined) return {}
  const decoded = decodeTurnStatus(otherJson)
  if (decoded._tag === "Some" && (decoded.value.turnStatus === "stopped" || decoded.value.turnStatus === "interrupted")) {
    return { turnStopped: true }
  }
  if (decoded._tag === "None" || decoded.value.turnStatus !== "failed") return {}
  const error = decoded.value.error
  return { turnFailed: typeof error === "string" && error !== "" ? { error } : {} }
}

const contextWindowOf = (event: typeof ContextWindowEvent.Type): ContextWindow => ({
  usedTokens: event.usedTokens,
  ...(event.limitTokens !== undefined ? { limitTokens: event.limitTokens } : {}),
  ...(event.inputTokens !== undefined ? { inputTokens: event.inputTokens } : {}),
  ...(event.outputTokens !== undefined ? { outputTokens: event.outputTokens } : {}),
  ...(event.reasoningTokens !== undefined ? { reasoningTokens: event.reasoningTokens } : {}),
  ...(event.cacheReadTokens !== undefined ? { cacheReadTokens: event.cacheReadTokens } : {}),
  ...(event.cacheCreationTokens !== undefined ? { cacheCreationTokens: event.cacheCreationTokens } : {})
})

/** One event that is not a bundle. */
const applyOne = (state: Composition, event: NormalizedEvent): Composition => {
  switch (event.kind) {
    case "text":
    case "reasoning":
      return event.delta === true
        ? applyDelta(state, event.kind, event.text, event.itemId)
        : applyFull(state, event.kind, event.text, event.itemId)
    case "tool-input":
      return applyToolInput(state, event.toolCallId, event.toolName, event.inputJson)
    case "tool-output":
      return applyToolResult(state, event.toolCallId, { state: "completed", outputJson: event.outputJson })
    case "tool-error":
      return event.denied === true
        ? applyDenial(state, event.toolCallId, event.message)
        : applyToolResult(state, event.toolCallId, { state: "error", errorMessage: event.message })
    case "runtime-notice":
      return push(state, {
        part: {
          type: "notice",
          message: event.message,
          ...(event.attempt !== undefined ? { attempt: event.attempt } : {}),
          ...(event.delayMs !== undefined ? { delayMs: event.delayMs } : {}),
          ...(event.status !== undefined ? { status: event.status } : {})
        }
      })
    case "warning":
      return push(state, { part: { type: "warning", message: event.message } })
    case "context-compaction":
      return push(state, {
        part: {
          type: "compaction",
          ...(event.trigger !== undefined ? { trigger: event.trigger } : {}),
          ...(event.preTokens !== undefined ? { preTokens: event.preTokens } : {})
        }
      })
    case "context-window":
      return { ...state, contextWindow: contextWindowOf(event) }
    case "metadata":
      return { ...state, session: mergeSession(state.session, event) }
    case "unknown":
      return state
  }
}

/** Applies one event (a bundle's events in order); returns a new state, `state` is unchanged. */
export const applyEvent = (state: Composition, event: NormalizedEvent): Composition =>
  event.kind === "metadata" && event.otherJson !== undefined ? unbundle(event).reduce(applyOne, state) : applyOne(state, event)

/** The composed message so far; consecutive text parts are merged into one, joined with a blank line. */
export const toMessage = (state: Composition): ComposedMessage => {
  const parts: Array<MessagePart> = []
  let run: Array<string> | undefined
  const flush = () => {
    if (run !== undefined) parts.push({ type: "text", text: run.filter((text) => text !== "").join("\n\n") })
    run = undefined
  }
  for (let index = 0; index < state.size; index++) {
    const part = entryAt(state, index)?.part
    if (part === undefined) continue
    if (part.type === "text") {
      run = run ?? []
      run.push(part.text)
      continue
    }
    flush()
    parts.push(part)
  }
  flush()
  return state.contextWindow === undefined
    ? { parts, session: state.session }
    : { parts, session: state.session, contextWindow: state.contextWindow }
}

export const composeEvents = (events: Iterable<NormalizedEvent>): ComposedMessage => {
  let state = emptyComposition
  for (const event of events) state = applyEvent(state, event)
  return toMessage(state)
}

// ---------------------------------------------------------------------------------------------
// Thread message text
// ---------------------------------------------------------------------------------------------

/** SPEC "Thread message": each message's text is capped at about 4000 characters. */
export const MessageTextLimit = 4000

export interface MessageText {
  readonly text: string
  readonly truncated?: true
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff

/**
 * A thread message's text: the agent's text parts only (no tools, reasoning or notices), joined
 * with a blank line, cut at `MessageTextLimit` UTF-16 units (one less rather than split a surrogate
 * pair); `truncated: true` only when something was cut.
 */
export const messageText = (input: ComposedMessage | Iterable<NormalizedEvent>): MessageText => {
  const composed = "parts" in input ? input : composeEvents(input)
  const text = composed.parts
    .flatMap((part) => (part.type === "text" && part.text !== "" ? [part.text] : []))
    .join("\n\n")
  if (text.length <= MessageTextLimit) return { text }
  const splitsPair = isHighSurrogate(text.charCodeAt(MessageTextLimit - 1)) && isLowSurrogate(text.charCodeAt(MessageTextLimit))
  return { text: text.slice(0, splitsPair ? MessageTextLimit - 1 : MessageTextLimit), truncated: true }
}
