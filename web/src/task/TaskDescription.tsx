import { useState } from "react"
import { Markdown } from "../thread/Markdown"
import type { TaskChange } from "./useTaskUpdate"

/**
 * The description as Markdown, and edited as Markdown: the server stores it as rich text (SPEC's
 * ProseMirror document) and reads it back as Markdown, the same text agents read over MCP.
 */
export const TaskDescription = ({ markdown, save, saving }: {
  readonly markdown: string
  readonly save: (change: TaskChange) => void
  readonly saving: boolean
}) => {
  const [draft, setDraft] = useState<string | undefined>(undefined)
  if (draft === undefined) {
    return (
      <section className="task-section" aria-labelledby="task-description">
        <div className="section-head">
          <h2 id="task-description">Description</h2>
          <button type="button" className="quiet" onClick={() => setDraft(markdown)}>Edit</button>
        </div>
        {markdown.trim() === "" ? <p className="meta">No description.</p> : <Markdown text={markdown} />}
      </section>
    )
  }
  return (
    <section className="task-section" aria-labelledby="task-description">
      <h2 id="task-description">Description</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault()
          save({ description: draft.trim() === "" ? null : draft })
          setDraft(undefined)
        }}
      >
        <label className="visually-hidden" htmlFor="task-description-text">Description (Markdown)</label>
        <textarea id="task-description-text" rows={10} value={draft} onChange={(event) => setDraft(event.currentTarget.value)} />
        <div className="form-actions">
          <button type="submit" disabled={saving}>Save</button>
          <button type="button" className="quiet" onClick={() => setDraft(undefined)}>Cancel</button>
        </div>
      </form>
    </section>
  )
}
