import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Encoding, Either, Option, Schema } from "effect"
import type { Principal } from "../platform/auth/Principal.js"
import { InvalidArgument, NotFound } from "../../catalog/domain/Errors.js"
import { ChangedFile } from "../../catalog/domain/ChangeReport.js"
import { type ChangeReportSummary, type ChangesPage, MAX_PAGE_PATCH } from "../../catalog/ThreadChanges.js"
import { threadNotFound, threadReadableBy } from "./ThreadVisibility.js"

export interface ChangesPageRequest {
  readonly threadId: string
  readonly reportId?: string | undefined
  readonly path?: string | undefined
  readonly limit: number
  readonly cursor: string | null
}

const ReportRow = Schema.Struct({
  id: Schema.String,
  threadId: Schema.String,
  createdAt: Schema.DateFromSelf,
  baseCommit: Schema.String,
  headCommit: Schema.String,
  branch: Schema.NullOr(Schema.String),
  fileCount: Schema.Number,
  additions: Schema.Number,
  deletions: Schema.Number,
  truncated: Schema.Boolean
})

const FileRow = Schema.Struct({ file: Schema.parseJson(ChangedFile), ord: Schema.Number })

/**
 * A page cursor names its report, so paging on stays on the report it started with when a newer
 * one arrives meanwhile; `o` is the position of the page's last file.
 */
const Cursor = Schema.parseJson(Schema.Struct({ r: Schema.String, o: Schema.Int.pipe(Schema.nonNegative()) }))
const decodeCursor = Schema.decodeUnknownEither(Cursor)
const encodeCursor = (reportId: string, ord: number) => Encoding.encodeBase64Url(JSON.stringify({ r: reportId, o: ord }))

const badCursor = new InvalidArgument({ message: "cursor: must be a nextCursor that get_thread_changes returned" })

const parseCursor = (cursor: string) =>
  Either.getOrUndefined(
    Encoding.decodeBase64UrlString(cursor).pipe(Either.flatMap((text) => Either.mapLeft(decodeCursor(text), () => badCursor)))
  )

/** A thread's change reports as its readers see them: one report's files, a page at a time. */
export class ChangeReportPages extends Effect.Service<ChangeReportPages>()("trellis/ChangeReportPages", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const reportColumns = sql`
      r.id, r.thread_id AS "threadId", r.created_at AS "createdAt", r.base_commit AS "baseCommit",
      r.head_commit AS "headCommit", r.branch, r.file_count AS "fileCount", r.additions, r.deletions, r.truncated`

    const readable = (principal: Principal, threadId: string) =>
      sql`SELECT t.id FROM threads t WHERE t.id = ${threadId} AND t.deleted_at IS NULL AND ${threadReadableBy(sql, principal)}`.pipe(
        Effect.orDie,
        Effect.flatMap((rows) => (rows.length === 0 ? threadNotFound : Effect.void))
      )

    const findReport = SqlSchema.findOne({
      Request: Schema.Struct({ threadId: Schema.String, reportId: Schema.NullOr(Schema.String) }),
      Result: ReportRow,
      execute: ({ reportId, threadId }) =>
        reportId === null
          ? sql`SELECT ${reportColumns} FROM thread_change_reports r WHERE r.thread_id = ${threadId}
              ORDER BY r.created_at DESC, r.id DESC LIMIT 1`
          : sql`SELECT ${reportColumns} FROM thread_change_reports r WHERE r.thread_id = ${threadId} AND r.id = ${reportId}`
    })

    const fileRows = SqlSchema.findAll({
      Request: Schema.Struct({ reportId: Schema.String, after: Schema.Number, path: Schema.NullOr(Schema.String), limit: Schema.Number }),
      Result: FileRow,
      execute: ({ after, limit, path, reportId }) =>
        sql`
          SELECT f.value::text AS file, f.ord::float8 AS ord
          FROM thread_change_reports r CROSS JOIN LATERAL jsonb_array_elements(r.files) WITH ORDINALITY AS f(value, ord)
          WHERE r.id = ${reportId} AND f.ord > ${after}
            AND ${path === null ? sql`true` : sql`(f.value->>'path' = ${path} OR f.value->>'oldPath' = ${path})`}
          ORDER BY f.ord
          LIMIT ${limit}`
    })

    const page = Effect.fn("ChangeReportPages.page")(function*(principal: Principal, request: ChangesPageRequest) {
      yield* readable(principal, request.threadId)
      const cursor = request.cursor === null ? undefined : parseCursor(request.cursor)
      if (request.cursor !== null && cursor === undefined) return yield* badCursor
      if (cursor !== undefined && request.reportId !== undefined && cursor.r !== request.reportId) {
        return yield* new InvalidArgument({ message: "cursor: belongs to another report than reportId" })
      }
      const reportId = cursor?.r ?? request.reportId ?? null
      const found = yield* findReport({ threadId: request.threadId, reportId }).pipe(Effect.orDie)
      if (Option.isNone(found)) {
        if (reportId === null) return { report: null, files: [], nextCursor: null } satisfies ChangesPage
        return yield* new NotFound({ message: `Change report ${reportId} not found on thread ${request.threadId}` })
      }
      const row = found.value
      const rows = yield* fileRows({ reportId: row.id, after: cursor?.o ?? 0, path: request.path ?? null, limit: request.limit + 1 }).pipe(
        Effect.orDie
      )
      // A page ends at `limit` files or once its patches pass the page's budget, whichever is first.
      const taken: Array<typeof FileRow.Type> = []
      let patchLength = 0
      for (const fileRow of rows.slice(0, request.limit)) {
        const length = fileRow.file.patch?.length ?? 0
        if (taken.length > 0 && patchLength + length > MAX_PAGE_PATCH) break
        taken.push(fileRow)
        patchLength += length
      }
      const last = taken[taken.length - 1]
      const more = taken.length < rows.length
      const report: ChangeReportSummary = {
        reportId: row.id,
        threadId: row.threadId,
        baseCommit: row.baseCommit,
        headCommit: row.headCommit,
        branch: row.branch,
        createdAt: row.createdAt.toISOString(),
        truncated: row.truncated,
        totals: { files: row.fileCount, additions: row.additions, deletions: row.deletions }
      }
      return {
        report,
        files: taken.map((fileRow) => fileRow.file),
        nextCursor: more && last !== undefined ? encodeCursor(row.id, last.ord) : null
      } satisfies ChangesPage
    })

    return { page } as const
  })
}) {}
