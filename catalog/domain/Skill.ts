import { Either } from "effect"
import { InvalidArgument, LimitExceeded, NotFound } from "./Errors.js"

export const SKILL_NAME_PATTERN = /^[a-z0-9-]{2,64}$/
export const SKILL_NAME_RULE = "2–64 characters of lowercase letters, digits and hyphens"

/** The one file every Skill has; it is addressed by this path in edits and can be neither renamed nor deleted. */
export const SKILL_MD = "SKILL.md"

export const MAX_SKILL_FILES = 50
export const MAX_SKILL_FILE_BYTES = 256 * 1024
export const MAX_SKILL_BYTES = 1024 * 1024
export const MAX_SKILL_PATH_LENGTH = 500

export const SKILL_PATH_RULE = "a relative POSIX path: no leading slash, no backslash, no empty, `.` or `..` segment"

/** Why `path` cannot address a Skill file, or undefined when it can. */
export const skillPathProblem = (path: string): string | undefined => {
  if (path === "") return "must not be empty"
  if (path.length > MAX_SKILL_PATH_LENGTH) return `must be at most ${MAX_SKILL_PATH_LENGTH} characters`
  if (path.startsWith("/")) return `must be relative (no leading slash): ${SKILL_PATH_RULE}`
  if (path.includes("\\")) return `must not contain a backslash: ${SKILL_PATH_RULE}`
  const segments = path.split("/")
  if (segments.some((segment) => segment === "")) return `must not have an empty segment (// or a trailing /): ${SKILL_PATH_RULE}`
  if (segments.some((segment) => segment === "..")) return `must not have a .. segment: ${SKILL_PATH_RULE}`
  if (segments.some((segment) => segment === ".")) return `must not have a . segment: ${SKILL_PATH_RULE}`
  return undefined
}

export type SkillEdit =
  | { readonly op: "write"; readonly path: string; readonly content: string }
  | {
    readonly op: "replace"
    readonly path: string
    readonly oldString: string
    readonly newString: string
    readonly replaceAll?: boolean | undefined
  }
  | { readonly op: "move"; readonly path: string; readonly newPath: string }
  | { readonly op: "delete"; readonly path: string }

/** A `replace` edit that could not be placed: reported as a result, not a tool error (SPEC Errors 3). */
export interface UnplacedReplace {
  readonly ok: false
  readonly index: number
  readonly code: "old_string_not_found" | "multiple_matches"
  readonly message: string
  readonly occurrences: number
}

/** Every file of a Skill, SKILL.md included, by path. */
export type SkillFiles = ReadonlyMap<string, string>

type EditFailure = UnplacedReplace | InvalidArgument | NotFound | LimitExceeded

const occurrencesOf = (text: string, search: string): number => text.split(search).length - 1

// TextEncoder, not Node's Buffer: the contract also runs in the browser (web/).
const encoder = new TextEncoder()
const utf8Bytes = (text: string): number => encoder.encode(text).length

const checkPath = (field: string, path: string): Either.Either<string, InvalidArgument> => {
  const problem = skillPathProblem(path)
  return problem === undefined ? Either.right(path) : Either.left(new InvalidArgument({ message: `${field}: ${problem}` }))
}

