import { useCallback, useMemo, useState } from "react"
import { describeError } from "../lib/api"
import { ago } from "../lib/format"
import { useReloadOnChange } from "../lib/projectChanges"
import { followLink, taskPath } from "../lib/router"
import { ArtifactDocument, type Snippet } from "../artifact/ArtifactDocument"
import { ArtifactEditor } from "../artifact/ArtifactEditor"
import { useToolQuery } from "../artifact/artifactTools"
import { CommentThreads } from "../artifact/CommentThreads"
import { HtmlArtifact } from "../artifact/HtmlArtifact"
import { NewComment } from "../artifact/NewComment"
import { SendToThread } from "../artifact/SendToThread"
import "../forms/forms.css"
import "../artifact/Artifact.css"

/**
 * One artifact (issue 31 §3): a Markdown document with its open threads highlighted where they
 * sit, a new thread from a selection, the threads with their replies, resolved or reopened one or
 * many, the source edited with the anchors following, and the open threads sent to an agent's
 * thread; an HTML artifact shows read-only in a locked frame. Read again when the project's changes
 * stream names the artifact (an agent replying or resolving shows at once).
 */
export const ArtifactPage = ({ projectId, artifactId }: { readonly projectId: string; readonly artifactId: string }) => {
  const artifact = useToolQuery("get_task_artifact", { artifactId })
  const comments = useToolQuery("list_artifact_comments", { artifactId })
  const [active, setActive] = useState<string | undefined>(undefined)
  const [selected, setSelected] = useState<Snippet | undefined>(undefined)
  const [editing, setEditing] = useState(false)
  const [saved, setSaved] = useState<string | undefined>(undefined)
  const reloadArtifact = artifact.refetch
  const reloadComments = comments.refetch
  useReloadOnChange(
    () => {
      void reloadArtifact()
      void reloadComments()
    },
    { artifacts: [artifactId] },
    300
  )

  const threads = useMemo(() => comments.data?.threads ?? [], [comments.data])
  // The document and its threads are two reads: while one is newer than the other (an edit just
  // saved), a thread is drawn only where the content still holds its snippet.
  const content = artifact.data?.content ?? ""
  const highlights = useMemo(
    () =>
      threads.flatMap((thread) =>
        thread.status === "open" && thread.anchorStart !== null && thread.anchorEnd !== null &&
          content.slice(thread.anchorStart, thread.anchorEnd) === thread.anchorText
          ? [{ id: thread.commentId, start: thread.anchorStart, end: thread.anchorEnd }]
          : []
      ),
    [threads, content]
  )
  const show = useCallback((threadId: string) => {
    setActive(threadId)
    document.querySelector(`mark[data-threads~="${CSS.escape(threadId)}"]`)?.scrollIntoView({ block: "center", behavior: "smooth" })
  }, [])
  const pick = useCallback((threadId: string) => {
    setActive(threadId)
    document.getElementById(`thread-${threadId}`)?.scrollIntoView({ block: "nearest", behavior: "smooth" })
  }, [])

  if (artifact.isPending) return <p className="page-status" role="status">Loading…</p>
  if (artifact.isError) return <p className="page-status" role="alert">Cannot show the artifact: {describeError(artifact.error)}</p>
  const doc = artifact.data
  const markdown = doc.contentType === "markdown"
  const openCount = threads.filter((thread) => thread.status === "open").length

  return (
    <article className="artifact-page" aria-labelledby="artifact-name">
      <p className="meta">
        <a href={taskPath(projectId, doc.taskId)} onClick={followLink}>← The task</a>
      </p>
      <div className="artifact-head">
        <h1 id="artifact-name">{doc.name}</h1>
        <span className="badge">{doc.contentType}</span>
        <span className="meta">{doc.authorName} · updated {ago(doc.updatedAt)}</span>
        {markdown && !editing ? <button type="button" className="quiet" onClick={() => setEditing(true)}>Edit</button> : null}
      </div>
      {saved === undefined ? null : <p role="status" className="meta">{saved}</p>}
      <div className={markdown ? "artifact-layout" : undefined}>
        <div className="artifact-main">
          {!markdown ? <HtmlArtifact content={doc.content} name={doc.name} /> : editing
            ? (
              <ArtifactEditor
                artifact={doc}
                onDone={(lost) => {
                  setEditing(false)
                  if (lost !== undefined) {
                    setSaved(
                      lost === 0 ? "Saved." : `Saved. ${lost === 1 ? "1 thread lost its" : `${lost} threads lost their`} text.`
                    )
                  }
                }}
              />
            )
            : (
              <ArtifactDocument
                source={doc.content}
                name={doc.name}
                highlights={highlights}
                active={active}
                onSelect={setSelected}
                onPick={pick}
              />
            )}
        </div>
        {markdown
          ? (
            <aside className="artifact-side" aria-label="Comments and review">
              <NewComment artifactId={artifactId} source={doc.content} selected={selected} onCreated={setActive} />
              {comments.isError ? <p className="field-error" role="alert">{describeError(comments.error)}</p> : null}
              <CommentThreads threads={threads} active={active} onShow={show} />
              <SendToThread projectId={projectId} artifact={doc} openCount={openCount} />
            </aside>
          )
          : null}
      </div>
    </article>
  )
}
