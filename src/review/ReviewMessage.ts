import type { DiffSide } from "../../catalog/domain/PatchLines.js"

/** What of a draft the review message carries. */
export interface ReviewDraft {
  readonly id: string
  readonly path: string
  readonly side: DiffSide
  readonly startLine: number
  readonly endLine: number
  readonly quote: ReadonlyArray<string>
  readonly body: string
}

/** `path:12` or `path:12-14`, with "(old lines)" when the numbers are the old file's. */
export const lineLabel = (draft: Pick<ReviewDraft, "path" | "side" | "startLine" | "endLine">) =>
  `${draft.path}:${draft.startLine === draft.endLine ? draft.startLine : `${draft.startLine}-${draft.endLine}`}${
    draft.side === "deletions" ? " (old lines)" : ""
  }`

/** A code fence longer than any run of backticks in the quote, so a quoted fence cannot close it. */
const fenceFor = (lines: ReadonlyArray<string>) => {
  let fence = "```"
  while (lines.some((line) => line.includes(fence))) fence += "`"
  return fence
}

/**
 * The one user message a review becomes (docs/decisions.md, "Review comments"): a line saying what
 * it is and how to answer it, then each comment as its path:lines, the quoted lines as a diff and
 * the comment, in the order they were written.
 */
export const reviewMessage = (drafts: ReadonlyArray<ReviewDraft>): string => {
  const count = drafts.length === 1 ? "1 comment" : `${drafts.length} comments`
  const head =
    `Review of your changes: ${count}. Address each, then resolve it with resolve_review_comment (its commentId, and a resolution saying ` +
    "what you did); list_review_comments lists them."
  const parts = drafts.map((draft, i) => {
    const fence = fenceFor(draft.quote)
    return [
      `### ${i + 1}. ${lineLabel(draft)}`,
      `${fence}diff`,
      ...draft.quote,
      fence,
      draft.body,
      `(commentId: ${draft.id})`
    ].join("\n")
  })
  return [head, ...parts].join("\n\n")
}
