import { useState } from "react"
import type { ReviewComment } from "../../../catalog/domain/ReviewComment.js"
import { describeError } from "../lib/api"
import { callChangesTool } from "./changeTools"
import { saveStateText, useDraft } from "./useDraft"

/** `src/a.ts:12–14`, with "old" when the numbers are the old file's: how a comment names its lines. */
export const linesLabel = (comment: Pick<ReviewComment, "path" | "side" | "startLine" | "endLine">) =>
  `${comment.path}:${comment.startLine === comment.endLine ? comment.startLine : `${comment.startLine}–${comment.endLine}`}${
    comment.side === "deletions" ? " (old)" : ""
  }`

const Quote = ({ quote }: { readonly quote: ReadonlyArray<string> }) => (
  <pre className="review-quote">
    {quote.map((line, i) => (
      <span key={i} className={line.startsWith("+") ? "added" : line.startsWith("-") ? "removed" : undefined}>{line}{"\n"}</span>
    ))}
  </pre>
)

const Draft = ({ comment, onChanged }: { readonly comment: ReviewComment; readonly onChanged: () => void }) => {
  const draft = useDraft({ commentId: comment.commentId, body: comment.body }, comment, () => undefined)
  const [error, setError] = useState<string | undefined>()
  const discard = () =>
    void callChangesTool("discard_review_comment", { commentId: comment.commentId }).then((result) => {
      if (result._tag === "Left") setError(describeError(result.left))
      else onChanged()
    })
  const label = linesLabel(comment)
  return (
    <li className="review-comment draft">
      <div className="review-comment-head">
        <strong>{label}</strong>
        <span className="review-badge">Draft</span>
        {comment.placement === null ? <span className="meta">not in the latest report</span> : null}
      </div>
      <Quote quote={comment.quote} />
      <textarea
        aria-label={`Comment on ${label}`}
        rows={2}
        value={draft.body}
        onChange={(event) => draft.setBody(event.currentTarget.value)}
      />
      <div className="review-actions">
        <span className="meta" role="status">{saveStateText(draft.state)}</span>
        {error === undefined ? null : <span className="field-error" role="alert">{error}</span>}
        <button type="button" className="quiet" onClick={discard} aria-label={`Discard the draft on ${label}`}>Discard</button>
      </div>
    </li>
  )
}

const Sent = ({ comment, onChanged }: { readonly comment: ReviewComment; readonly onChanged: () => void }) => {
  const [error, setError] = useState<string | undefined>()
  const resolved = comment.status === "resolved"
  const label = linesLabel(comment)
  const toggle = () =>
    void callChangesTool("resolve_review_comment", { commentId: comment.commentId, resolved: !resolved }).then((result) => {
      if (result._tag === "Left") setError(describeError(result.left))
      else onChanged()
    })
  return (
    <li className={`review-comment ${comment.status}`}>
      <div className="review-comment-head">
        <strong>{label}</strong>
        <span className="review-badge">{resolved ? "Resolved" : "Open"}</span>
        {comment.maybeAddressed && !resolved ? <span className="review-badge maybe">Maybe addressed</span> : null}
      </div>
      <Quote quote={comment.quote} />
      <p className="review-body">{comment.body}</p>
      {comment.resolution === null ? null : <p className="meta">Resolved: {comment.resolution}</p>}
      <div className="review-actions">
        {error === undefined ? null : <span className="field-error" role="alert">{error}</span>}
        <button type="button" className="quiet" onClick={toggle} aria-label={`${resolved ? "Reopen" : "Resolve"} the comment on ${label}`}>
          {resolved ? "Reopen" : "Resolve"}
        </button>
      </div>
    </li>
  )
}

/**
 * The review of the thread's changes: the person's drafts (each still editable and saved as it is
 * written), "Send review" that queues them on the thread as one message, and the comments already
 * sent, each open, maybe addressed (a later report changed its lines) or resolved.
 */
const ReviewList = ({ comments, hidden, onChanged, threadId }: {
  readonly threadId: string
  readonly comments: ReadonlyArray<ReviewComment>
  readonly hidden: string | undefined
  readonly onChanged: () => void
}) => {
  const [sending, setSending] = useState(false)
  const [error, setError] = useState<string | undefined>()
  const [sent, setSent] = useState<string | undefined>()
  const drafts = comments.filter((comment) => comment.status === "draft")
  const others = comments.filter((comment) => comment.status !== "draft")
  const send = () => {
    setSending(true)
    setError(undefined)
    void callChangesTool("send_review", { threadId }).then((result) => {
      setSending(false)
      if (result._tag === "Left") {
        setError(`The review was not sent; the drafts are kept. ${describeError(result.left)}`)
        return
      }
      setSent(`Review sent to the thread: ${result.right.comments.length} ${result.right.comments.length === 1 ? "comment" : "comments"}.`)
      onChanged()
    })
  }
  if (comments.length === 0 && sent === undefined) return null
  return (
    <section className="review" aria-label="Review">
      <h3>Review</h3>
      {drafts.length === 0 ? null : (
        <ul className="review-comments">
          {drafts.filter((draft) => draft.commentId !== hidden).map((draft) => (
            <Draft key={draft.commentId} comment={draft} onChanged={onChanged} />
          ))}
        </ul>
      )}
      <div className="review-actions">
        <span className="meta" role="status">{sent ?? ""}</span>
        {error === undefined ? null : <span className="field-error" role="alert">{error}</span>}
        {drafts.length === 0 ? null : (
          <button type="button" onClick={send} disabled={sending}>
            {sending ? "Sending…" : `Send review (${drafts.length} ${drafts.length === 1 ? "comment" : "comments"})`}
          </button>
        )}
      </div>
      {others.length === 0
        ? null
        : (
          <ul className="review-comments">
            {others.map((comment) => <Sent key={comment.commentId} comment={comment} onChanged={onChanged} />)}
          </ul>
        )}
    </section>
  )
}

export default ReviewList
