import { useEffect, useMemo, useRef } from "react"

/** How close to the end of the page still counts as "at the bottom", in pixels. */
const SLACK = 24

const distanceFromBottom = (): number => document.documentElement.scrollHeight - (window.scrollY + window.innerHeight)

/**
 * Following new output the way a terminal does: while the reader is at the bottom of the page, the
 * page stays there as the conversation grows; once they scroll up, it stays where they are until
 * they come back down. A page opens at the bottom, where the latest output is.
 */
export const useStickToBottom = () => {
  const stuck = useRef(true)
  useEffect(() => {
    // Growth moves no scroll position, so only a scroll (the reader's, or ours to the end) decides.
    const onScroll = () => {
      stuck.current = distanceFromBottom() <= SLACK
    }
    window.addEventListener("scroll", onScroll, { passive: true })
    return () => window.removeEventListener("scroll", onScroll)
  }, [])
  return useMemo(() => ({
    stuck: () => stuck.current,
    /** Scrolls to the end of the page if the reader is following. */
    follow: () => {
      if (stuck.current && distanceFromBottom() > 0.5) window.scrollTo(0, document.documentElement.scrollHeight)
    }
  }), [])
}
