/** Tells every page's waiting count that this tab settled a request, so it need not wait for its next read. */

const SETTLED = "trellis:interaction-settled"

export const announceSettled = () => window.dispatchEvent(new Event(SETTLED))

/** Calls `listener` on each announcement; returns the unsubscribe. */
export const onSettled = (listener: () => void): () => void => {
  window.addEventListener(SETTLED, listener)
  return () => window.removeEventListener(SETTLED, listener)
}
