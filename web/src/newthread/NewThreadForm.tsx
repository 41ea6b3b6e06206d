import { type FormEvent, useEffect, useRef, useState } from "react"
import type { CliProfile } from "../../../catalog/domain/CliProfile.js"
import { MAX_TITLE_LENGTH } from "../../../catalog/domain/Thread.js"
import { callTool, describeError, isSignedOut, type ResultOf } from "../lib/api"
import { navigate, threadPath } from "../lib/router"
import { argumentsOf, type Draft, emptyDraft, effortOf, modelOf, modeOf, targetOf } from "./draft"
import { Field } from "./Field"
import { type FieldErrors, fieldErrorsOf, noErrors, placeErrors } from "./fieldErrors"
import { readLastChoice, saveLastChoice } from "./lastChoice"
import { SpawnBeside } from "./SpawnBeside"
import { TargetFields } from "./TargetFields"
import { WorktreeFields } from "./WorktreeFields"
import "./NewThreadForm.css"

/** The arguments the form has a control for: a refusal naming any other goes on the form itself. */
const SHOWN: ReadonlySet<string> = new Set([
  "content",
  "title",
  "profileId",
  "pathId",
  "cliType",
  "cliModel",
  "cliEffort",
  "cliMode",
  "projectAgentId",
  "taskId",
  "sourceThreadId",
  "worktree",
  "worktree.parentPathId",
  "worktree.branch",
  "worktree.baseRef",
  "worktree.startFromOrigin"
])

/** Updating the URL keeps a reload (or a shared link) on the same source. */
const replaceSpawnFrom = (threadId: string) => {
  const url = new URL(window.location.href)
  if (threadId === "") url.searchParams.delete("spawnFrom")
  else url.searchParams.set("spawnFrom", threadId)
  window.history.replaceState(null, "", url.pathname + url.search)
}

/**
 * `create_thread` from a form: the target is limited to what the chosen machine reports, and the
 * server decides everything else, its refusals shown on the field they name. A created thread
 * opens on its own page.
 */
const TitleHint = ({ length }: { readonly length: number }) => (
  <>
    Empty: taken from the first message.{" "}
    <span className={length > MAX_TITLE_LENGTH ? "over-limit" : undefined}>
      {length} / {MAX_TITLE_LENGTH} characters{length > MAX_TITLE_LENGTH ? `: ${length - MAX_TITLE_LENGTH} too many` : ""}
    </span>
  </>
)

