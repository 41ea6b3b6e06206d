import { type FormEvent, useState } from "react"
import { describeError } from "../lib/api"
import { ago } from "../lib/format"
import { Markdown } from "../thread/Markdown"
import { type CommentThread, useToolMutation } from "./artifactTools"

/**
 * One comment thread: the snippet it is on, the comment and its flat replies, a reply box, resolving
 * or reopening it, choosing it for a batch, and showing its text in the document.
 */
export const ThreadCard = ({ active, chosen, onChoose, onShow, thread }: {
  readonly thread: CommentThread
  readonly active: boolean
  readonly chosen: boolean
  readonly onChoose: (chosen: boolean) => void
  readonly onShow: (() => void) | undefined
}) => {
  const [reply, setReply] = useState("")
  const answer = useToolMutation("reply_to_artifact_comment")
  const setStatus = useToolMutation("set_artifact_comment_status")
  const reread = () => void answer.client.invalidateQueries({ queryKey: ["list_artifact_comments"] })
  const next = thread.status === "open" ? "resolved" : "open"
  const heading = `Comment by ${thread.authorName} on “${
    thread.anchorText.length > 60 ? `${thread.anchorText.slice(0, 59)}…` : thread.anchorText
  }”`

  const send = (event: FormEvent) => {
    event.preventDefault()
    answer.mutate({ commentId: thread.commentId, content: reply }, { onSuccess: () => setReply(""), onSettled: reread })
  }

  return (
    <li
      id={`thread-${thread.commentId}`}
      className={`artifact-thread${active ? " active" : ""}${thread.status === "resolved" ? " resolved" : ""}`}
      aria-label={heading}
    >
      <div className="thread-head">
        <label className="thread-choice">
          <input type="checkbox" checked={chosen} onChange={(e) => onChoose(e.currentTarget.checked)} />
          <span className="visually-hidden">Choose this thread</span>
        </label>
        <blockquote className="thread-anchor">{thread.anchorText}</blockquote>
      </div>
      <div className="meta">
        {thread.authorName} · {ago(thread.createdAt)}
        {thread.status === "resolved" ? " · Resolved" : ""}
      </div>
      <Markdown text={thread.content} />
      {thread.replies.length === 0 ? null : (
        <ol className="thread-replies" aria-label="Replies">
          {thread.replies.map((r) => (
            <li key={r.commentId}>
              <div className="meta">{r.authorName} · {ago(r.createdAt)}</div>
              <Markdown text={r.content} />
            </li>
          ))}
        </ol>
      )}
      <div className="thread-actions">
        {onShow === undefined ? null : <button type="button" className="quiet" onClick={onShow}>Show in document</button>}
        <button
          type="button"
          className="quiet"
          disabled={setStatus.isPending}
          onClick={() => setStatus.mutate({ commentIds: [thread.commentId], status: next }, { onSettled: reread })}
        >
          {thread.status === "open" ? "Resolve" : "Reopen"}
        </button>
      </div>
      <form className="thread-reply" onSubmit={send} aria-label={`Reply to ${thread.authorName}`}>
        <label className="visually-hidden" htmlFor={`reply-${thread.commentId}`}>Reply</label>
        <textarea
          id={`reply-${thread.commentId}`}
          rows={1}
          value={reply}
          placeholder="Reply"
          onChange={(event) => setReply(event.currentTarget.value)}
        />
        <button type="submit" disabled={answer.isPending || reply.trim() === ""}>Reply</button>
      </form>
      {answer.isError ? <p className="field-error" role="alert">Not sent: {describeError(answer.error)}</p> : null}
      {setStatus.isError ? <p className="field-error" role="alert">{describeError(setStatus.error)}</p> : null}
    </li>
  )
}
