import type { Element, ElementContent, Root, RootContent, Text } from "hast"
// Brings hast's `raw` node (raw HTML in the Markdown) into its types, as remark-rehype makes them.
import type {} from "mdast-util-to-hast"
import type { Node } from "unist"

/** An open comment thread's snippet, as offsets into the Markdown source. */
export interface Highlight {
  readonly id: string
  readonly start: number
  readonly end: number
}

/** Where a run of rendered text came from in the source. */
type Origin =
  /** Character for character: the run is the source's `[start, start + length)`. */
  | { readonly _tag: "Exact"; readonly start: number }
  /** Somewhere in `[from, to)` (an entity, an escape, a trimmed line end): only its ends are known. */
  | { readonly _tag: "Within"; readonly from: number; readonly to: number }

interface Span {
  readonly from: number
  readonly to: number
}

const spanOf = (node: Node): Span | undefined => {
  const from = node.position?.start.offset
  const to = node.position?.end.offset
  return from === undefined || to === undefined ? undefined : { from, to }
}

/**
 * A rehype plugin for the artifact page: every run of text the Markdown renders becomes a
 * `<span data-src>` (where it starts in the source) or `<span data-from data-to>` (the source
 * range it came from, when it is not a verbatim copy), so a selection in the page maps back to
 * the exact source text `create_artifact_comment` anchors to (./selectionSource.ts); the parts of
 * runs under open threads' snippets become `<mark data-threads>` instead.
 *
 * Text nodes carry their source position (mdast-util-to-hast copies it), except those a handler
 * builds (a code block's body): those are found in the source after the last text placed,
 * inside their nearest positioned ancestor.
 */
export const sourceOffsets = (options: { readonly source: string; readonly highlights: ReadonlyArray<Highlight> }) => (tree: Root) => {
  const { highlights, source } = options
  let cursor = 0

  const originOf = (text: Text, within: Span | undefined): Origin | undefined => {
    const own = spanOf(text)
    const range = own ?? within
    if (range === undefined) return undefined
    if (own !== undefined && source.slice(own.from, own.to) === text.value) return { _tag: "Exact", start: own.from }
    const at = source.indexOf(text.value, own === undefined ? Math.max(cursor, range.from) : range.from)
    const end = at + text.value.length
    // Within its own range, a value is its source only inside code's backticks: elsewhere (`&amp;amp;`
    // shows `&amp;`) a match is a coincidence.
    const fenced = own === undefined || /^[`\s]*$/.test(source.slice(range.from, at) + source.slice(end, range.to))
    if (at !== -1 && end <= range.to && fenced) return { _tag: "Exact", start: at }
    return { _tag: "Within", from: range.from, to: range.to }
  }

  const threadsOver = (from: number, to: number) =>
    highlights.filter((highlight) => highlight.start < to && highlight.end > from).map((highlight) => highlight.id)

  const piece = (value: string, properties: Element["properties"], threads: ReadonlyArray<string>): Element => ({
    type: "element",
    tagName: threads.length === 0 ? "span" : "mark",
    properties: threads.length === 0 ? properties : { ...properties, dataThreads: threads.join(" "), className: ["anchor"] },
    children: [{ type: "text", value }]
  })

  /** An exact run cut where snippets start and end, each piece marked by the threads over it. */
  const exactPieces = (value: string, start: number): Array<Element> => {
    const end = start + value.length
    const cuts = [
      ...new Set([
        start,
        ...highlights.flatMap((h) => [h.start, h.end]).filter((at) => at > start && at < end),
        end
      ])
    ].sort((a, b) => a - b)
    return cuts.slice(0, -1).map((from, i) => {
      const to = cuts[i + 1] ?? end
      return piece(value.slice(from - start, to - start), { dataSrc: String(from) }, threadsOver(from, to))
    })
  }

  const visit = (children: Array<RootContent> | Array<ElementContent>, within: Span | undefined): Array<ElementContent> =>
    children.flatMap((child): Array<ElementContent> => {
      if (child.type === "element") {
        child.children = visit(child.children, spanOf(child) ?? within)
        return [child]
      }
      // Raw HTML shows as the text it is (react-markdown's own choice, made here first so it is placed too).
      const text: Text | undefined = child.type === "text" || child.type === "raw"
        ? { type: "text", value: child.value, ...(child.position === undefined ? {} : { position: child.position }) }
        : undefined
      if (text === undefined) return child.type === "comment" ? [child] : []
      // The line breaks the renderer puts between blocks are no one's text.
      if (text.value.trim() === "" && spanOf(text) === undefined) return [text]
      const origin = originOf(text, within)
      if (origin === undefined) return [text]
      if (origin._tag === "Within") {
        return [piece(text.value, { dataFrom: String(origin.from), dataTo: String(origin.to) }, threadsOver(origin.from, origin.to))]
      }
      cursor = origin.start + text.value.length
      return exactPieces(text.value, origin.start)
    })

  tree.children = visit(tree.children, spanOf(tree))
}