export const NewThreadForm = ({ projectId, profiles, agents, spawnFrom, initial, later }: {
  readonly projectId: string
  readonly profiles: ReadonlyArray<CliProfile>
  readonly agents: ResultOf<"list_project_agents">["agents"]
  readonly spawnFrom: string
  /** A prefilled form (a delegation's): its submit says Start. */
  readonly initial?: Draft
  /** "Don't start yet": leaves without creating the thread. */
  readonly later?: () => void
}) => {
  const [draft, setDraft] = useState<Draft>(() => initial ?? emptyDraft(spawnFrom, readLastChoice(projectId)))
  const [errors, setErrors] = useState<FieldErrors>(noErrors)
  const [busy, setBusy] = useState(false)
  const [attempt, setAttempt] = useState(0)
  const form = useRef<HTMLFormElement>(null)
  const target = targetOf(draft, profiles)

  /** A change clears the errors of the arguments it affects: the refusal was about the old value. */
  const change = (patch: Partial<Draft>, fields: ReadonlyArray<string>) => {
    setDraft((current) => ({ ...current, ...patch }))
    setErrors((current) => {
      if (!fields.some((field) => current.fields.has(field))) return current
      const kept = new Map(current.fields)
      for (const field of fields) kept.delete(field)
      return { fields: kept, form: current.form }
    })
  }

  // After a refusal, the first field it names takes the focus (else the form's message), so a
  // keyboard or screen-reader user lands on what to fix.
  useEffect(() => {
    if (attempt === 0) return
    const invalid = form.current?.querySelector<HTMLElement>("[aria-invalid='true'], .form-error")
    invalid?.focus()
  }, [attempt])

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    if (busy) return
    setBusy(true)
    setErrors(noErrors)
    void callTool("create_thread", argumentsOf(draft, target, projectId)).then((result) => {
      setBusy(false)
      if (result._tag === "Right") {
        saveLastChoice(projectId, {
          profileId: target.profile?.profileId ?? "",
          pathId: target.path?.pathId ?? "",
          cliType: target.runtime?.type ?? "",
          cliModel: modelOf(draft, target),
          cliEffort: effortOf(draft, target),
          cliMode: modeOf(draft)
        })
        navigate(threadPath(projectId, result.right.threadId))
        window.scrollTo(0, 0)
        return
      }
      const error = result.left
      setErrors(
        error._tag === "McpToolError"
          ? placeErrors(fieldErrorsOf(error.message), SHOWN)
          : {
            fields: new Map(),
            form: isSignedOut(error) ? "Your session has ended: reload the page to sign in again." : describeError(error)
          }
      )
      setAttempt((n) => n + 1)
    })
  }

  return (
    <form ref={form} className="new-thread" onSubmit={submit} noValidate aria-labelledby="new-thread-heading">
      <Field
        name="content"
        label="First message"
        error={errors.fields.get("content")}
        hint="What the agent should do. It is sent as your first message."
      >
        {(control) => (
          <textarea
            {...control}
            rows={6}
            value={draft.content}
            onChange={(event) => change({ content: event.currentTarget.value }, ["content"])}
          />
        )}
      </Field>
      {
        /* No maxLength: the browser would cut a pasted title silently. The count says how long it
          is, and create_thread refuses a longer one on this field. */
      }
      <Field name="title" label="Title (optional)" error={errors.fields.get("title")} hint={<TitleHint length={draft.title.length} />}>
        {(control) => (
          <input
            {...control}
            type="text"
            value={draft.title}
            onChange={(event) => change({ title: event.currentTarget.value }, ["title"])}
          />
        )}
      </Field>
      <TargetFields draft={draft} target={target} profiles={profiles} errors={errors} change={change} />
      <WorktreeFields draft={draft} path={target.path} errors={errors} change={change} />
      <fieldset className="group">
        <legend>Optional</legend>
        <Field
          name="projectAgentId"
          label="Project agent"
          error={errors.fields.get("projectAgentId")}
          hint="Its prompt is given to the agent; it cannot be changed later."
        >
          {(control) => (
            <select
              {...control}
              value={draft.projectAgentId}
              onChange={(event) => change({ projectAgentId: event.currentTarget.value }, ["projectAgentId"])}
            >
              <option value="">None</option>
              {agents.map((agent) => <option key={agent.projectAgentId} value={agent.projectAgentId}>{agent.name}</option>)}
            </select>
          )}
        </Field>
        <Field
          name="taskId"
          label="Task"
          error={errors.fields.get("taskId")}
          hint="The task this thread works on: its ID or ref (DEMO-12)."
        >
          {(control) => (
            <input
              {...control}
              type="text"
              spellCheck={false}
              autoComplete="off"
              autoCapitalize="none"
              value={draft.taskId}
              onChange={(event) => change({ taskId: event.currentTarget.value }, ["taskId"])}
            />
          )}
        </Field>
        <SpawnBeside
          projectId={projectId}
          value={draft.sourceThreadId}
          errors={errors}
          onChange={(threadId) => {
            replaceSpawnFrom(threadId)
            change({ sourceThreadId: threadId }, ["sourceThreadId"])
          }}
          onTarget={(inherited) => change({ profileId: inherited.profileId, pathId: inherited.pathId, cliType: inherited.cliType }, [])}
        />
      </fieldset>
      {errors.form !== undefined ? <p className="form-error field-error" role="alert" tabIndex={-1}>{errors.form}</p> : null}
      <div className="actions">
        <button type="submit" disabled={busy}>{busy ? "Starting…" : initial === undefined ? "Start thread" : "Start"}</button>
        {later === undefined ? null : <button type="button" className="quiet" onClick={later}>Don't start yet</button>}
        {target.profile !== undefined && !target.profile.isOnline
          ? <span className="hint">{target.profile.name} is offline: the thread waits in its queue.</span>
          : null}
      </div>
    </form>
  )
}
