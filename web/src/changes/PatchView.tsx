import { PatchDiff } from "@pierre/diffs/react"

/**
 * One file's diff, highlighted (@pierre/diffs, with its own chunk: the highlighter loads the first
 * time a diff is opened, never with the page).
 */
const PatchView = ({ patch, style }: { readonly patch: string; readonly style: "unified" | "split" }) => (
  <PatchDiff patch={patch} options={{ diffStyle: style, overflow: "wrap", disableFileHeader: true, themeType: "light" }} />
)

export default PatchView
