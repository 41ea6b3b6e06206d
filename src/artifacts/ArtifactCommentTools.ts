import { Effect } from "effect"
import {
  CreateArtifactComment,
  ListArtifactComments,
  ReplyToArtifactComment,
  SendArtifactComments,
  SetArtifactCommentStatus
} from "../../catalog/ArtifactComments.js"
import { CurrentPrincipal } from "../platform/auth/Principal.js"
import { ArtifactComments } from "./ArtifactComments.js"
import { ArtifactCommentSending } from "./ArtifactCommentSending.js"
import { Artifacts } from "./Artifacts.js"
import { threadView } from "./ArtifactViews.js"
import * as Implement from "../platform/mcp/ToolImplementation.js"

export const ArtifactCommentTools = Effect.gen(function*() {
  const artifacts = yield* Artifacts
  const comments = yield* ArtifactComments
  const sending = yield* ArtifactCommentSending

  return [
    Implement.unscoped(ListArtifactComments, (input) =>
      Effect.gen(function*() {
        const { artifact } = yield* artifacts.resolve(yield* CurrentPrincipal, input.artifactId)
        return { threads: (yield* comments.threadsOf(artifact.id, input.status)).map(threadView) }
      })),

    Implement.unscoped(CreateArtifactComment, ({ artifactId, ...input }) =>
      Effect.gen(function*() {
        const principal = yield* CurrentPrincipal
        const resolved = yield* artifacts.resolve(principal, artifactId)
        return threadView(yield* comments.create(principal, resolved, input))
      })),

    Implement.unscoped(
      ReplyToArtifactComment,
      (input) => Effect.flatMap(CurrentPrincipal, (principal) => comments.reply(principal, input.commentId, input.content))
    ),

    Implement.unscoped(
      SetArtifactCommentStatus,
      (input) => Effect.flatMap(CurrentPrincipal, (principal) => comments.setStatus(principal, input.commentIds, input.status))
    ),

    Implement.unscoped(SendArtifactComments, (input) => Effect.flatMap(CurrentPrincipal, (principal) => sending.send(principal, input)))
  ] as const
})
