import { type RefObject, useCallback, useEffect, useRef, useState } from "react"

/** Room left between the sticky header and a card brought into view, in pixels. */
const GAP = 12

/** The bottom of the app's sticky header on screen: what hides the top of the page under it. */
export const headerBottom = (): number => {
  const header = document.querySelector("header.topbar")
  return header === null ? 0 : Math.max(0, header.getBoundingClientRect().bottom)
}

/**
 * Scrolls so the whole card shows below the sticky header: to the end of the page when that shows
 * it (the reader keeps following the output), else with its top just under the header.
 */
export const revealCard = (card: Element) => {
  const top = card.getBoundingClientRect().top + window.scrollY
  const end = document.documentElement.scrollHeight - window.innerHeight
  const target = Math.max(0, Math.min(end, top - headerBottom() - GAP))
  if (Math.abs(window.scrollY - target) > 0.5) window.scrollTo(0, target)
}

/** The card's first control: Allow on a permission, the first option of a question. */
export const focusCard = (card: Element) => {
  const control = card.querySelector<HTMLElement>("button:not(:disabled), input:not(:disabled), textarea:not(:disabled)")
  control?.focus({ preventScroll: true })
}

/** Whether the card's top and some of it is on screen below the header: enough to see it is there. */
const onScreen = (card: Element): boolean => {
  const rect = card.getBoundingClientRect()
  return rect.top < window.innerHeight - 48 && rect.bottom > headerBottom() + 48
}

const READER_KEYS = new Set(["PageUp", "PageDown", "ArrowUp", "ArrowDown", "Home", "End", " "])

/**
 * Keeps the person's first waiting request in view while the page settles. The conversation above
 * it grows for a while after the page opens (its events stream in), which would push the card
 * down; until the reader scrolls on their own, every change of the page's size brings it back.
 * Returns whether the first waiting card is off screen (the review bar's cue) and a way to go to it.
 */
export const useRevealRequests = (section: RefObject<HTMLElement | null>, firstWaiting: string | undefined) => {
  const pinned = useRef(false)
  const [offScreen, setOffScreen] = useState(false)

  const cardOf = useCallback(
    (interactionId: string | undefined): Element | null =>
      interactionId === undefined ? null : section.current?.querySelector(`[data-interaction="${CSS.escape(interactionId)}"]`) ?? null,
    [section]
  )

  const check = useCallback(() => {
    const card = cardOf(firstWaiting)
    setOffScreen(card !== null && !onScreen(card))
  }, [cardOf, firstWaiting])

  /** Brings a card into view and its first control into focus; it stays in view while the page settles. */
  const goTo = useCallback((interactionId: string) => {
    const card = cardOf(interactionId)
    if (card === null) return
    pinned.current = true
    revealCard(card)
    focusCard(card)
    check()
  }, [cardOf, check])

  useEffect(() => {
    const release = () => {
      pinned.current = false
    }
    const onKey = (event: KeyboardEvent) => {
      if (READER_KEYS.has(event.key) && !(event.target instanceof HTMLTextAreaElement || event.target instanceof HTMLInputElement)) {
        release()
      }
    }
    const settle = () => {
      const card = cardOf(firstWaiting)
      if (pinned.current && card !== null) revealCard(card)
      check()
    }
    const resized = new ResizeObserver(settle)
    resized.observe(document.body)
    window.addEventListener("wheel", release, { passive: true })
    window.addEventListener("touchmove", release, { passive: true })
    window.addEventListener("keydown", onKey)
    window.addEventListener("scroll", check, { passive: true })
    window.addEventListener("resize", settle)
    return () => {
      resized.disconnect()
      window.removeEventListener("wheel", release)
      window.removeEventListener("touchmove", release)
      window.removeEventListener("keydown", onKey)
      window.removeEventListener("scroll", check)
      window.removeEventListener("resize", settle)
    }
  }, [cardOf, check, firstWaiting])

  return { offScreen: firstWaiting !== undefined && offScreen, goTo, cardOf }
}
