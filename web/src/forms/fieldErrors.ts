import { describeError, isSignedOut, type ToolError } from "../lib/api"

/** A refusal split over a form: the message of each field it names, and what names no field shown. */
export interface FormErrors {
  readonly fields: ReadonlyMap<string, string>
  readonly form: string | undefined
}

export const noFormErrors: FormErrors = { fields: new Map(), form: undefined }

const escape = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * Reads a tool's refusal the way the server writes it: the argument's name first ("key: project MAIN
 * already has a prompt /review"), several joined by "; " after "Invalid arguments: " when the
 * arguments did not decode. Each of `shown` (the arguments the form has a field for) gets its
 * message without the name; anything else stays whole, as the form's message.
 */
export const formErrorsOf = (error: ToolError, shown: ReadonlyArray<string>): FormErrors => {
  if (error._tag !== "McpToolError") {
    return {
      fields: new Map(),
      form: isSignedOut(error) ? "Your session has ended: reload the page to sign in again." : describeError(error)
    }
  }
  const message = error.message
  const body = message.startsWith("Invalid arguments: ") ? message.slice("Invalid arguments: ".length) : message
  const names = [...shown].sort((a, b) => b.length - a.length).map(escape).join("|")
  if (names === "") return { fields: new Map(), form: message }
  const head = new RegExp(`^(${names})(?:\\.[\\w.]+)?: `)
  const fields = new Map<string, string>()
  const unplaced: Array<string> = []
  for (const part of body.split(/; (?=[\w.]+: )/)) {
    const match = head.exec(part)
    const field = match?.[1]
    if (match === null || field === undefined) {
      unplaced.push(part)
      continue
    }
    const said = part.slice(match[0].length)
    fields.set(field, fields.has(field) ? `${fields.get(field)}; ${said}` : said)
  }
  return { fields, form: unplaced.length === 0 ? undefined : unplaced.join("; ") }
}
