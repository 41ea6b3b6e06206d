/*
 * Where a comment thread sits in an artifact's content: the snippet, its offsets (UTF-16 code
 * units, as JavaScript strings count) and a little context on each side, so the snippet can be
 * found again after the content changes. Pure functions; the services store and apply them.
 */

/** Characters of context kept on each side of a snippet. */
export const CONTEXT_LENGTH = 32

export interface Anchor {
  readonly text: string
  readonly start: number
  readonly end: number
  readonly prefix: string
  readonly suffix: string
  /** The snippet is no longer in the content; `start`/`end` are where it was last seen. */
  readonly lost: boolean
}

/**
 * Start offsets of the matches of `needle`, left to right: non-overlapping (as String#replaceAll
 * finds them) unless `overlapping`.
 */
export const occurrences = (content: string, needle: string, overlapping = false): ReadonlyArray<number> => {
  const found: Array<number> = []
  if (needle.length === 0) return found
  const step = overlapping ? 1 : needle.length
  for (let at = content.indexOf(needle); at !== -1; at = content.indexOf(needle, at + step)) found.push(at)
  return found
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff

/**
 * Whether a string holds half of a surrogate pair alone. Such a snippet could match inside a
 * character, and would not survive storage (UTF-8 has no encoding for it).
 */
export const hasLoneSurrogate = (text: string): boolean => /\p{Cs}/u.test(text)

/** The anchor of the snippet `text` found at `start` in `content`; its context never splits a character. */
export const anchorAt = (content: string, start: number, text: string): Anchor => {
  const end = start + text.length
  let from = Math.max(0, start - CONTEXT_LENGTH)
  if (from > 0 && isLowSurrogate(content.charCodeAt(from))) from++
  let to = Math.min(content.length, end + CONTEXT_LENGTH)
  if (to < content.length && isLowSurrogate(content.charCodeAt(to))) to--
  return { text, start, end, prefix: content.slice(from, start), suffix: content.slice(end, to), lost: false }
}

/** The anchor of the `occurrence`-th (1-based) match of `text`, or how many matches there are. */
export const locate = (
  content: string,
  text: string,
  occurrence: number
): { readonly _tag: "Found"; readonly anchor: Anchor } | { readonly _tag: "Missing"; readonly count: number } => {
  const found = occurrences(content, text)
  const start = found[occurrence - 1]
  return start === undefined ? { _tag: "Missing", count: found.length } : { _tag: "Found", anchor: anchorAt(content, start, text) }
}

/** The one region where two versions of a content differ: `[from, beforeEnd)` became `[from, afterEnd)`. */
export interface Change {
  readonly from: number
  readonly beforeEnd: number
  readonly afterEnd: number
}

export const changeBetween = (before: string, after: string): Change => {
  const shortest = Math.min(before.length, after.length)
  let from = 0
  while (from < shortest && before.charCodeAt(from) === after.charCodeAt(from)) from++
  let tail = 0
  while (tail < shortest - from && before.charCodeAt(before.length - 1 - tail) === after.charCodeAt(after.length - 1 - tail)) tail++
  return { from, beforeEnd: before.length - tail, afterEnd: after.length - tail }
}

const nearest = (candidates: ReadonlyArray<number>, target: number): number | undefined =>
  candidates.reduce<number | undefined>(
    (best, at) => best === undefined || Math.abs(at - target) < Math.abs(best - target) ? at : best,
    undefined
  )

/**
 * The anchor in the new content. A snippet the change did not touch keeps its text and only
 * shifts; otherwise the snippet with its full context is looked for, then the snippet alone,
 * each time the match nearest the old position winning. Found nowhere: the anchor is lost and
 * keeps its last position, from which a later change may find it again.
 */
export const relocate = (anchor: Anchor, content: string, change?: Change): Anchor => {
  const shift = change === undefined ? 0 : change.afterEnd - change.beforeEnd
  if (change !== undefined && !anchor.lost) {
    if (anchor.end <= change.from) return anchorAt(content, anchor.start, anchor.text)
    if (anchor.start >= change.beforeEnd) return anchorAt(content, anchor.start + shift, anchor.text)
  }
  // Inside or across the changed region the old position is only a hint; after it, it moved with the tail.
  const hint = change !== undefined && anchor.start >= change.beforeEnd ? anchor.start + shift : anchor.start
  const withContext = nearest(occurrences(content, anchor.prefix + anchor.text + anchor.suffix, true), hint - anchor.prefix.length)
  if (withContext !== undefined) return anchorAt(content, withContext + anchor.prefix.length, anchor.text)
  const alone = nearest(occurrences(content, anchor.text, true), hint)
  if (alone !== undefined) return anchorAt(content, alone, anchor.text)
  return { ...anchor, lost: true }
}

const isSpace = (char: string) => /\s/.test(char)

/**
 * What a page sends to comment on `[start, end)` of the content, as a person selected it: the
 * snippet without the whitespace at its ends, and which of its matches it is (1-based, counted as
 * `create_artifact_comment` counts them). Undefined when only whitespace is selected.
 */
export const snippetAt = (
  content: string,
  selectedStart: number,
  selectedEnd: number
): { readonly anchorText: string; readonly occurrence: number; readonly start: number } | undefined => {
  let start = Math.max(0, selectedStart)
  let end = Math.min(content.length, selectedEnd)
  while (start < end && isSpace(content.charAt(start))) start++
  while (end > start && isSpace(content.charAt(end - 1))) end--
  if (start >= end) return undefined
  const anchorText = content.slice(start, end)
  const found = occurrences(content, anchorText)
  const index = found.indexOf(start)
  // In an overlapping run ("aa" from 1 in "aaa") the selection is none of the counted matches: the nearest stands for it.
  const counted = index !== -1 ? start : nearest(found, start) ?? start
  return { anchorText, occurrence: found.indexOf(counted) + 1, start: counted }
}
