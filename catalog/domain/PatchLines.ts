/**
 * The lines of a unified diff as a reviewer sees them (issue 31 §2): each line with its marker and
 * its number on the old side (`deletions`) and the new side (`additions`), so that a comment names
 * its lines the way the diff view numbers them, quotes them, and is found again in a later patch.
 */

export type DiffSide = "additions" | "deletions"

export interface PatchLine {
  /** " " context, "+" added, "-" removed */
  readonly marker: " " | "+" | "-"
  readonly text: string
  readonly oldLine: number | null
  readonly newLine: number | null
  readonly hunk: number
}

const HUNK_HEADER = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/

/** Every line of every hunk of `patch`, in order; file headers and "\ No newline" notes are left out. */
export const patchLines = (patch: string): ReadonlyArray<PatchLine> => {
  const lines: Array<PatchLine> = []
  let hunk = -1
  let oldLine = 0
  let newLine = 0
  for (const raw of patch.split("\n")) {
    const header = HUNK_HEADER.exec(raw)
    if (header !== null) {
      hunk += 1
      oldLine = Number(header[1])
      newLine = Number(header[2])
      continue
    }
    if (hunk < 0) continue
    const marker = raw.charAt(0)
    const text = raw.slice(1)
    if (marker === " ") lines.push({ marker, text, oldLine: oldLine++, newLine: newLine++, hunk })
    else if (marker === "+") lines.push({ marker, text, oldLine: null, newLine: newLine++, hunk })
    else if (marker === "-") lines.push({ marker, text, oldLine: oldLine++, newLine: null, hunk })
  }
  return lines
}

const numberOn = (line: PatchLine, side: DiffSide) => side === "additions" ? line.newLine : line.oldLine

/**
 * The patch's lines from `start` to `end` of `side`, with the other side's lines between them (as
 * the unified view shows them): undefined unless both ends are in the patch and in one hunk.
 */
export const quoteRange = (
  lines: ReadonlyArray<PatchLine>,
  side: DiffSide,
  start: number,
  end: number
): ReadonlyArray<PatchLine> | undefined => {
  const first = lines.findIndex((line) => numberOn(line, side) === start)
  const last = lines.findIndex((line) => numberOn(line, side) === end)
  if (first < 0 || last < first) return undefined
  const firstLine = lines[first]
  const lastLine = lines[last]
  if (firstLine === undefined || lastLine === undefined || firstLine.hunk !== lastLine.hunk) return undefined
  return lines.slice(first, last + 1)
}

/** The ranges of `side` the patch shows, one per hunk ("1–4, 20–31"), for a message about lines out of range. */
export const shownRanges = (lines: ReadonlyArray<PatchLine>, side: DiffSide): ReadonlyArray<readonly [number, number]> => {
  const ranges = new Map<number, [number, number]>()
  for (const line of lines) {
    const number = numberOn(line, side)
    if (number === null) continue
    const range = ranges.get(line.hunk)
    if (range === undefined) ranges.set(line.hunk, [number, number])
    else range[1] = number
  }
  return [...ranges.values()]
}

/** A quoted line as stored and sent: its marker then its text, as in the patch. */
export const quoteLine = (line: PatchLine) => `${line.marker}${line.text}`

/**
 * Where `quote` (lines as {@link quoteLine} writes them) is in `lines`: the `side` numbers of its
 * first and last line at its first place, or undefined when the patch no longer holds it verbatim.
 */
export const findQuote = (
  lines: ReadonlyArray<PatchLine>,
  side: DiffSide,
  quote: ReadonlyArray<string>
): { readonly startLine: number; readonly endLine: number } | undefined => {
  if (quote.length === 0) return undefined
  for (let at = 0; at + quote.length <= lines.length; at++) {
    const window = lines.slice(at, at + quote.length)
    const first = window[0]
    const last = window[window.length - 1]
    if (first === undefined || last === undefined) continue
    if (!window.every((line, i) => quoteLine(line) === quote[i] && line.hunk === first.hunk)) continue
    const startLine = numberOn(first, side)
    const endLine = numberOn(last, side)
    if (startLine !== null && endLine !== null) return { startLine, endLine }
  }
  return undefined
}
