import { useId, useMemo, useState } from "react"
import type { ReviewComment } from "../../../catalog/domain/ReviewComment.js"
import { type DiffSide, type PatchLine, quoteRange, shownRanges } from "../../../catalog/domain/PatchLines.js"
import { describeError } from "../lib/api"
import { callChangesTool } from "./changeTools"
import { saveStateText, useDraft } from "./useDraft"

export interface CommentRange {
  readonly path: string
  readonly side: DiffSide
  readonly startLine: number
  readonly endLine: number
}

/** The first added line of a patch (else the first removed one): where a comment started from its button begins. */
export const firstRange = (path: string, lines: ReadonlyArray<PatchLine>): CommentRange | undefined => {
  const changed = lines.find((line) => line.marker === "+") ?? lines.find((line) => line.marker === "-") ?? lines[0]
  if (changed === undefined) return undefined
  return changed.newLine !== null
    ? { path, side: "additions", startLine: changed.newLine, endLine: changed.newLine }
    : { path, side: "deletions", startLine: changed.oldLine ?? 1, endLine: changed.oldLine ?? 1 }
}

/**
 * A new comment on lines of one file: the lines come from a selection in the diff or are typed
 * (side, from, to), and the comment is saved as a draft while it is written. Once saved, its lines
 * are fixed; "Discard" deletes the draft, "Done" closes the box and leaves it among the drafts.
 */
const ReviewComposer = ({ lines, onClose, onSaved, range, reportId, setRange, threadId }: {
  readonly threadId: string
  readonly reportId: string
  readonly range: CommentRange
  readonly setRange: (range: CommentRange) => void
  readonly lines: ReadonlyArray<PatchLine>
  readonly onSaved: (comment: ReviewComment) => void
  readonly onClose: () => void
}) => {
  const id = useId()
  const [saved, setSaved] = useState(false)
  const [discardError, setDiscardError] = useState<string | undefined>()
  const inDiff = useMemo(() => quoteRange(lines, range.side, range.startLine, range.endLine) !== undefined, [lines, range])
  const draft = useDraft({ body: "" }, { threadId, reportId, ...range }, (comment) => {
    setSaved(true)
    onSaved(comment)
  })
  const shown = shownRanges(lines, range.side).map(([from, to]) => `${from}–${to}`).join(", ")
  const number = (value: string, fallback: number) => {
    const parsed = Number.parseInt(value, 10)
    return Number.isFinite(parsed) && parsed > 0 ? parsed : fallback
  }
  const done = () => void draft.flush().then(onClose)
  const discard = () =>
    void draft.settle().then(async () => {
      const commentId = draft.commentId()
      if (commentId === undefined) return onClose()
      const result = await callChangesTool("discard_review_comment", { commentId })
      if (result._tag === "Left") setDiscardError(describeError(result.left))
      else onClose()
    })
  return (
    <form className="review-composer" aria-label={`Comment on ${range.path}`} onSubmit={(event) => event.preventDefault()}>
      <fieldset className="review-lines" disabled={saved}>
        <legend>Lines</legend>
        <label>
          Side{" "}
          <select
            value={range.side}
            onChange={(event) => setRange({ ...range, side: event.currentTarget.value === "deletions" ? "deletions" : "additions" })}
          >
            <option value="additions">New</option>
            <option value="deletions">Old</option>
          </select>
        </label>
        <label>
          From{" "}
          <input
            type="number"
            min={1}
            inputMode="numeric"
            value={range.startLine}
            onChange={(event) => setRange({ ...range, startLine: number(event.currentTarget.value, range.startLine) })}
          />
        </label>
        <label>
          To{" "}
          <input
            type="number"
            min={1}
            inputMode="numeric"
            value={range.endLine}
            onChange={(event) => setRange({ ...range, endLine: number(event.currentTarget.value, range.endLine) })}
          />
        </label>
      </fieldset>
      {inDiff ? null : (
        <p className="field-error" role="alert">
          Lines {range.startLine}–{range.endLine} are not in one hunk of this diff ({range.side === "additions" ? "new" : "old"}{" "}
          lines shown: {shown === "" ? "none" : shown}).
        </p>
      )}
      <label htmlFor={`${id}-body`}>Comment</label>
      <textarea
        id={`${id}-body`}
        rows={3}
        value={draft.body}
        disabled={!inDiff}
        onChange={(event) => draft.setBody(event.currentTarget.value)}
      />
      <div className="review-actions">
        <span className="meta" role="status">{saveStateText(draft.state)}</span>
        {discardError === undefined ? null : <span className="field-error" role="alert">{discardError}</span>}
        <button type="button" className="quiet" onClick={discard}>Discard</button>
        <button type="button" onClick={done}>Done</button>
      </div>
    </form>
  )
}

export default ReviewComposer
