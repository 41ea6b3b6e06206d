import { useInfiniteQuery, useQuery } from "@tanstack/react-query"
import { Either } from "effect"
import { lazy, Suspense, useMemo, useRef, useState } from "react"
import type { ChangedFile } from "../../../catalog/domain/ChangeReport.js"
import { patchLines } from "../../../catalog/domain/PatchLines.js"
import type { ReviewComment } from "../../../catalog/domain/ReviewComment.js"
import type { ChangesPage } from "../../../catalog/ThreadChanges.js"
import { describeError, type ToolError } from "../lib/api"
import { ago } from "../lib/format"
import { useReloadOnChange } from "../lib/projectChanges"
import { callChangesTool } from "./changeTools"
import { RefreshChanges } from "./RefreshChanges"
import ReviewComposer, { type CommentRange, firstRange } from "./ReviewComposer"
import ReviewList from "./ReviewList"
import { isViewed, setViewed } from "./viewed"
import "./Changes.css"

const PatchView = lazy(() => import("./PatchView"))

type Style = "unified" | "split"

const STATUS_LETTER: Record<ChangedFile["status"], string> = {
  added: "A",
  modified: "M",
  deleted: "D",
  renamed: "R",
  copied: "C",
  typechange: "T"
}

const WHY_NO_PATCH: Record<NonNullable<ChangedFile["summarized"]>, string> = {
  lockfile: "A lock file: counted, not shown.",
  generated: "A generated file: counted, not shown.",
  too_large: "Too large to show here.",
  binary: "A binary file.",
  over_budget: "Not sent: the report's size was spent on other files."
}

/** The directory part of a path ("" at the top). */
const directoryOf = (path: string) => path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : ""
const nameOf = (path: string) => path.slice(path.lastIndexOf("/") + 1)

/** Files under their directories, directories in path order: the tree, one level deep per folder. */
const byDirectory = (files: ReadonlyArray<ChangedFile>) => {
  const groups = new Map<string, Array<ChangedFile>>()
  for (const file of files) {
    const directory = directoryOf(file.path)
    groups.set(directory, [...(groups.get(directory) ?? []), file])
  }
  return [...groups.entries()].sort(([a], [b]) => a.localeCompare(b))
}

/** What a file's row needs of the review: its placed comments, and the comment being written on it. */
interface FileReview {
  readonly reportId: string
  readonly comments: ReadonlyArray<ReviewComment>
  readonly composing: CommentRange | null
  /** Changes when a new comment starts, so its box starts empty. */
  readonly generation: number
  readonly compose: (range: CommentRange | null) => void
  readonly onSaved: (comment: ReviewComment) => void
}

const FileRow = ({ file, review, style, threadId }: {
  readonly file: ChangedFile
  readonly style: Style
  readonly threadId: string
  readonly review: FileReview
}) => {
  const [open, setOpen] = useState(false)
  const lines = useMemo(() => patchLines(file.patch ?? ""), [file.patch])
  const notes = review.comments.flatMap((comment) =>
    comment.placement === null ? [] : [{
      side: comment.side,
      lineNumber: comment.placement.endLine,
      metadata: {
        label: comment.status === "draft" ? "Draft:" : comment.maybeAddressed ? "Maybe addressed:" : "Comment:",
        body: comment.body,
        status: comment.status
      }
    }]
  )
  const startComment = () => {
    const range = firstRange(file.path, lines)
    if (range === undefined) return
    setOpen(true)
    review.compose(range)
  }
  const diff = file.patch ?? `${file.summarized ?? ""}:${file.additions}:${file.deletions}`
  const [viewed, markViewed] = useState(() => isViewed(threadId, file.path, diff))
  // A newer report's different diff for this file: what was viewed is no longer what is shown.
  const [shown, setShown] = useState(diff)
  if (shown !== diff) {
    setShown(diff)
    markViewed(isViewed(threadId, file.path, diff))
  }
  const toggleViewed = (checked: boolean) => {
    setViewed(threadId, file.path, diff, checked)
    markViewed(checked)
    if (checked) setOpen(false)
  }
  return (
    <li className={`change-file${viewed ? " viewed" : ""}`} data-path={file.path}>
      <div className="change-file-head">
        <button type="button" className="quiet change-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
          <span className={`change-status status-${file.status}`} title={file.status}>{STATUS_LETTER[file.status]}</span>
          <span className="change-name">{nameOf(file.path)}</span>
          {file.oldPath === undefined ? null : <span className="meta">from {file.oldPath}</span>}
        </button>
        <span className="change-counts" aria-label={`${file.additions} added, ${file.deletions} removed`}>
          <span className="added">+{file.additions}</span> <span className="removed">−{file.deletions}</span>
        </span>
        {file.patch === null ?
          null :
          <button type="button" className="quiet" onClick={startComment} aria-label={`Comment on lines of ${file.path}`}>Comment</button>}
        <label className="change-viewed">
          <input type="checkbox" checked={viewed} onChange={(event) => toggleViewed(event.currentTarget.checked)} /> Viewed
        </label>
      </div>
      {open ?
        (file.patch === null ?
          <p className="meta">{WHY_NO_PATCH[file.summarized ?? "binary"]}</p> :
          (
            <Suspense fallback={<p className="meta" role="status">Loading the diff…</p>}>
              <div className="change-diff">
                <PatchView
                  patch={file.patch}
                  style={style}
                  notes={notes}
                  selected={review.composing === null
                    ? null
                    : { start: review.composing.startLine, end: review.composing.endLine, side: review.composing.side }}
                  onSelect={(range) =>
                    review.compose({
                      path: file.path,
                      side: range.side ?? "additions",
                      startLine: Math.min(range.start, range.end),
                      endLine: Math.max(range.start, range.end)
                    })}
                />
              </div>
            </Suspense>
          )) :
        null}
      {review.composing === null ? null : (
        <ReviewComposer
          key={review.generation}
          threadId={threadId}
          reportId={review.reportId}
          range={review.composing}
          setRange={review.compose}
          lines={lines}
          onSaved={review.onSaved}
          onClose={() => review.compose(null)}
        />
      )}
    </li>
  )
}

