/**
 * What PostgreSQL `text` cannot hold: the NUL character, and a lone UTF-16 surrogate (valid in
 * JSON and in a JavaScript string, but not UTF-8). Every string of a tool's arguments, keys
 * included and however nested, is checked here before decoding, so no field can reach SQL with one.
 */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

const ruleBroken = (text: string): string | undefined =>
  text.includes("\u0000")
    ? "must not contain the NUL character (\\u0000)"
    : LONE_SURROGATE.test(text)
    ? "must not split a character (it holds an unpaired UTF-16 surrogate)"
    : undefined

/** `path: rule` for the first string (or key) PostgreSQL could not store, if any. */
export const unstorableText = (value: unknown, path: ReadonlyArray<string> = []): string | undefined => {
  if (typeof value === "string") {
    const rule = ruleBroken(value)
    return rule === undefined ? undefined : `${path.join(".") || "(arguments)"}: ${rule}`
  }
  if (typeof value !== "object" || value === null) return undefined
  for (const [key, item] of Object.entries(value)) {
    const keyRule = ruleBroken(key)
    if (keyRule !== undefined) return `${[...path, key].join(".")}: ${keyRule}`
    const found = unstorableText(item, [...path, key])
    if (found !== undefined) return found
  }
  return undefined
}
