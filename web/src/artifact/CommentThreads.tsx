import { useState } from "react"
import { describeError } from "../lib/api"
import { type CommentThread, useToolMutation } from "./artifactTools"
import { ThreadCard } from "./ThreadCard"

type Filter = "open" | "resolved" | "all"

/** Open threads as they sit in the document, those whose text was edited away apart; resolved ones oldest first. */
const sections = (threads: ReadonlyArray<CommentThread>, filter: Filter) => {
  const shown = threads.filter((thread) => filter === "all" || thread.status === filter)
  const placed = shown.filter((thread) => thread.status === "open" && !thread.anchorLost)
    .sort((a, b) => (a.anchorStart ?? 0) - (b.anchorStart ?? 0))
  const lost = shown.filter((thread) => thread.status === "open" && thread.anchorLost)
  const resolved = shown.filter((thread) => thread.status === "resolved")
  return { placed, lost, resolved }
}

/**
 * The artifact's comment threads: shown by status, each its card, and a batch of chosen ones
 * resolved or reopened at once (atomically, as `set_artifact_comment_status` does).
 */
export const CommentThreads = ({ active, onShow, threads }: {
  readonly threads: ReadonlyArray<CommentThread>
  readonly active: string | undefined
  readonly onShow: (threadId: string) => void
}) => {
  const [filter, setFilter] = useState<Filter>("open")
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set())
  const setStatus = useToolMutation("set_artifact_comment_status")
  const { lost, placed, resolved } = sections(threads, filter)
  const visible = new Set([...placed, ...lost, ...resolved].map((thread) => thread.commentId))
  const batch = [...chosen].filter((id) => visible.has(id))
  const count = (status: "open" | "resolved") => threads.filter((thread) => thread.status === status).length

  const choose = (id: string) => (yes: boolean) =>
    setChosen((before) => {
      const after = new Set(before)
      if (yes) after.add(id)
      else after.delete(id)
      return after
    })
  const apply = (status: "open" | "resolved") =>
    setStatus.mutate({ commentIds: batch, status }, {
      onSuccess: () => setChosen(new Set()),
      onSettled: () => void setStatus.client.invalidateQueries({ queryKey: ["list_artifact_comments"] })
    })
  const cards = (list: ReadonlyArray<CommentThread>) => (
    <ol className="artifact-threads">
      {list.map((thread) => (
        <ThreadCard
          key={thread.commentId}
          thread={thread}
          active={thread.commentId === active}
          chosen={chosen.has(thread.commentId)}
          onChoose={choose(thread.commentId)}
          onShow={thread.status === "open" && !thread.anchorLost ? () => onShow(thread.commentId) : undefined}
        />
      ))}
    </ol>
  )

  return (
    <section className="artifact-comments" aria-labelledby="artifact-comments-heading">
      <h2 id="artifact-comments-heading">Comments</h2>
      <fieldset className="thread-filter">
        <legend className="visually-hidden">Show</legend>
        {([["open", `Open ${count("open")}`], ["resolved", `Resolved ${count("resolved")}`], ["all", "All"]] as const).map((
          [value, label]
        ) => (
          <label key={value}>
            <input type="radio" name="thread-filter" checked={filter === value} onChange={() => setFilter(value)} /> {label}
          </label>
        ))}
      </fieldset>
      <div className="thread-batch" role="group" aria-label="Chosen threads">
        <span className="meta" aria-live="polite">{batch.length} chosen</span>
        <button type="button" className="quiet" disabled={batch.length === 0 || setStatus.isPending} onClick={() => apply("resolved")}>
          Resolve chosen
        </button>
        <button type="button" className="quiet" disabled={batch.length === 0 || setStatus.isPending} onClick={() => apply("open")}>
          Reopen chosen
        </button>
      </div>
      {setStatus.isError ? <p className="field-error" role="alert">{describeError(setStatus.error)}</p> : null}
      {placed.length + lost.length + resolved.length === 0
        ? <p className="meta">No {filter === "all" ? "" : `${filter} `}threads.</p>
        : null}
      {placed.length === 0 ? null : cards(placed)}
      {lost.length === 0 ? null : (
        <section aria-labelledby="lost-threads">
          <h3 id="lost-threads">Text edited away</h3>
          <p className="hint">The text these threads were on is no longer in the document. They stay open until resolved.</p>
          {cards(lost)}
        </section>
      )}
      {resolved.length === 0 ? null : (
        <section aria-labelledby="resolved-threads">
          <h3 id="resolved-threads">Resolved</h3>
          {cards(resolved)}
        </section>
      )}
    </section>
  )
}
