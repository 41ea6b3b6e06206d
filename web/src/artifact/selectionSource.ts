/** Where an element of the rendered document (./sourceOffsets.ts) starts and ends in the source. */
const extent = (piece: HTMLElement): { readonly from: number; readonly to: number } => {
  const { dataset } = piece
  if (dataset["src"] !== undefined) {
    const from = Number(dataset["src"])
    return { from, to: from + (piece.textContent ?? "").length }
  }
  return { from: Number(dataset["from"]), to: Number(dataset["to"]) }
}

/** The offset in the source of a boundary inside `piece`, when it falls in its text; else its start or end. */
const boundary = (piece: HTMLElement, container: Node, offset: number, edge: "from" | "to") => {
  const { from, to } = extent(piece)
  if (piece.dataset["src"] !== undefined && container.nodeType === Node.TEXT_NODE && piece.contains(container)) return from + offset
  return edge === "from" ? from : to
}

/**
 * The source range `[start, end)` a selection in the rendered document covers: from where its
 * first piece of text starts (or where in it the selection does) to where its last one ends.
 * Undefined when it covers no text of the document.
 */
export const selectionSource = (root: HTMLElement, range: Range): { readonly start: number; readonly end: number } | undefined => {
  if (range.collapsed) return undefined
  // A piece the selection only touches (it starts at the piece's very end, or ends at its very
  // start, as a triple click does) is not part of it.
  const touchedOnly = (piece: HTMLElement) =>
    (piece.contains(range.startContainer) && range.startContainer.nodeType === Node.TEXT_NODE &&
      range.startOffset === (range.startContainer.textContent ?? "").length) ||
    (piece.contains(range.endContainer) && range.endContainer.nodeType === Node.TEXT_NODE && range.endOffset === 0)
  const pieces = [...root.querySelectorAll<HTMLElement>("[data-src], [data-from]")]
    .filter((piece) => range.intersectsNode(piece) && !touchedOnly(piece))
  const first = pieces[0]
  const last = pieces.at(-1)
  if (first === undefined || last === undefined) return undefined
  const start = boundary(first, range.startContainer, range.startOffset, "from")
  const end = boundary(last, range.endContainer, range.endOffset, "to")
  return end > start ? { start, end } : undefined
}
