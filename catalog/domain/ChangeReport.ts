import { Schema } from "effect"
import { hasLoneSurrogate } from "./Anchor.js"

/**
 * A thread's working copy as the CLI reports it after a turn (issue 31 §1): base and head commit,
 * branch, and each changed file with its counts and patch. The caps (docs/decisions.md, "Change
 * reports") are in the Schemas, so the CLI's client cannot send what the backend refuses and the
 * backend refuses it by the field's name.
 */

/** One file's patch, in characters: a bigger one is sent without it (`summarized: "too_large"`). */
export const MAX_FILE_PATCH = 256 * 1024
/** Every patch of a report together, in characters; the request body's 4 MiB must hold them escaped. */
export const MAX_TOTAL_PATCH = 2 * 1024 * 1024
/** Files listed in one report; past it the report says `truncated`. */
export const MAX_REPORT_FILES = 5000
export const MAX_PATH_LENGTH = 4096
/** Reports kept per thread: the newest ones, older ones are removed as new ones arrive. */
export const KEPT_REPORTS_PER_THREAD = 20

export const FileStatus = Schema.Literal("added", "modified", "deleted", "renamed", "copied", "typechange")
export type FileStatus = typeof FileStatus.Type

/**
 * Why a file's patch is not inlined: a lock file or a generated file (counted, not shown), a
 * patch over {@link MAX_FILE_PATCH}, a binary file, or the report's total already spent.
 */
export const Summarized = Schema.Literal("lockfile", "generated", "too_large", "binary", "over_budget")
export type Summarized = typeof Summarized.Type

/** Text PostgreSQL's jsonb stores as given: no NUL character, no unpaired surrogate. */
const StorableText = Schema.String.pipe(
  Schema.filter((text) => !text.includes("\u0000"), { message: () => "must not hold the NUL character" }),
  Schema.filter((text) => !hasLoneSurrogate(text), { message: () => "must not split a character (an unpaired UTF-16 surrogate)" })
)

const FilePath = StorableText.pipe(
  Schema.minLength(1, { message: () => "must not be empty" }),
  Schema.maxLength(MAX_PATH_LENGTH, { message: () => `must be at most ${MAX_PATH_LENGTH} characters` })
).annotations({ description: "Relative to the working copy's top directory, as git names it (POSIX separators)" })

const Count = Schema.Int.pipe(Schema.nonNegative({ message: () => "must be a non-negative integer" }))

export const Commit = Schema.String.pipe(
  Schema.pattern(/^[0-9a-f]{40}([0-9a-f]{24})?$/, { message: () => "must be a full commit hash (40 or 64 hex digits)" })
)

export const ChangedFile = Schema.Struct({
  path: FilePath,
  oldPath: Schema.optionalWith(FilePath, { exact: true }).annotations({ description: "Where a renamed or copied file came from" }),
  status: FileStatus,
  additions: Count,
  deletions: Count,
  binary: Schema.Boolean,
  patch: Schema.NullOr(
    StorableText.pipe(Schema.maxLength(MAX_FILE_PATCH, { message: () => `must be at most ${MAX_FILE_PATCH} characters` }))
  ).annotations({ description: "The file's unified diff against the base; null when summarized" }),
  summarized: Schema.optionalWith(Summarized, { exact: true }).annotations({ description: "Why patch is null" })
}).annotations({ identifier: "ChangedFile" })
export type ChangedFile = typeof ChangedFile.Type

export const totalPatchLength = (files: ReadonlyArray<{ readonly patch: string | null }>) =>
  files.reduce((sum, file) => sum + (file.patch?.length ?? 0), 0)

/** What the working copy holds against its base: the report's body, without the claim it is sent under. */
export const ChangeReportBody = Schema.Struct({
  baseCommit: Commit.annotations({ description: "The merge-base with the branch the thread started from" }),
  headCommit: Commit,
  branch: Schema.NullOr(Schema.String.pipe(Schema.maxLength(255))).annotations({ description: "null when HEAD is detached" }),
  files: Schema.Array(ChangedFile).pipe(
    Schema.maxItems(MAX_REPORT_FILES, { message: () => `must hold at most ${MAX_REPORT_FILES} files` }),
    Schema.filter((files) => totalPatchLength(files) <= MAX_TOTAL_PATCH || `patches must total at most ${MAX_TOTAL_PATCH} characters`)
  ),
  truncated: Schema.Boolean.annotations({
    description: "Files were left out (more than the cap) or patches omitted because the report's total was spent"
  })
})
export type ChangeReportBody = typeof ChangeReportBody.Type
