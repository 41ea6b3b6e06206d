import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { Conflict, InvalidArgument, LimitExceeded, NotFound } from "../../catalog/domain/Errors.js"
import { ReviewCommentId } from "../../catalog/domain/Ids.js"
import { patchLines, quoteLine, quoteRange, shownRanges } from "../../catalog/domain/PatchLines.js"
import { MAX_REVIEW_DRAFTS, MAX_REVIEW_RANGE, type ReviewStatus } from "../../catalog/domain/ReviewComment.js"
import type { ResolveReviewComment, SaveReviewComment } from "../../catalog/ReviewComments.js"
import type * as Tool from "../../catalog/Tool.js"
import type { Principal } from "../platform/auth/Principal.js"
import { LiveEvents } from "../platform/notifications/LiveEvents.js"
import { ThreadMessages } from "../threads/ThreadMessages.js"
import { ThreadRows } from "../threads/ThreadRows.js"
import { threadNotFound } from "../threads/ThreadVisibility.js"
import { reviewMessage } from "./ReviewMessage.js"
import { CommentRow, commentColumns, placeComments } from "./ReviewPlacement.js"

type SaveInput = Tool.InputOf<typeof SaveReviewComment>
type ResolveInput = Tool.InputOf<typeof ResolveReviewComment>

const ReportFile = Schema.Struct({ reportId: Schema.String, patch: Schema.NullOr(Schema.String), summarized: Schema.NullOr(Schema.String) })

const commentNotFound = (commentId: string) => new NotFound({ message: `commentId: review comment ${commentId} not found` })

/**
 * Review comments on a thread's change reports (issue 31 §2): drafts saved as they are written,
 * sent to the thread as one message, then listed and resolved, by the reviewer or by the agent.
 * Writes need the caller's own thread, as send_thread_message does; reads the thread's readers.
 */
