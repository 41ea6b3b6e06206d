import {
  DiscardReviewComment,
  ListReviewComments,
  ResolveReviewComment,
  SaveReviewComment,
  SendReview
} from "../../../catalog/ReviewComments.js"
import { GetThreadChanges, RefreshThreadChanges } from "../../../catalog/ThreadChanges.js"
import { makeToolCaller } from "../lib/api"

/** The change report and review tools: they load with the Changes panel, a chunk of its own. */
export const callChangesTool = makeToolCaller({
  get_thread_changes: GetThreadChanges,
  refresh_thread_changes: RefreshThreadChanges,
  list_review_comments: ListReviewComments,
  save_review_comment: SaveReviewComment,
  discard_review_comment: DiscardReviewComment,
  send_review: SendReview,
  resolve_review_comment: ResolveReviewComment
})
