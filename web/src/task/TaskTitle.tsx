import { useState } from "react"
import type { TaskChange } from "./useTaskUpdate"

/** The task's name as its heading; Rename turns it into a field, saved with Enter. */
export const TaskTitle = ({ name, save, saving }: {
  readonly name: string
  readonly save: (change: TaskChange) => void
  readonly saving: boolean
}) => {
  const [draft, setDraft] = useState<string | undefined>(undefined)
  if (draft === undefined) {
    return (
      <div className="section-head">
        <h1 id="task-name">{name}</h1>
        <button type="button" className="quiet" onClick={() => setDraft(name)}>Rename</button>
      </div>
    )
  }
  return (
    <form
      className="inline-form"
      onSubmit={(event) => {
        event.preventDefault()
        if (draft !== name) save({ name: draft })
        setDraft(undefined)
      }}
    >
      <label className="visually-hidden" htmlFor="task-name-input">Name</label>
      <input id="task-name-input" type="text" value={draft} onChange={(event) => setDraft(event.currentTarget.value)} />
      <button type="submit" disabled={saving || draft.trim() === ""}>Save</button>
      <button type="button" className="quiet" onClick={() => setDraft(undefined)}>Cancel</button>
    </form>
  )
}
