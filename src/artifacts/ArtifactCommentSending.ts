import { Effect, Order } from "effect"
import { Conflict, InvalidArgument } from "../../catalog/domain/Errors.js"
import type { ArtifactId } from "../../catalog/domain/Ids.js"
import type { Principal } from "../platform/auth/Principal.js"
import { ThreadMessages } from "../threads/ThreadMessages.js"
import { ThreadRows } from "../threads/ThreadRows.js"
import { ArtifactComments, type ThreadRows as CommentThread } from "./ArtifactComments.js"
import { artifactCommentsMessage } from "./ArtifactCommentsMessage.js"
import { Artifacts } from "./Artifacts.js"

/** Threads as they sit in the document; those whose snippet is gone come last, oldest first. */
const documentOrder = Order.combine(
  Order.mapInput(Order.boolean, (thread: CommentThread) => thread.root.anchorLost),
  Order.mapInput(Order.number, (thread: CommentThread) => thread.root.anchorLost ? 0 : thread.root.anchorStart)
)

/** Hands an artifact's open comment threads to an agent's thread as one message (send_artifact_comments). */
export class ArtifactCommentSending extends Effect.Service<ArtifactCommentSending>()("trellis/ArtifactCommentSending", {
  effect: Effect.gen(function*() {
    const artifacts = yield* Artifacts
    const comments = yield* ArtifactComments
    const threads = yield* ThreadRows
    const messages = yield* ThreadMessages

    const send = Effect.fn("ArtifactCommentSending.send")(
      function*(principal: Principal, input: { readonly artifactId: ArtifactId; readonly threadId: string }) {
        const { artifact } = yield* artifacts.resolve(principal, input.artifactId)
        const target = yield* threads.findOwn(principal, input.threadId, "threadId")
        if (target.projectId !== artifact.projectId) {
          return yield* new InvalidArgument({
            message: `threadId: thread ${target.id} is in another project than artifact ${artifact.id}; send to a thread of its project`
          })
        }
        const open = [...yield* comments.threadsOf(artifact.id, "open")].sort(documentOrder)
        if (open.length === 0) {
          return yield* new Conflict({ message: `artifactId: artifact ${artifact.id} has no open comment thread to send` })
        }
        const content = artifactCommentsMessage(artifact, open)
        const message = yield* messages.send(principal, { threadId: target.id, content, runtimeCommand: false })
        return { messageId: message.messageId, threadId: target.id, commentIds: open.map((thread) => thread.root.commentId) }
      }
    )

    return { send } as const
  }),
  dependencies: [Artifacts.Default, ArtifactComments.Default, ThreadRows.Default, ThreadMessages.Default]
}) {}
