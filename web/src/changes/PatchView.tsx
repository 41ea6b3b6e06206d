import { PatchDiff } from "@pierre/diffs/react"
import type { DiffLineAnnotation, SelectedLineRange } from "@pierre/diffs"

export interface Note {
  readonly label: string
  readonly body: string
  readonly status: string
}

/**
 * One file's diff, highlighted (@pierre/diffs, with its own chunk: the highlighter loads the first
 * time a diff is opened, never with the page). Lines can be selected (a click on a line number,
 * or a drag over them for a range) to comment on them, and the review's comments placed on this diff show
 * under their last line.
 */
const PatchView = ({ notes, onSelect, patch, selected, style }: {
  readonly patch: string
  readonly style: "unified" | "split"
  readonly notes: ReadonlyArray<DiffLineAnnotation<Note>>
  readonly selected: SelectedLineRange | null
  readonly onSelect: (range: SelectedLineRange) => void
}) => (
  <PatchDiff<Note, undefined>
    patch={patch}
    lineAnnotations={[...notes]}
    selectedLines={selected}
    renderAnnotation={(annotation) => (
      <div className={`review-note ${annotation.metadata.status}`}>
        <strong>{annotation.metadata.label}</strong> {annotation.metadata.body}
      </div>
    )}
    options={{
      diffStyle: style,
      overflow: "wrap",
      disableFileHeader: true,
      themeType: "light",
      // The high-contrast GitHub themes: the default ones' token colours fail WCAG AA contrast on the added, removed and selected lines.
      theme: { light: "github-light-high-contrast", dark: "github-dark-high-contrast" },
      // A word's change emphasis over a selected line's blue darkens it past AA contrast: the selection alone marks those lines.
      unsafeCSS: "[data-selected-line] [data-diff-span] { background-color: transparent; }",
      enableLineSelection: true,
      onLineSelectionEnd: (range) => {
        if (range !== null) onSelect(range)
      }
    }}
  />
)

export default PatchView
