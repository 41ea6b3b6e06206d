import { useEffect, useState } from "react"
import type { ThreadTarget } from "../../../catalog/Threads.js"
import { describeError } from "../lib/api"
import { useTool } from "../lib/useTool"
import { Field } from "./Field"
import type { FieldErrors } from "./fieldErrors"

type Target = typeof ThreadTarget.Type

/**
 * What spawning beside the chosen thread means, read from the thread itself; an ordinary thread's
 * target is handed up once, to start the form on the machine, checkout and runtime the server
 * would inherit.
 */
const SourceSummary = ({ threadId, onTitle, onTarget }: {
  readonly threadId: string
  readonly onTitle: (threadId: string, title: string) => void
  readonly onTarget: (target: Target) => void
}) => {
  const [source] = useTool("get_thread", { threadId })
  const thread = source._tag === "Ready" ? source.value : undefined
  useEffect(() => {
    if (thread === undefined) return
    onTitle(thread.threadId, thread.title)
    if (thread.kind === "thread") onTarget(thread.target)
    // Once per source: a later re-read must not undo what the person changed since.
  }, [thread?.threadId])

  if (source._tag === "Loading") return <span role="status">Reading the thread…</span>
  if (source._tag === "Failed") return <span className="field-error">Cannot read this thread: {describeError(source.error)}</span>
  const value = source.value
  if (value.kind === "workflow_run") {
    return <span className="field-error">A workflow run cannot be joined: choose one of its threads or none.</span>
  }
  return (
    <>
      {value.kind !== "thread"
        ? `The new thread joins this group (${value.childCount} ${value.childCount === 1 ? "thread" : "threads"}).`
        : value.parentThreadId === null
        ? "The new thread and this one become a group."
        : "The new thread joins this thread's group."}{" "}
      It starts on the same machine, checkout and runtime, which you may change; the model, effort, mode, project agent and worktree are not
      inherited.
    </>
  )
}

/** The thread to spawn beside (`sourceThreadId`): none, one of the project's threads or groups, or the one the link named. */
export const SpawnBeside = ({ projectId, value, errors, onChange, onTarget }: {
  readonly projectId: string
  readonly value: string
  readonly errors: FieldErrors
  readonly onChange: (threadId: string) => void
  readonly onTarget: (target: Target) => void
}) => {
  const [threads] = useTool("list_threads", { projectId, includeDone: true, limit: 50 })
  const [titles, setTitles] = useState<ReadonlyMap<string, string>>(new Map())
  // A workflow run cannot be joined, so it is not offered.
  const listed = threads._tag === "Ready" ? threads.value.threads.filter((thread) => thread.kind !== "workflow_run") : []
  const unlisted = value !== "" && !listed.some((thread) => thread.threadId === value)
  return (
    <Field
      name="sourceThreadId"
      label="Spawn beside"
      error={errors.fields.get("sourceThreadId")}
      hint={value === "" ? undefined : (
        <SourceSummary
          key={value}
          threadId={value}
          onTitle={(threadId, title) => setTitles((known) => new Map(known).set(threadId, title))}
          onTarget={onTarget}
        />
      )}
    >
      {(control) => (
        <select {...control} value={value} onChange={(event) => onChange(event.currentTarget.value)}>
          <option value="">No thread: a thread of its own</option>
          {unlisted ? <option value={value}>{titles.get(value) ?? value}</option> : null}
          {listed.map((thread) => (
            <option key={thread.threadId} value={thread.threadId}>
              {thread.kind === "group" ? `Group: ${thread.title} (${thread.childCount})` : thread.title}
            </option>
          ))}
        </select>
      )}
    </Field>
  )
}
