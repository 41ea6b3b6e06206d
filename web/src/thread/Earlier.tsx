import { useEffect, useLayoutEffect, useRef } from "react"
import "./Earlier.css"

/** How close (in pixels) to the top of the conversation scrolling up must come to read the page before. */
const NEAR_TOP_PX = 600

/**
 * "Load earlier": the conversation opens on its newest page, and the pages before it are read as the
 * reader scrolls up toward them (or presses the button). Only a scroll upward asks: the page's own
 * jump to the bottom on opening never does, so opening a thread costs one page.
 */
export const Earlier = ({ hasEarlier, loading, error, onLoad, count }: {
  readonly hasEarlier: boolean
  readonly loading: boolean
  readonly error: string | undefined
  readonly onLoad: () => void
  /** How many messages are held: when it grows at the top, the reader's place is kept. */
  readonly count: number
}) => {
  const bar = useRef<HTMLDivElement>(null)
  const lastY = useRef(window.scrollY)
  const anchor = useRef<{ readonly height: number; readonly y: number } | undefined>(undefined)

  const load = () => {
    anchor.current = { height: document.documentElement.scrollHeight, y: window.scrollY }
    onLoad()
  }

  useEffect(() => {
    if (!hasEarlier || loading || error !== undefined) return
    const onScroll = () => {
      const y = window.scrollY
      const up = y < lastY.current
      lastY.current = y
      const top = bar.current?.getBoundingClientRect().top
      if (up && top !== undefined && top > -NEAR_TOP_PX) load()
    }
    window.addEventListener("scroll", onScroll, { passive: true })
    return () => window.removeEventListener("scroll", onScroll)
  })

  // Older messages go in above what the reader is looking at: the page moves down by what was
  // added, so the same message stays under their eyes.
  useLayoutEffect(() => {
    const before = anchor.current
    if (before === undefined || loading) return
    anchor.current = undefined
    const grown = document.documentElement.scrollHeight - before.height
    if (grown > 0) window.scrollTo(0, window.scrollY + grown)
    lastY.current = window.scrollY
  }, [count, loading])

  if (!hasEarlier) return null
  return (
    <div ref={bar} className="earlier">
      <button type="button" className="quiet" onClick={load} disabled={loading}>
        {loading ? "Loading earlier messages…" : "Load earlier messages"}
      </button>
      {error !== undefined ? <p className="hint" role="alert">Cannot load earlier messages: {error}</p> : null}
    </div>
  )
}