export class ReviewComments extends Effect.Service<ReviewComments>()("trellis/ReviewComments", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const threads = yield* ThreadRows
    const messages = yield* ThreadMessages
    const live = yield* LiveEvents

    const select = (where: ReturnType<typeof sql.and>) =>
      sql`SELECT ${commentColumns(sql)} FROM review_comments c JOIN users u ON u.id = c.author_id
        WHERE ${where} ORDER BY c.created_at, c.id`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Array(CommentRow))),
        Effect.orDie
      )

    const one = (commentId: string) => Effect.map(select(sql.and([sql`c.id = ${commentId}`])), ([row]): CommentRow | undefined => row)

    /** A thread of the caller's own that can hold a conversation: groups and workflow runs have no changes to review. */
    const ownThread = (principal: Principal, threadId: string, field: string) =>
      Effect.gen(function*() {
        const thread = yield* threads.findOwn(principal, threadId, field)
        if (thread.kind !== "thread") {
          return yield* new InvalidArgument({ message: `${field}: ${threadId} is a thread group or workflow run, which has no changes` })
        }
        return thread
      })

    /** A comment on a thread the caller owns. */
    const ownComment = (principal: Principal, commentId: string) =>
      Effect.gen(function*() {
        const row = yield* one(commentId)
        if (row === undefined) return yield* commentNotFound(commentId)
        const thread = yield* threads.findOwn(principal, row.threadId, "commentId").pipe(
          Effect.catchTag("NotFound", () => commentNotFound(commentId))
        )
        return { row, thread }
      })

    const placed = (threadId: string, rows: ReadonlyArray<CommentRow>) => placeComments(sql, threadId, rows)

    const list = Effect.fn("ReviewComments.list")(function*(
      principal: Principal,
      input: { readonly threadId: string; readonly status?: ReviewStatus | undefined; readonly includeDrafts: boolean }
    ) {
      const thread = yield* threads.findReadable(principal, input.threadId)
      if (thread === undefined) return yield* threadNotFound
      const drafts = sql`(c.status = 'draft' AND c.author_id = ${principal.userId})`
      const visible = input.status === "draft"
        ? drafts
        : input.status !== undefined
        ? sql`c.status = ${input.status}`
        : input.includeDrafts
        ? sql`(c.status <> 'draft' OR ${drafts})`
        : sql`c.status <> 'draft'`
      const rows = yield* select(sql.and([sql`c.thread_id = ${input.threadId}`, visible]))
      return yield* placed(input.threadId, rows)
    })

    const reportFile = SqlSchema.findOne({
      Request: Schema.Struct({ threadId: Schema.String, reportId: Schema.NullOr(Schema.String), path: Schema.String }),
      Result: ReportFile,
      execute: ({ path, reportId, threadId }) =>
        sql`
          WITH report AS (
            SELECT r.id, r.files FROM thread_change_reports r WHERE r.thread_id = ${threadId}
              AND ${reportId === null ? sql`true` : sql`r.id = ${reportId}`}
            ORDER BY r.created_at DESC, r.id DESC LIMIT 1)
          SELECT report.id AS "reportId", f.value->>'patch' AS patch, f.value->>'summarized' AS summarized
          FROM report LEFT JOIN LATERAL (
            SELECT value FROM jsonb_array_elements(report.files) AS e(value) WHERE e.value->>'path' = ${path} LIMIT 1
          ) f ON true`
    })

    const fileFound = SqlSchema.findOne({
      Request: Schema.Struct({ reportId: Schema.String, path: Schema.String }),
      Result: Schema.Struct({ found: Schema.Boolean }),
      execute: ({ path, reportId }) =>
        sql`SELECT EXISTS (SELECT 1 FROM thread_change_reports r CROSS JOIN LATERAL jsonb_array_elements(r.files) AS e(value)
          WHERE r.id = ${reportId} AND e.value->>'path' = ${path}) AS found`
    })

    /** The quoted lines of a new draft: the report, the file and the range must all be there. */
    const quoteOf = (input: SaveInput & { readonly path: string; readonly startLine: number; readonly endLine: number }) =>
      Effect.gen(function*() {
        const found = yield* reportFile({ threadId: input.threadId, reportId: input.reportId ?? null, path: input.path }).pipe(Effect.orDie)
        if (Option.isNone(found)) {
          return yield* new NotFound({
            message: input.reportId === undefined
              ? `reportId: thread ${input.threadId} has no change report to comment on`
              : `reportId: change report ${input.reportId} not found on thread ${input.threadId}`
          })
        }
        const { patch, reportId, summarized } = found.value
        if (patch === null) {
          const inReport = yield* fileFound({ reportId, path: input.path }).pipe(Effect.orDie)
          if (Option.exists(inReport, (row) => !row.found)) {
            return yield* new NotFound({ message: `path: ${input.path} is not in change report ${reportId}` })
          }
          return yield* new InvalidArgument({
            message: `path: change report ${reportId} holds no diff of ${input.path} (${
              summarized ?? "binary"
            }): there are no lines to comment on`
          })
        }
        const lines = patchLines(patch)
        const quote = quoteRange(lines, input.side, input.startLine, input.endLine)
        if (quote === undefined) {
          const shown = shownRanges(lines, input.side).map(([from, to]) => `${from}-${to}`).join(", ")
          return yield* new InvalidArgument({
            message:
              `startLine: lines ${input.startLine}-${input.endLine} on the ${input.side} side are not in one hunk of ${input.path}'s diff ` +
              `(its hunks show ${shown === "" ? "no lines on that side" : `lines ${shown}`})`
          })
        }
        return { reportId, quote: quote.map(quoteLine) }
      })

    const save = Effect.fn("ReviewComments.save")(function*(principal: Principal, input: SaveInput) {
      const thread = yield* ownThread(principal, input.threadId, "threadId")
      if (input.commentId !== undefined) {
        const commentId = input.commentId
        const updated = yield* sql`
          UPDATE review_comments SET body = ${input.body}, updated_at = now()
          WHERE id = ${commentId} AND thread_id = ${thread.id} AND author_id = ${principal.userId} AND status = 'draft'
          RETURNING id`.pipe(Effect.orDie)
        if (updated.length === 0) return yield* notADraft(commentId, thread.id)
        return yield* placedOneOrDie(commentId)
      }
      if (input.path === undefined) return yield* new InvalidArgument({ message: "path: is required to start a draft (without commentId)" })
      if (input.startLine === undefined) {
        return yield* new InvalidArgument({ message: "startLine: is required to start a draft (without commentId)" })
      }
      const endLine = input.endLine ?? input.startLine
      if (endLine < input.startLine) {
        return yield* new InvalidArgument({ message: `endLine: must be at least startLine (${input.startLine})` })
      }
      if (endLine - input.startLine + 1 > MAX_REVIEW_RANGE) {
        return yield* new InvalidArgument({ message: `endLine: a comment spans at most ${MAX_REVIEW_RANGE} lines` })
      }
      const { quote, reportId } = yield* quoteOf({ ...input, path: input.path, startLine: input.startLine, endLine })
      const commentId = ReviewCommentId.generate()
      // The cap is checked in the insert itself: a draft over it is never written.
      const inserted = yield* sql`
        INSERT INTO review_comments (id, thread_id, author_id, report_id, path, side, start_line, end_line, quote, body, status)
        SELECT ${commentId}, ${thread.id}, ${principal.userId}, ${reportId}, ${input.path}, ${input.side}, ${input.startLine},
          ${endLine}, ${JSON.stringify(quote)}::jsonb, ${input.body}, 'draft'
        WHERE (SELECT count(*) FROM review_comments
          WHERE thread_id = ${thread.id} AND author_id = ${principal.userId} AND status = 'draft') < ${MAX_REVIEW_DRAFTS}
        RETURNING id`.pipe(Effect.orDie)
      if (inserted.length === 0) {
        return yield* new LimitExceeded({
          message:
            `threadId: you hold ${MAX_REVIEW_DRAFTS} draft review comments on thread ${thread.id}, the most there can be; send or discard some first`
        })
      }
      return yield* placedOneOrDie(commentId)
    })

    /** Why a draft write touched nothing: the comment is not the caller's draft on this thread. */
    const notADraft = (commentId: string, threadId: string) =>
      Effect.gen(function*() {
        const row = yield* one(commentId)
        if (row !== undefined && row.threadId === threadId && row.status !== "draft") {
          return yield* new Conflict({ message: `commentId: review comment ${commentId} was sent; only a draft changes` })
        }
        return yield* commentNotFound(commentId)
      })

    const placedOneOrDie = (commentId: string) =>
      Effect.flatMap(one(commentId), (row) =>
        row === undefined
          ? Effect.dieMessage(`review comment ${commentId} vanished`)
          : Effect.flatMap(
            placed(row.threadId, [row]),
            ([comment]) => comment === undefined ? Effect.dieMessage(`review comment ${commentId} vanished`) : Effect.succeed(comment)
          ))

    const discard = Effect.fn("ReviewComments.discard")(function*(principal: Principal, commentId: string) {
      const { row } = yield* ownComment(principal, commentId)
      const deleted = yield* sql`
        DELETE FROM review_comments WHERE id = ${commentId} AND author_id = ${principal.userId} AND status = 'draft' RETURNING id`.pipe(
        Effect.orDie
      )
      if (deleted.length === 0) return yield* notADraft(commentId, row.threadId)
      return { commentId: row.id }
    })

    const send = Effect.fn("ReviewComments.send")(function*(principal: Principal, threadId: string) {
      const thread = yield* ownThread(principal, threadId, "threadId")
      const sent = yield* sql.withTransaction(Effect.gen(function*() {
        const drafts = yield* select(sql.and([
          sql`c.thread_id = ${thread.id}`,
          sql`c.author_id = ${principal.userId}`,
          sql`c.status = 'draft'`
        ]))
        if (drafts.length === 0) {
          return yield* new Conflict({ message: `threadId: you have no draft review comments on thread ${thread.id} to send` })
        }
        const content = reviewMessage(drafts)
        // In the same transaction: a send that fails leaves every draft a draft.
        const message = yield* messages.send(principal, { threadId: thread.id, content, runtimeCommand: false })
        const marked = yield* sql`
          UPDATE review_comments SET status = 'open', sent_at = now(), updated_at = now(), message_id = ${message.messageId}
          WHERE id IN ${sql.in(drafts.map((draft) => draft.id))} AND status = 'draft' RETURNING id`
        // A send of the same drafts that committed first: this one rolls back, its message with it.
        if (marked.length !== drafts.length) {
          return yield* new Conflict({ message: `threadId: your review of thread ${thread.id} is being sent already` })
        }
        return { messageId: message.messageId, ids: drafts.map((draft) => draft.id) }
      })).pipe(Effect.catchTag("SqlError", Effect.die))
      // The message's own notice went out inside the transaction: tell readers again now that it is committed.
      yield* live.threadChanged(thread.id, thread.profileId)
      const rows = yield* select(sql.and([sql`c.id IN ${sql.in(sent.ids)}`]))
      return { messageId: sent.messageId, threadId: thread.id, comments: yield* placed(thread.id, rows) }
    })

    const resolve = Effect.fn("ReviewComments.resolve")(function*(principal: Principal, input: ResolveInput) {
      const { row, thread } = yield* ownComment(principal, input.commentId)
      if (row.status === "draft") {
        return yield* new Conflict({ message: `commentId: review comment ${row.id} is a draft; send the review before resolving it` })
      }
      yield* sql`
        UPDATE review_comments SET updated_at = now(),
          status = ${input.resolved ? "resolved" : "open"},
          resolved_at = ${input.resolved ? sql`now()` : sql`NULL`},
          resolution = ${input.resolved ? input.resolution ?? null : null}
        WHERE id = ${row.id}`.pipe(Effect.orDie)
      yield* live.threadChanged(thread.id, thread.profileId)
      return yield* placedOneOrDie(row.id)
    })

    return { list, save, discard, send, resolve } as const
  }),
  dependencies: [ThreadRows.Default, ThreadMessages.Default, LiveEvents.Default]
}) {}
