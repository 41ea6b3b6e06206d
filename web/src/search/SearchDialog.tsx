import { type KeyboardEvent, useEffect, useRef, useState } from "react"
import { describeError } from "../lib/api"
import { navigate, taskPath } from "../lib/router"
import { useToolQuery } from "../board/taskTools"
import "./Search.css"

/** `DEMO-12` or `acme/DEMO-12`: what get_task takes as a ref (catalog/domain/Task.ts' TASK_ADDRESS_RULE). */
const REF = /^(?:[a-z0-9][a-z0-9-]{1,38}[a-z0-9]\/)?[A-Za-z][A-Za-z0-9]{1,9}-\d{1,9}$/i

/** The query as typed, once the person has stopped typing for a moment: one search per pause, not per key. */
const useSettled = (value: string, ms: number) => {
  const [settled, setSettled] = useState(value)
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms)
    return () => clearTimeout(timer)
  }, [value, ms])
  return settled
}

const Results = ({ projectId, query, active, onOpen }: {
  readonly projectId: string
  readonly query: string
  readonly active: number
  readonly onOpen: (ref: string) => void
}) => {
  const found = useToolQuery("search_tasks", { projectId, query, limit: 20 })
  if (found.isPending) return <p className="meta" role="status">Searching…</p>
  if (found.isError) return <p className="field-error" role="alert">{describeError(found.error)}</p>
  if (found.data.tasks.length === 0) return <p className="meta" role="status">No task matches “{query}”.</p>
  return (
    <ul className="search-results" role="listbox" aria-label="Tasks found">
      {found.data.tasks.map((task, index) => (
        <li
          key={task.taskId}
          id={`search-result-${index}`}
          role="option"
          aria-selected={index === active}
          className={index === active ? "active" : undefined}
          onClick={() => onOpen(task.refId)}
        >
          <span className="card-ref">{task.refId}</span> {task.name} <span className="meta">· {task.status}</span>
        </li>
      ))}
    </ul>
  )
}

/**
 * Search from anywhere (`/` or Ctrl/⌘K): `search_tasks` as the person types, best matches first;
 * the arrow keys choose, Enter opens. A ref (`DEMO-12`, `demo/DEMO-12`) opens that task directly.
 */
export const SearchDialog = ({ projectId, onClose }: { readonly projectId: string; readonly onClose: () => void }) => {
  const dialog = useRef<HTMLDialogElement>(null)
  const [text, setText] = useState("")
  const [active, setActive] = useState(0)
  const query = useSettled(text.trim(), 150)
  const isRef = REF.test(text.trim())

  useEffect(() => {
    const element = dialog.current
    if (element !== null && !element.open) element.showModal()
  }, [])

  const open = (ref: string) => {
    onClose()
    navigate(taskPath(projectId, ref))
  }
  const keys = (event: KeyboardEvent<HTMLInputElement>) => {
    // A search box's own Escape would clear the text first: one Escape closes search.
    if (event.key === "Escape") dialog.current?.close()
    else if (event.key === "ArrowDown") setActive((index) => Math.min(index + 1, 19))
    else if (event.key === "ArrowUp") setActive((index) => Math.max(index - 1, 0))
    else if (event.key === "Enter") {
      event.preventDefault()
      if (isRef) return open(text.trim())
      document.getElementById(`search-result-${active}`)?.click()
    } else return
    event.preventDefault()
  }

  return (
    <dialog ref={dialog} className="search-dialog" aria-label="Search tasks" onClose={onClose}>
      <input
        type="search"
        autoFocus
        value={text}
        placeholder="Search tasks, or a ref like DEMO-12"
        aria-label="Search tasks"
        aria-controls="search-results"
        aria-activedescendant={query === "" || isRef ? undefined : `search-result-${active}`}
        onChange={(event) => {
          setText(event.currentTarget.value)
          setActive(0)
        }}
        onKeyDown={keys}
      />
      <div id="search-results">
        {isRef ? <p className="meta">Enter opens {text.trim().toUpperCase()}.</p> : null}
        {query === "" || isRef ? null : <Results projectId={projectId} query={query} active={active} onOpen={open} />}
      </div>
      <p className="meta search-hint">↑ ↓ to choose · Enter to open · Esc to close</p>
    </dialog>
  )
}
