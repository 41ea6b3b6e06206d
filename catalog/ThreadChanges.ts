import { Schema } from "effect"
import { ChangedFile, Commit, MAX_FILE_PATCH } from "./domain/ChangeReport.js"
import * as Tool from "./Tool.js"

/** Files of a page at most; a page also ends once its patches pass {@link MAX_PAGE_PATCH}. */
export const MAX_CHANGES_PAGE = 100
export const DEFAULT_CHANGES_PAGE = 20
/** Characters of patch a page carries at most (a single file over it still makes a page of one). */
export const MAX_PAGE_PATCH = 4 * MAX_FILE_PATCH

export const ChangeReportSummary = Schema.Struct({
  reportId: Schema.String,
  threadId: Schema.String,
  baseCommit: Commit,
  headCommit: Commit,
  branch: Schema.NullOr(Schema.String),
  createdAt: Schema.String.annotations({ description: "ISO 8601 timestamp: when the CLI sent it" }),
  truncated: Schema.Boolean.annotations({
    description: "The CLI left files out or omitted patches because the report's caps were reached"
  }),
  totals: Schema.Struct({ files: Schema.Int, additions: Schema.Int, deletions: Schema.Int })
}).annotations({ identifier: "ChangeReportSummary" })
export type ChangeReportSummary = typeof ChangeReportSummary.Type

export const ChangesPageInput = Schema.Struct({
  threadId: Schema.String.pipe(Schema.minLength(1, { message: () => "must not be empty" })),
  reportId: Schema.optional(Schema.String.annotations({ description: "An earlier report of the thread; default the latest" })),
  path: Schema.optional(Schema.String.annotations({
    description: "Only this file (its path, or the path it was renamed from): one file's patch"
  })),
  limit: Schema.optionalWith(
    Schema.Int.pipe(Schema.between(1, MAX_CHANGES_PAGE, { message: () => `must be an integer from 1 to ${MAX_CHANGES_PAGE}` })),
    { default: () => DEFAULT_CHANGES_PAGE }
  ).annotations({ description: `Files per page; a page also ends once its patches pass ${MAX_PAGE_PATCH} characters` }),
  cursor: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }).annotations({
    description: "nextCursor of the previous page: it stays on that page's report"
  })
})

export const ChangesPage = Schema.Struct({
  report: Schema.NullOr(ChangeReportSummary).annotations({ description: "null when the thread has no report yet" }),
  files: Schema.Array(ChangedFile),
  nextCursor: Schema.NullOr(Schema.String)
})
export type ChangesPage = typeof ChangesPage.Type

export const GetThreadChanges = Tool.make("get_thread_changes", {
  title: "Get a thread's code changes",
  description:
    "The latest change report of a thread (or reportId's): what its working copy holds against the base it started from, as the CLI reported it after a turn — base and head commit, branch, totals, and the changed files with their patches, a page at a time. Lock files, generated and binary files are counted, not inlined. An unreadable thread is `Thread not found`.",
  input: ChangesPageInput,
  output: ChangesPage,
  annotations: { readOnly: true, destructive: false, idempotent: true }
})

export const RefreshThreadChanges = Tool.make("refresh_thread_changes", {
  title: "Ask a thread's machine for a fresh change report",
  description:
    "Asks the CLI running your thread to report its working copy now, without waiting for a turn (edits made by hand, or since the last report). " +
    "An online CLI reports within seconds; a thread in the middle of a turn reports when the turn ends; an offline machine reports when its CLI " +
    "connects. Read the result with get_thread_changes (a newer reportId). Fails when the thread has no report yet: its first turn makes one.",
  input: Schema.Struct({ threadId: Schema.String.pipe(Schema.minLength(1, { message: () => "must not be empty" })) }),
  output: Schema.Struct({
    threadId: Schema.String,
    requestedAt: Schema.String.annotations({ description: "ISO 8601 timestamp of the request" }),
    machineOnline: Schema.Boolean.annotations({ description: "The thread's CLI is connected now" })
  }),
  annotations: { readOnly: false, destructive: false, idempotent: true }
})
