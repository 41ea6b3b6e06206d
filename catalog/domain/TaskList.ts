import { Either, Schema } from "effect"
import { InvalidArgument } from "./Errors.js"

/** The List palette. Labels use a superset of it (see Label.ts). */
export const ListColor = Schema.Literal("gray", "red", "orange", "yellow", "green", "teal", "blue", "indigo", "purple", "pink")
export type ListColor = typeof ListColor.Type

export const ViewMode = Schema.Literal("list", "board")
export type ViewMode = typeof ViewMode.Type

/** The task field a board view groups its columns by. */
export const BoardGroupBy = Schema.Literal("status", "priority", "assignee", "label")
export type BoardGroupBy = typeof BoardGroupBy.Type

/** Active Lists per project, not counting the system Backlog. */
export const MAX_ACTIVE_LISTS = 20
export const MAX_LIST_NAME_LENGTH = 80
export const MAX_LIST_REF_LENGTH = 20
export const DEFAULT_BOARD_GROUP_BY: BoardGroupBy = "status"

export const BACKLOG_REF = "BACKLOG"
export const BACKLOG_NAME = "Backlog"
/** Refs no user List may take: the system Backlog's, and the pseudo-List of archived tasks. */
export const RESERVED_LIST_REFS: ReadonlyArray<string> = [BACKLOG_REF, "ARCHIVED"]

const REF_PATTERN = /^[A-Z][A-Z0-9_-]{0,19}$/
export const LIST_REF_RULE = "1–20 letters, digits, _ or -, starting with a letter"

/** A List ref as given by a caller (any case), uppercased and checked. */
export const validateListRef = (raw: string): Either.Either<string, InvalidArgument> => {
  const ref = raw.trim().toUpperCase()
  if (!REF_PATTERN.test(ref)) return Either.left(new InvalidArgument({ message: `ref: "${raw}" must be ${LIST_REF_RULE}` }))
  if (RESERVED_LIST_REFS.includes(ref)) {
    return Either.left(
      new InvalidArgument({
        message: `ref: ${ref} is reserved for the system (reserved refs: ${RESERVED_LIST_REFS.join(", ")})`
      })
    )
  }
  return Either.right(ref)
}

const stem = (name: string): string => {
  const letters = name
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, "-")
    .replace(/^[^A-Z]+/, "")
  return letters === "" ? "LIST" : letters
}

const fit = (stem: string, length: number) => stem.slice(0, length).replace(/-+$/, "")

/**
 * The ref a List named `name` gets when none is given: the name uppercased, accents dropped,
 * other characters turned into `-`, leading non-letters dropped (`LIST` if nothing is left),
 * cut to 20 characters, and made unique with `-2`, `-3`… against `taken` and the reserved refs.
 */
export const deriveListRef = (name: string, taken: ReadonlyArray<string>): string => {
  const unavailable = new Set([...taken, ...RESERVED_LIST_REFS])
  const base = stem(name)
  const first = fit(base, MAX_LIST_REF_LENGTH)
  if (!unavailable.has(first)) return first
  for (let n = 2;; n++) {
    const suffix = `-${n}`
    const candidate = fit(base, MAX_LIST_REF_LENGTH - suffix.length) + suffix
    if (!unavailable.has(candidate)) return candidate
  }
}
