import { Effect } from "effect"
import {
  DiscardReviewComment,
  ListReviewComments,
  ResolveReviewComment,
  SaveReviewComment,
  SendReview
} from "../../catalog/ReviewComments.js"
import { CurrentPrincipal } from "../platform/auth/Principal.js"
import * as Implement from "../platform/mcp/ToolImplementation.js"
import { ReviewComments } from "./ReviewComments.js"

export const ReviewTools = Effect.gen(function*() {
  const reviews = yield* ReviewComments
  return [
    Implement.unscoped(
      ListReviewComments,
      (input) => Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(reviews.list(principal, input), (comments) => ({ comments })))
    ),
    Implement.unscoped(SaveReviewComment, (input) => Effect.flatMap(CurrentPrincipal, (principal) => reviews.save(principal, input))),
    Implement.unscoped(
      DiscardReviewComment,
      (input) => Effect.flatMap(CurrentPrincipal, (principal) => reviews.discard(principal, input.commentId))
    ),
    Implement.unscoped(SendReview, (input) => Effect.flatMap(CurrentPrincipal, (principal) => reviews.send(principal, input.threadId))),
    Implement.unscoped(ResolveReviewComment, (input) => Effect.flatMap(CurrentPrincipal, (principal) => reviews.resolve(principal, input)))
  ] as const
})
