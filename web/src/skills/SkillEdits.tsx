import { type FormEvent, useRef, useState } from "react"
import { FormError } from "../forms/FormField"
import { formErrorsOf } from "../forms/fieldErrors"
import { useFocusOnRefusal } from "../forms/useFocusOnRefusal"
import type { SkillToolArgs } from "./skillTools"
import { SavedVersion, useSkillSave } from "./useSkillSave"

type EditEntry = NonNullable<SkillToolArgs<"update_skill">["edits"]>[number]
type Op = EditEntry["op"]

/** One row of the batch as typed; the fields an op does not take are ignored. */
interface Row {
  readonly key: number
  readonly op: Op
  readonly path: string
  readonly oldString: string
  readonly newString: string
  readonly replaceAll: boolean
  readonly newPath: string
  readonly content: string
}

const OPS: ReadonlyArray<{ readonly op: Op; readonly label: string }> = [
  { op: "replace", label: "Replace text" },
  { op: "move", label: "Move (rename)" },
  { op: "delete", label: "Delete file" },
  { op: "write", label: "Write whole file" }
]
const isOp = (value: string): value is Op => OPS.some((entry) => entry.op === value)

const entryOf = (row: Row): EditEntry => {
  switch (row.op) {
    case "replace":
      return { op: "replace", path: row.path, oldString: row.oldString, newString: row.newString, replaceAll: row.replaceAll }
    case "move":
      return { op: "move", path: row.path, newPath: row.newPath }
    case "delete":
      return { op: "delete", path: row.path }
    case "write":
      return { op: "write", path: row.path, content: row.content }
  }
}

let nextKey = 0
const newRow = (path: string): Row => ({
  key: nextKey++,
  op: "replace",
  path,
  oldString: "",
  newString: "",
  replaceAll: false,
  newPath: "",
  content: ""
})

/** "edits.1.path: …" parts of a refusal, by the index they name; the rest stays the form's. */
const byIndex = (message: string): { readonly rows: ReadonlyMap<number, string>; readonly rest: string | undefined } => {
  const rows = new Map<number, string>()
  const rest: Array<string> = []
  for (const part of message.replace(/^Invalid arguments: /, "").split(/; (?=[\w.]+: )/)) {
    const match = /^edits\.(\d+)(?:\.[\w.]+)?: /.exec(part)
    if (match === null) rest.push(part)
    else rows.set(Number(match[1]), part.slice("edits.".length + (match[1]?.length ?? 0) + 1))
  }
  return { rows, rest: rest.length === 0 ? undefined : rest.join("; ") }
}

/**
 * Edits applied together as one save (SPEC: in order, each seeing the earlier ones, all or
 * nothing). A `replace` the tool cannot place comes back as `{ ok: false, index, code }` and is
 * shown on that edit; a bad path is shown on the edit it names.
 */
