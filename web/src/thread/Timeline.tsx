import { defaultRangeExtractor, type Range, useWindowVirtualizer } from "@tanstack/react-virtual"
import { useCallback, useLayoutEffect, useMemo, useRef, useState } from "react"
import type { ComposedMessage } from "../../../catalog/events/compose.js"
import { type Disclosure, Part } from "./Part"
import { UserText } from "./UserText"
import { estimateHeight, type Message, type Row, timelineRows } from "./rows"
import { useStickToBottom } from "./useStickToBottom"
import { TurnEnd, TurnHead } from "./Turn"
import "./Timeline.css"

export type { Message } from "./rows"

const closed: Disclosure = { open: false, onToggle: () => undefined }

const RowView = ({ row, disclosure, asking }: {
  readonly row: Row
  readonly disclosure: Disclosure
  /** This row is the running call (or the end of the turn) that waits on the person's answer. */
  readonly asking: boolean
}) => {
  switch (row.kind) {
    case "user":
      return (
        <>
          {row.message.sentBy !== undefined ? <p className="hint">From {row.message.sentBy.title}</p> : null}
          <UserText message={row.message} />
          {row.message.status === "pending" ? <p className="hint">Waiting for the agent</p> : null}
        </>
      )
    case "turn":
      return <TurnHead state={row.state} model={row.model} />
    case "part":
      return <Part part={row.part} disclosure={disclosure} asking={asking} />
    case "fallback":
      return <div className="text">{row.text}</div>
    case "end":
      return (
        <TurnEnd
          state={row.state}
          session={row.session}
          contextWindow={row.contextWindow}
          errorMessage={row.errorMessage}
          asking={asking}
        />
      )
  }
}

const rowClass = (row: Row): string => {
  switch (row.kind) {
    case "user":
      return "row-user"
    case "turn":
      return "row-agent row-turn"
    case "end":
      return "row-agent row-end"
    default:
      return "row-agent"
  }
}

const rowLabel = (row: Row): string | undefined =>
  row.kind === "user" ? (row.message.sentBy === undefined ? "You" : `From ${row.message.sentBy.title}`) : undefined

const noRows: ReadonlySet<number> = new Set()

/**
 * The rows of the last turn that wait on the person: its last running call (the one a runtime
 * blocks on while it asks) and its closing row, which would otherwise read "Working…".
 */
const askingRows = (rows: ReadonlyArray<Row>): ReadonlySet<number> => {
  const found = new Set<number>()
  for (let index = rows.length - 1; index >= 0; index--) {
    const row = rows[index]
    if (row === undefined || row.kind === "user" || row.kind === "turn") break
    if (row.kind === "end" && row.state === "streaming") found.add(index)
    if (row.kind === "part" && row.part.type === "tool" && row.part.state === "running") {
      found.add(index)
      break
    }
  }
  return found
}

/**
 * The conversation, virtualized: a thread can hold 20,000 events and one turn thousands of tool
 * calls, so only the rows on screen (and a few beyond) are in the document, each measured once
 * rendered. It follows new output while the reader is at the bottom, and stays put once they
 * scroll up. The list keeps its name and native `details`, so it reads and works as a plain list.
 */
export const Timeline = ({ messages, composed, unseen, waitingOnYou = false }: {
  readonly messages: ReadonlyArray<Message>
  readonly composed: ReadonlyMap<string, ComposedMessage>
  readonly unseen: ReadonlyArray<string>
  /** A request waits on the person: the running turn says so instead of "Working…". */
  readonly waitingOnYou?: boolean
}) => {
  const rows = useMemo(() => timelineRows(messages, composed, unseen), [messages, composed, unseen])
  const asking = useMemo(() => (waitingOnYou ? askingRows(rows) : noRows), [rows, waitingOnYou])
  const listRef = useRef<HTMLOListElement>(null)
  const [scrollMargin, setScrollMargin] = useState(0)
  const [open, setOpen] = useState<ReadonlySet<string>>(() => new Set())
  const focused = useRef<number | undefined>(undefined)
  const stick = useStickToBottom()

  const toggle = useCallback((key: string, isOpen: boolean) => {
    setOpen((previous) => {
      const next = new Set(previous)
      if (isOpen) next.add(key)
      else next.delete(key)
      return next
    })
  }, [])

  // The rows the reader is on stay rendered even when off screen: the focused one (so the keyboard
  // does not lose its place), and at the bottom the last screenful, so that new output is in the
  // document in the same commit that scrolls to it.
  const rangeExtractor = useCallback((range: Range) => {
    const indexes = new Set(defaultRangeExtractor(range))
    if (focused.current !== undefined && focused.current < range.count) indexes.add(focused.current)
    if (stick.stuck()) {
      const screenful = range.endIndex - range.startIndex + 2 * range.overscan + 1
      for (let index = Math.max(0, range.count - screenful); index < range.count; index++) indexes.add(index)
    }
    return [...indexes].sort((a, b) => a - b)
  }, [stick])

  const virtualizer = useWindowVirtualizer({
    count: rows.length,
    estimateSize: (index) => {
      const row = rows[index]
      return row === undefined ? 40 : estimateHeight(row)
    },
    getItemKey: (index) => rows[index]?.key ?? index,
    overscan: 6,
    scrollMargin,
    rangeExtractor
  })

  // The list starts below the page's header, whose height changes as the thread loads.
  useLayoutEffect(() => {
    const list = listRef.current
    if (list === null) return
    const top = list.getBoundingClientRect().top + window.scrollY
    if (Math.abs(top - scrollMargin) > 0.5) setScrollMargin(top)
  })

  const totalSize = virtualizer.getTotalSize()
  useLayoutEffect(() => {
    stick.follow()
  }, [stick, totalSize, rows])

  const items = virtualizer.getVirtualItems()
  return (
    <ol
      ref={listRef}
      className="conversation timeline"
      aria-label="Conversation"
      style={{ height: `${totalSize}px` }}
      onFocus={(event) => {
        const index = Number(event.target.closest("li")?.dataset["index"])
        focused.current = Number.isInteger(index) ? index : undefined
      }}
    >
      {items.map((item) => {
        const row = rows[item.index]
        if (row === undefined) return null
        const disclosure: Disclosure = row.kind === "part" && (row.part.type === "tool" || row.part.type === "reasoning")
          ? { open: open.has(row.key), onToggle: (isOpen) => toggle(row.key, isOpen) }
          : closed
        return (
          <li
            key={item.key}
            ref={virtualizer.measureElement}
            data-index={item.index}
            className={`timeline-row ${rowClass(row)}`}
            aria-label={rowLabel(row)}
            aria-posinset={item.index + 1}
            aria-setsize={rows.length}
            style={{ transform: `translateY(${item.start - scrollMargin}px)` }}
          >
            <RowView row={row} disclosure={disclosure} asking={asking.has(item.index)} />
          </li>
        )
      })}
    </ol>
  )
}