const applyOne = (
  files: Map<string, string>,
  edit: SkillEdit,
  index: number
): Either.Either<void, EditFailure> =>
  Either.gen(function*() {
    const at = `edits[${index}]`
    const path = yield* checkPath(`${at}.path`, edit.path)
    const current = files.get(path)
    if (edit.op === "write") {
      files.set(path, edit.content)
      return
    }
    if (current === undefined) {
      return yield* Either.left(new NotFound({ message: `${at}.path: the Skill has no file ${path}` }))
    }
    switch (edit.op) {
      case "replace": {
        if (edit.oldString === "") {
          return yield* Either.left(new InvalidArgument({ message: `${at}.oldString: must not be empty` }))
        }
        const occurrences = occurrencesOf(current, edit.oldString)
        if (occurrences === 0) {
          return yield* Either.left<UnplacedReplace>({
            ok: false,
            index,
            code: "old_string_not_found",
            message: `${at}: oldString was not found in ${path} (whitespace, newlines and case must match exactly)`,
            occurrences
          })
        }
        if (occurrences > 1 && edit.replaceAll !== true) {
          return yield* Either.left<UnplacedReplace>({
            ok: false,
            index,
            code: "multiple_matches",
            message: `${at}: oldString occurs ${occurrences} times in ${path}; add context to make it unique or pass replaceAll: true`,
            occurrences
          })
        }
        files.set(path, current.split(edit.oldString).join(edit.newString))
        return
      }
      case "move": {
        const newPath = yield* checkPath(`${at}.newPath`, edit.newPath)
        if (path === SKILL_MD) {
          return yield* Either.left(new InvalidArgument({ message: `${at}.path: ${SKILL_MD} cannot be renamed` }))
        }
        if (files.has(newPath)) {
          return yield* Either.left(new InvalidArgument({ message: `${at}.newPath: ${newPath} is already used by another file` }))
        }
        files.delete(path)
        files.set(newPath, current)
        return
      }
      case "delete": {
        if (path === SKILL_MD) {
          return yield* Either.left(new InvalidArgument({ message: `${at}.path: ${SKILL_MD} cannot be deleted` }))
        }
        files.delete(path)
        return
      }
    }
  })

/** SKILL.md as stored: verbatim, but never blank. */
export const checkSkillMd = (field: string, content: string): Either.Either<string, InvalidArgument> =>
  content.trim() === ""
    ? Either.left(new InvalidArgument({ message: `${field}: ${SKILL_MD} must not be blank` }))
    : Either.right(content)

/** The caps of SPEC's Limits, checked against a whole file set. */
export const checkSkillCaps = (files: SkillFiles): Either.Either<SkillFiles, LimitExceeded | InvalidArgument> =>
  Either.gen(function*() {
    yield* checkSkillMd(SKILL_MD, files.get(SKILL_MD) ?? "")
    if (files.size > MAX_SKILL_FILES) {
      return yield* Either.left(
        new LimitExceeded({
          message: `files: a Skill holds at most ${MAX_SKILL_FILES} files, ${SKILL_MD} included; this save would leave ${files.size}`
        })
      )
    }
    let total = 0
    for (const [path, content] of files) {
      const bytes = utf8Bytes(content)
      if (bytes > MAX_SKILL_FILE_BYTES) {
        return yield* Either.left(
          new LimitExceeded({
            message: `${path}: a Skill file holds at most ${MAX_SKILL_FILE_BYTES} bytes (256 KB); it would hold ${bytes}`
          })
        )
      }
      total += bytes
    }
    if (total > MAX_SKILL_BYTES) {
      return yield* Either.left(
        new LimitExceeded({
          message: `files: a Skill holds at most ${MAX_SKILL_BYTES} bytes (1 MB) over all its files; this save would leave ${total}`
        })
      )
    }
    return files
  })

/**
 * One save's file changes: `content` (a new SKILL.md) first, then each edit in order, each
 * seeing the results of the ones before; then the caps, on the result. Nothing is written
 * here: the caller stores the result only when every step succeeded.
 */
export const applySkillEdits = (
  stored: SkillFiles,
  content: string | undefined,
  edits: ReadonlyArray<SkillEdit>
): Either.Either<SkillFiles, EditFailure> =>
  Either.gen(function*() {
    const files = new Map(stored)
    if (content !== undefined) files.set(SKILL_MD, yield* checkSkillMd("content", content))
    for (const [index, edit] of edits.entries()) yield* applyOne(files, edit, index)
    return yield* checkSkillCaps(files)
  })

export const sameFiles = (a: SkillFiles, b: SkillFiles): boolean =>
  a.size === b.size && [...a].every(([path, content]) => b.get(path) === content)
