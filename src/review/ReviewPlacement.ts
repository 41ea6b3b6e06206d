import type { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { findQuote, patchLines } from "../../catalog/domain/PatchLines.js"
import type { ReviewComment } from "../../catalog/domain/ReviewComment.js"
import { ReviewCommentId } from "../../catalog/domain/Ids.js"

/** A stored review comment with its author's name. */
export const CommentRow = Schema.Struct({
  id: ReviewCommentId,
  threadId: Schema.String,
  reportId: Schema.String,
  path: Schema.String,
  side: Schema.Literal("additions", "deletions"),
  startLine: Schema.Number,
  endLine: Schema.Number,
  quote: Schema.parseJson(Schema.Array(Schema.String)),
  body: Schema.String,
  status: Schema.Literal("draft", "open", "resolved"),
  authorName: Schema.String,
  messageId: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
  sentAt: Schema.NullOr(Schema.DateFromSelf),
  resolvedAt: Schema.NullOr(Schema.DateFromSelf),
  resolution: Schema.NullOr(Schema.String)
})
export type CommentRow = typeof CommentRow.Type

export const commentColumns = (sql: SqlClient.SqlClient) =>
  sql`
    c.id, c.thread_id AS "threadId", c.report_id AS "reportId", c.path, c.side, c.start_line AS "startLine",
    c.end_line AS "endLine", c.quote::text AS quote, c.body, c.status, u.name AS "authorName", c.message_id AS "messageId",
    c.created_at AS "createdAt", c.updated_at AS "updatedAt", c.sent_at AS "sentAt", c.resolved_at AS "resolvedAt", c.resolution`

const LatestFile = Schema.Struct({ reportId: Schema.String, path: Schema.String, patch: Schema.NullOr(Schema.String) })
const decodeLatest = Schema.decodeUnknown(Schema.Array(LatestFile))

const iso = (date: Date | null) => date === null ? null : date.toISOString()

/**
 * Comments as readers see them, placed on the thread's latest report: where their quoted lines are
 * in that report's diff of the file, and "maybe addressed" when the comment was sent and a newer
 * report than its own no longer holds those lines verbatim (docs/decisions.md, "Review comments").
 */
export const placeComments = (sql: SqlClient.SqlClient, threadId: string, rows: ReadonlyArray<CommentRow>) =>
  Effect.gen(function*() {
    if (rows.length === 0) return []
    const paths = [...new Set(rows.map((row) => row.path))]
    const latest = yield* sql`
      WITH latest AS (
        SELECT r.id, r.files FROM thread_change_reports r WHERE r.thread_id = ${threadId}
        ORDER BY r.created_at DESC, r.id DESC LIMIT 1)
      SELECT l.id AS "reportId", f.value->>'path' AS path, f.value->>'patch' AS patch
      FROM latest l CROSS JOIN LATERAL jsonb_array_elements(l.files) AS f(value)
      WHERE f.value->>'path' IN ${sql.in(paths)}
      UNION ALL SELECT l.id, '', NULL FROM latest l`.pipe(Effect.flatMap(decodeLatest), Effect.orDie)
    const latestReportId = Option.fromNullable(latest[0]?.reportId)
    const lines = new Map(latest.filter((file) => file.path !== "").map((file) => [file.path, patchLines(file.patch ?? "")]))
    return rows.map((row): ReviewComment => {
      const placed = Option.flatMap(latestReportId, (reportId) => {
        const fileLines = lines.get(row.path)
        const found = fileLines === undefined ? undefined : findQuote(fileLines, row.side, row.quote)
        return found === undefined ? Option.none() : Option.some({ reportId, ...found })
      })
      const newer = Option.exists(latestReportId, (reportId) => reportId !== row.reportId)
      return {
        commentId: row.id,
        threadId: row.threadId,
        reportId: row.reportId,
        path: row.path,
        side: row.side,
        startLine: row.startLine,
        endLine: row.endLine,
        quote: row.quote,
        body: row.body,
        status: row.status,
        authorName: row.authorName,
        createdAt: row.createdAt.toISOString(),
        updatedAt: row.updatedAt.toISOString(),
        sentAt: iso(row.sentAt),
        messageId: row.messageId,
        resolvedAt: iso(row.resolvedAt),
        resolution: row.resolution,
        placement: Option.getOrNull(placed),
        maybeAddressed: row.status !== "draft" && newer && Option.isNone(placed)
      }
    })
  })
