import { memo, useEffect, useRef } from "react"
import Markdown, { type Components } from "react-markdown"
import remarkGfm from "remark-gfm"
import { snippetAt } from "../../../catalog/domain/Anchor.js"
import { selectionSource } from "./selectionSource"
import { type Highlight, sourceOffsets } from "./sourceOffsets"

/** A selection as `create_artifact_comment` takes it. */
export interface Snippet {
  readonly anchorText: string
  readonly occurrence: number
}

// Links in a document open apart, as an agent's links in a thread do.
const components: Components = {
  a: ({ node: _node, ...props }) => <a {...props} target="_blank" rel="noopener noreferrer" />
}

/** The Markdown, rendered once per content and set of highlights: a new selection or an active thread does not render it again. */
const Rendered = memo(({ highlights, source }: { readonly source: string; readonly highlights: ReadonlyArray<Highlight> }) => (
  <Markdown remarkPlugins={[remarkGfm]} rehypePlugins={[[sourceOffsets, { source, highlights }]]} components={components}>
    {source}
  </Markdown>
))

/**
 * A Markdown artifact with its open threads' snippets highlighted. Selecting text reports the
 * exact source snippet it covers and which match it is (`onSelect`); clicking a highlight picks its
 * thread (`onPick`); the `active` thread's highlight stands out.
 */
export const ArtifactDocument = ({ active, highlights, name, onPick, onSelect, source }: {
  readonly source: string
  readonly name: string
  readonly highlights: ReadonlyArray<Highlight>
  readonly active: string | undefined
  readonly onSelect: (snippet: Snippet) => void
  readonly onPick: (threadId: string) => void
}) => {
  const root = useRef<HTMLDivElement>(null)
  const latest = useRef({ onSelect, source })
  latest.current = { onSelect, source }

  // `selectionchange` rather than mouseup: a selection made with a phone's handles or the keyboard counts too.
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const read = () => {
      const selection = document.getSelection()
      const element = root.current
      if (selection === null || selection.rangeCount === 0 || element === null) return
      const range = selection.getRangeAt(0)
      // A selection elsewhere (the comment box taking the focus) leaves the last one standing.
      if (!element.contains(range.commonAncestorContainer)) return
      const covered = selectionSource(element, range)
      if (covered === undefined) return
      const snippet = snippetAt(latest.current.source, covered.start, covered.end)
      if (snippet !== undefined) latest.current.onSelect({ anchorText: snippet.anchorText, occurrence: snippet.occurrence })
    }
    const onChange = () => {
      clearTimeout(timer)
      timer = setTimeout(read, 120)
    }
    document.addEventListener("selectionchange", onChange)
    return () => {
      clearTimeout(timer)
      document.removeEventListener("selectionchange", onChange)
    }
  }, [])

  useEffect(() => {
    const element = root.current
    if (element === null) return
    for (const mark of element.querySelectorAll<HTMLElement>("mark[data-threads]")) {
      mark.classList.toggle("active", active !== undefined && (mark.dataset["threads"] ?? "").split(" ").includes(active))
    }
  }, [active, highlights, source])

  return (
    <div
      ref={root}
      className="artifact-document markdown"
      aria-label={name}
      role="document"
      onClick={(event) => {
        if (!(event.target instanceof Element)) return
        const threads = event.target.closest<HTMLElement>("mark[data-threads]")?.dataset["threads"]
        const first = threads?.split(" ")[0]
        if (first !== undefined && document.getSelection()?.isCollapsed !== false) onPick(first)
      }}
    >
      <Rendered source={source} highlights={highlights} />
    </div>
  )
}