export const SkillEdits = ({ skillId, paths }: { readonly skillId: string; readonly paths: ReadonlyArray<string> }) => {
  const [rows, setRows] = useState<ReadonlyArray<Row>>(() => [newRow(paths[0] ?? "SKILL.md")])
  const [rowErrors, setRowErrors] = useState<ReadonlyMap<number, string>>(new Map())
  const [formError, setFormError] = useState<string | undefined>(undefined)
  const [refusals, setRefusals] = useState(0)
  const formRef = useRef<HTMLFormElement>(null)
  useFocusOnRefusal(formRef, refusals === 0 ? undefined : refusals)
  const { save, saving, version } = useSkillSave(skillId)
  const change = (key: number, patch: Partial<Row>) => {
    setRows((current) => current.map((row) => row.key === key ? { ...row, ...patch } : row))
    setRowErrors(new Map())
  }
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    setRowErrors(new Map())
    setFormError(undefined)
    save({ edits: rows.map(entryOf) }, {
      onAnswer: (answer) => {
        if (answer.ok) setRows([newRow(paths[0] ?? "SKILL.md")])
        else {
          setRowErrors(new Map([[answer.index, `${answer.code}: ${answer.message}`]]))
          setRefusals((n) => n + 1)
        }
      },
      onError: (error) => {
        const placed = formErrorsOf(error, [])
        const split = byIndex(placed.form ?? "")
        setRowErrors(split.rows)
        setFormError(split.rest)
        setRefusals((n) => n + 1)
      }
    })
  }
  return (
    <form ref={formRef} className="editor-form" onSubmit={submit} noValidate aria-labelledby="skill-edits-heading">
      <h2 id="skill-edits-heading">Edits</h2>
      <p className="hint">Applied in order as one save: each sees the ones before it, and if one cannot be placed nothing is written.</p>
      <ol className="edit-list">
        {rows.map((row, index) => {
          const id = `edit-${row.key}`
          const error = rowErrors.get(index)
          return (
            <li key={row.key}>
              <fieldset
                className={error === undefined ? "edit-row" : "edit-row invalid"}
                aria-describedby={error === undefined ? undefined : `${id}-error`}
              >
                <legend>Edit {index + 1}</legend>
                <div className="form-grid">
                  <div className="form-field">
                    <label htmlFor={`${id}-op`}>Action</label>
                    <select
                      id={`${id}-op`}
                      value={row.op}
                      onChange={(e) => {
                        const op = e.currentTarget.value
                        if (isOp(op)) change(row.key, { op })
                      }}
                    >
                      {OPS.map((entry) => <option key={entry.op} value={entry.op}>{entry.label}</option>)}
                    </select>
                  </div>
                  <div className="form-field">
                    <label htmlFor={`${id}-path`}>File</label>
                    <input
                      id={`${id}-path`}
                      type="text"
                      list="skill-paths"
                      value={row.path}
                      onChange={(e) => change(row.key, { path: e.currentTarget.value })}
                    />
                  </div>
                </div>
                {row.op === "replace"
                  ? (
                    <>
                      <div className="form-field">
                        <label htmlFor={`${id}-old`}>Find (exact text)</label>
                        <textarea
                          id={`${id}-old`}
                          value={row.oldString}
                          onChange={(e) => change(row.key, { oldString: e.currentTarget.value })}
                        />
                      </div>
                      <div className="form-field">
                        <label htmlFor={`${id}-new`}>Replace with</label>
                        <textarea
                          id={`${id}-new`}
                          value={row.newString}
                          onChange={(e) => change(row.key, { newString: e.currentTarget.value })}
                        />
                      </div>
                      <label className="toggle">
                        <input
                          type="checkbox"
                          checked={row.replaceAll}
                          onChange={(e) => change(row.key, { replaceAll: e.currentTarget.checked })}
                        />{" "}
                        Every occurrence
                      </label>
                    </>
                  )
                  : null}
                {row.op === "move"
                  ? (
                    <div className="form-field">
                      <label htmlFor={`${id}-new-path`}>New path</label>
                      <input
                        id={`${id}-new-path`}
                        type="text"
                        value={row.newPath}
                        onChange={(e) => change(row.key, { newPath: e.currentTarget.value })}
                      />
                    </div>
                  )
                  : null}
                {row.op === "write"
                  ? (
                    <div className="form-field">
                      <label htmlFor={`${id}-content`}>Content</label>
                      <textarea
                        id={`${id}-content`}
                        className="code"
                        value={row.content}
                        onChange={(e) => change(row.key, { content: e.currentTarget.value })}
                      />
                    </div>
                  )
                  : null}
                {error === undefined ? null : <p id={`${id}-error`} className="field-error" role="alert" tabIndex={-1}>{error}</p>}
                {rows.length === 1 ?
                  null :
                  (
                    <button
                      type="button"
                      className="quiet"
                      onClick={() => setRows((current) => current.filter((other) => other.key !== row.key))}
                    >
                      Remove edit {index + 1}
                    </button>
                  )}
              </fieldset>
            </li>
          )
        })}
      </ol>
      <datalist id="skill-paths">
        {paths.map((path) => <option key={path} value={path} />)}
      </datalist>
      <FormError message={formError} />
      <div className="form-actions">
        <button type="button" className="quiet" onClick={() => setRows((current) => [...current, newRow(paths[0] ?? "SKILL.md")])}>
          Add an edit
        </button>
        <button type="submit" disabled={saving}>Save edits</button>
        <SavedVersion version={version} />
      </div>
    </form>
  )
}
