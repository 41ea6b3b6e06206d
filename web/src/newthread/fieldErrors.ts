import { CreateThread, Worktree } from "../../../catalog/Threads.js"

/** An argument of `create_thread` a refusal can name: a top-level one, or `worktree.<field>`. */
export type FieldName = string

/** Where a refusal goes: on the fields it names, or on the form when it names none. */
export interface FieldErrors {
  readonly fields: ReadonlyMap<FieldName, string>
  readonly form: string | undefined
}

export const noErrors: FieldErrors = { fields: new Map(), form: undefined }

// The names come from the tool's own Schema, so a field added to create_thread is recognised here too.
const known: ReadonlyArray<FieldName> = [
  ...Object.keys(CreateThread.input.fields),
  ...Object.keys(Worktree.fields).map((field) => `worktree.${field}`)
]
const escape = (name: string) => name.replace(/[.]/g, "\\.")
const names = known.map(escape).join("|")
/** "title: …", "worktree.branch: …" or "profileId, pathId, cliType: …" at the start of a part. */
const head = new RegExp(`^((?:${names})(?:, (?:${names}))*): `)
/** Where one refusal's parts meet: "…; worktree.branch: …". A "; " inside a part's own message is kept. */
const boundary = new RegExp(`; (?=(?:${names})(?:, (?:${names}))*: )`)

/**
 * Reads a `create_thread` refusal the way the server writes them: the field's name first
 * ("worktree.branch: must not contain \"..\" (a git refname)"), several joined by "; " after
 * "Invalid arguments: " when the arguments did not decode, or one message naming several fields.
 * Each field gets its message without the name; a part naming no field is the form's.
 */
export const fieldErrorsOf = (message: string): FieldErrors => {
  const body = message.startsWith("Invalid arguments: ") ? message.slice("Invalid arguments: ".length) : message
  const fields = new Map<FieldName, string>()
  const unplaced: Array<string> = []
  for (const part of body.split(boundary)) {
    const match = head.exec(part)
    if (match === null || match[1] === undefined) {
      unplaced.push(part)
      continue
    }
    const said = part.slice(match[0].length)
    for (const field of match[1].split(", ")) fields.set(field, fields.has(field) ? `${fields.get(field)}; ${said}` : said)
  }
  return { fields, form: unplaced.length === 0 ? undefined : unplaced.join("; ") }
}

/**
 * Moves the errors of fields the form does not show to the form-level message, with their names,
 * so that no refusal is lost (for example `projectId`, which the page sends for the person).
 */
export const placeErrors = (errors: FieldErrors, shown: ReadonlySet<FieldName>): FieldErrors => {
  const fields = new Map<FieldName, string>()
  const unplaced: Array<string> = errors.form === undefined ? [] : [errors.form]
  for (const [field, said] of errors.fields) {
    if (shown.has(field)) fields.set(field, said)
    else unplaced.push(`${field}: ${said}`)
  }
  return { fields, form: unplaced.length === 0 ? undefined : unplaced.join("; ") }
}
