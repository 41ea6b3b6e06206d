import { useEffect, useRef, useState } from "react"
import type { ReviewComment } from "../../../catalog/domain/ReviewComment.js"
import { describeError } from "../lib/api"
import { callChangesTool } from "./changeTools"

/** How long after the last keystroke a draft is saved. */
export const SAVE_DELAY_MS = 600

export interface DraftLines {
  readonly threadId: string
  readonly reportId: string
  readonly path: string
  readonly side: "additions" | "deletions"
  readonly startLine: number
  readonly endLine: number
}

export type SaveState =
  | { readonly _tag: "Idle" }
  | { readonly _tag: "Saving" }
  | { readonly _tag: "Saved" }
  | { readonly _tag: "Failed"; readonly message: string }

/**
 * A draft's body, saved on the server as it is written (`save_review_comment`, SAVE_DELAY_MS after
 * the last change): the first save creates the draft on `lines`, the next ones rewrite its body.
 * A blank body is not saved (the server refuses it); a failed save says why and is tried again at
 * the next change.
 */
export const useDraft = (
  initial: { readonly commentId?: string; readonly body: string },
  lines: DraftLines,
  onSaved: (comment: ReviewComment) => void
) => {
  const [body, setBody] = useState(initial.body)
  const [state, setState] = useState<SaveState>({ _tag: "Idle" })
  const commentId = useRef(initial.commentId)
  const savedBody = useRef(initial.body)
  const latest = useRef({ lines, onSaved })
  // Saves run one after another: a second save waits for the first to learn the draft's ID.
  const queue = useRef<Promise<void>>(Promise.resolve())
  latest.current = { lines, onSaved }

  const timer = useRef<number | undefined>(undefined)

  const save = async (text: string) => {
    if (text === savedBody.current || text.trim() === "") return
    setState({ _tag: "Saving" })
    const { lines: at } = latest.current
    const args = commentId.current === undefined
      ? { ...at, body: text }
      : { threadId: at.threadId, commentId: commentId.current, body: text }
    const result = await callChangesTool("save_review_comment", args)
    if (result._tag === "Left") {
      setState({ _tag: "Failed", message: describeError(result.left) })
      return
    }
    commentId.current = result.right.commentId
    savedBody.current = text
    setState({ _tag: "Saved" })
    latest.current.onSaved(result.right)
  }
  const enqueue = (text: string) => {
    window.clearTimeout(timer.current)
    timer.current = undefined
    queue.current = queue.current.then(() => save(text), () => save(text))
    return queue.current
  }

  useEffect(() => {
    if (body === savedBody.current || body.trim() === "") return
    timer.current = window.setTimeout(() => void enqueue(body), SAVE_DELAY_MS)
    return () => window.clearTimeout(timer.current)
  }, [body])

  /** Saves what is written now rather than after the delay (closing the box must not lose it). */
  const flush = () => enqueue(body)
  /** Drops a save not yet started and waits for the one under way: what a discard waits for. */
  const settle = () => {
    window.clearTimeout(timer.current)
    return queue.current
  }

  return { body, setBody, state, flush, settle, commentId: () => commentId.current } as const
}

export const saveStateText = (state: SaveState): string =>
  state._tag === "Saving"
    ? "Saving…"
    : state._tag === "Saved"
    ? "Draft saved"
    : state._tag === "Failed"
    ? `Not saved: ${state.message}`
    : ""
