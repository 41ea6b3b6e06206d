import { Schema } from "effect"
import { hasLoneSurrogate } from "./Anchor.js"
import { MAX_PATH_LENGTH } from "./ChangeReport.js"
import { ReviewCommentId } from "./Ids.js"

/**
 * A review comment on a thread's changes (issue 31 §2): lines of one file of a change report,
 * quoted as the diff showed them, with the reviewer's words. A draft until its review is sent to
 * the thread as one message; then open until someone (the agent, usually) resolves it. The caps
 * are docs/decisions.md's "Review comments".
 */

/** Characters of one comment's body. */
export const MAX_REVIEW_BODY = 4000
/** Lines one comment may span. */
export const MAX_REVIEW_RANGE = 200
/** Drafts one person may hold on one thread: a review sends them all in one message. */
export const MAX_REVIEW_DRAFTS = 50
/** What `resolve_review_comment` keeps of what was done. */
export const MAX_RESOLUTION = 2000

export const DiffSide = Schema.Literal("additions", "deletions").annotations({
  description: "additions: the new file's line numbers (context and added lines); deletions: the old file's (removed lines)"
})

export const ReviewStatus = Schema.Literal("draft", "open", "resolved").annotations({
  description: "draft: saved, not sent; open: sent to the thread; resolved: marked done"
})
export type ReviewStatus = typeof ReviewStatus.Type

const WellFormed = Schema.String.pipe(
  Schema.filter((text) => !hasLoneSurrogate(text), { message: () => "must not split a character (an unpaired UTF-16 surrogate)" }),
  Schema.filter((text) => !text.includes("\u0000"), { message: () => "must not hold the NUL character" })
)

export const ReviewBody = WellFormed.pipe(
  Schema.filter((text) => text.trim().length > 0, { message: () => "must not be empty or blank" }),
  Schema.maxLength(MAX_REVIEW_BODY, { message: () => `must be at most ${MAX_REVIEW_BODY} characters` })
).annotations({ description: `Markdown, not blank, at most ${MAX_REVIEW_BODY} characters` })

export const Resolution = WellFormed.pipe(
  Schema.maxLength(MAX_RESOLUTION, { message: () => `must be at most ${MAX_RESOLUTION} characters` })
).annotations({ description: `What was done about it, at most ${MAX_RESOLUTION} characters` })

export const ReviewPath = WellFormed.pipe(
  Schema.minLength(1, { message: () => "must not be empty" }),
  Schema.maxLength(MAX_PATH_LENGTH, { message: () => `must be at most ${MAX_PATH_LENGTH} characters` })
).annotations({ description: "The file's path in the report (as get_thread_changes names it)" })

export const LineNumber = Schema.Int.pipe(Schema.greaterThanOrEqualTo(1, { message: () => "must be an integer of at least 1" }))

export const Placement = Schema.Struct({
  reportId: Schema.String,
  startLine: Schema.Int,
  endLine: Schema.Int
}).annotations({ description: "Where the quoted lines are in the thread's latest report, on the comment's side" })

export const ReviewComment = Schema.Struct({
  commentId: ReviewCommentId,
  threadId: Schema.String,
  reportId: Schema.String.annotations({ description: "The change report the comment was written on" }),
  path: Schema.String,
  side: DiffSide,
  startLine: Schema.Int,
  endLine: Schema.Int,
  quote: Schema.Array(Schema.String).annotations({
    description: "The commented lines as the patch showed them, each with its marker: \" \" context, \"+\" added, \"-\" removed"
  }),
  body: Schema.String,
  status: ReviewStatus,
  authorName: Schema.String,
  createdAt: Schema.String,
  updatedAt: Schema.String,
  sentAt: Schema.NullOr(Schema.String),
  messageId: Schema.NullOr(Schema.String).annotations({ description: "The thread message the review was sent in" }),
  resolvedAt: Schema.NullOr(Schema.String),
  resolution: Schema.NullOr(Schema.String),
  placement: Schema.NullOr(Placement).annotations({
    description: "null when the latest report's diff of the file no longer holds the quoted lines verbatim (or there is no report)"
  }),
  maybeAddressed: Schema.Boolean.annotations({
    description: "Sent, and a report newer than the comment's no longer holds the quoted lines verbatim: those lines changed"
  })
}).annotations({ identifier: "ReviewComment" })
export type ReviewComment = typeof ReviewComment.Type