const settle = (result: Either.Either<ChangesPage, ToolError>) =>
  Either.match(result, { onLeft: (error) => Promise.reject(error), onRight: (page) => Promise.resolve(page) })

/**
 * What the thread changed (issue 31 §1): its latest change report, read a page of files at a
 * time (`get_thread_changes`), files under their folders with their counts, each diff opened on
 * demand in a unified or split view, and "viewed" per file until that file's diff changes. Read
 * again when the changes stream names the thread (a new report is the thread's change).
 */
const ChangesPanel = ({ threadId }: { readonly threadId: string }) => {
  const [style, setStyle] = useState<Style>(() => window.innerWidth < 700 ? "unified" : "split")
  // Opened from a link to it (a task's run): shown open, and scrolled to once it is drawn.
  const [linked] = useState(() => window.location.hash === "#changes")
  const shown = useRef(false)
  const pages = useInfiniteQuery<ChangesPage, ToolError>({
    queryKey: ["get_thread_changes", threadId],
    initialPageParam: null,
    queryFn: ({ pageParam, signal }) =>
      callChangesTool("get_thread_changes", { threadId, limit: 100, cursor: typeof pageParam === "string" ? pageParam : null }, signal)
        .then(settle),
    getNextPageParam: (last) => last.nextCursor
  })
  const comments = useQuery<ReadonlyArray<ReviewComment>, ToolError>({
    queryKey: ["list_review_comments", threadId],
    queryFn: ({ signal }) =>
      callChangesTool("list_review_comments", { threadId, includeDrafts: true }, signal).then((result) =>
        Either.match(result, { onLeft: (error) => Promise.reject(error), onRight: (list) => Promise.resolve(list.comments) })
      )
  })
  const [composing, setComposing] = useState<CommentRange | null>(null)
  const [composed, setComposed] = useState<string | undefined>()
  const [generation, setGeneration] = useState(0)
  const refetch = pages.refetch
  const refetchComments = comments.refetch
  useReloadOnChange(
    () => {
      void refetch()
      void refetchComments()
    },
    { threads: [threadId] },
    1_000
  )
  const compose = (range: CommentRange | null) => {
    // A draft already saved keeps its lines: a new selection starts a new comment.
    if (range === null || composed !== undefined || composing === null || range.path !== composing.path) {
      setComposed(undefined)
      setGeneration((n) => n + 1)
    }
    setComposing(range)
  }

  if (pages.isPending) return null
  if (pages.isError) return <p className="field-error" role="alert">Cannot load the changes: {describeError(pages.error)}</p>
  const [first] = pages.data.pages
  const report = first?.report ?? null
  if (report === null) return null
  const files = pages.data.pages.flatMap((page) => page.files)
  const allComments = comments.data ?? []
  const reviewOf = (file: ChangedFile): FileReview => ({
    reportId: report.reportId,
    comments: allComments.filter((comment) => comment.path === file.path && comment.placement?.reportId === report.reportId),
    composing: composing?.path === file.path ? composing : null,
    generation,
    compose,
    onSaved: (comment) => {
      setComposed(comment.commentId)
      void refetchComments()
    }
  })
  return (
    <details
      id="changes"
      className="changes"
      aria-label="Changes"
      open={linked}
      ref={(element) => {
        if (!linked || element === null || shown.current) return
        shown.current = true
        element.scrollIntoView({ block: "start" })
      }}
    >
      <summary>
        Changes <span className="meta">{report.totals.files} {report.totals.files === 1 ? "file" : "files"}</span>{" "}
        <span className="added">+{report.totals.additions}</span> <span className="removed">−{report.totals.deletions}</span>
      </summary>
      <div className="changes-head">
        <span className="meta">
          {report.branch ?? "detached HEAD"} · {report.baseCommit.slice(0, 8)}..{report.headCommit.slice(0, 8)}
          {report.truncated ? " · the report was cut at its size caps" : ""} · reported {ago(report.createdAt)}
        </span>
        <RefreshChanges threadId={threadId} reportId={report.reportId} />
        <div className="view-switch" role="group" aria-label="Diff view">
          <button type="button" className="quiet" aria-pressed={style === "unified"} onClick={() => setStyle("unified")}>Unified</button>
          <button type="button" className="quiet" aria-pressed={style === "split"} onClick={() => setStyle("split")}>Split</button>
        </div>
      </div>
      {comments.isError ? <p className="field-error" role="alert">Cannot load the review: {describeError(comments.error)}</p> : null}
      <ReviewList threadId={threadId} comments={allComments} hidden={composed} onChanged={() => void refetchComments()} />
      {byDirectory(files).map(([directory, inside]) => (
        <section key={directory} className="change-folder" aria-label={directory === "" ? "Top folder" : directory}>
          <h3>{directory === "" ? "/" : `${directory}/`}</h3>
          <ul className="change-files">
            {inside.map((file) => <FileRow key={file.path} file={file} style={style} threadId={threadId} review={reviewOf(file)} />)}
          </ul>
        </section>
      ))}
      {pages.hasNextPage ?
        (
          <button type="button" onClick={() => void pages.fetchNextPage()} disabled={pages.isFetchingNextPage}>
            {pages.isFetchingNextPage ? "Loading…" : `More files (${files.length} of ${report.totals.files} shown)`}
          </button>
        ) :
        null}
    </details>
  )
}

export default ChangesPanel
