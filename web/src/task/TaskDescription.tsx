import { lazy, Suspense, useState } from "react"
import { Markdown } from "../thread/Markdown"
import type { TaskChange } from "./useTaskUpdate"

const DescriptionEditor = lazy(() => import("./DescriptionEditor"))

/**
 * The description, shown as the Markdown agents read over MCP and edited as rich text
 * (./DescriptionEditor.tsx): the server stores SPEC's ProseMirror document either way.
 */
export const TaskDescription = ({ markdown, save, saving }: {
  readonly markdown: string
  readonly save: (change: TaskChange) => void
  readonly saving: boolean
}) => {
  const [editing, setEditing] = useState(false)
  if (!editing) {
    return (
      <section className="task-section" aria-labelledby="task-description">
        <div className="section-head">
          <h2 id="task-description">Description</h2>
          <button type="button" className="quiet" onClick={() => setEditing(true)}>Edit</button>
        </div>
        {markdown.trim() === "" ? <p className="meta">No description.</p> : <Markdown text={markdown} />}
      </section>
    )
  }
  return (
    <section className="task-section" aria-labelledby="task-description">
      <h2 id="task-description">Description</h2>
      <Suspense fallback={<p className="meta">Loading the editor…</p>}>
        <DescriptionEditor
          markdown={markdown}
          saving={saving}
          onSave={(description) => {
            save({ description })
            setEditing(false)
          }}
          onCancel={() => setEditing(false)}
        />
      </Suspense>
    </section>
  )
}
