import type { ThreadRows } from "./ArtifactComments.js"

/** A quote as Markdown: each line behind `> `, so a quoted heading or list stays a quote. */
const quoted = (text: string) => text.split("\n").map((line) => `> ${line}`).join("\n")

/**
 * The one user message an artifact's open comment threads become (docs/decisions.md, "Sending an
 * artifact's comments"): a line saying what it is and how to answer, then each thread as its quoted
 * snippet, its comment, its replies and its commentId, in the order they sit in the document.
 */
export const artifactCommentsMessage = (
  artifact: { readonly id: string; readonly name: string },
  threads: ReadonlyArray<ThreadRows>
): string => {
  const count = threads.length === 1 ? "1 open comment thread" : `${threads.length} open comment threads`
  const head = `Comments on the artifact "${artifact.name}" (artifactId: ${artifact.id}): ${count}. Address each, then answer it with ` +
    "reply_to_artifact_comment and resolve it with set_artifact_comment_status (its commentId); get_task_artifact reads the document."
  const parts = threads.map(({ replies, root }, i) =>
    [
      `### ${i + 1}. On:`,
      quoted(root.anchorText),
      ...(root.anchorLost ? ["(This text is no longer in the document: it was edited away.)"] : []),
      `${root.authorName}: ${root.content}`,
      ...replies.map((reply) => `${reply.authorName} replied: ${reply.content}`),
      `(commentId: ${root.commentId})`
    ].join("\n\n")
  )
  return [head, ...parts].join("\n\n")
}
