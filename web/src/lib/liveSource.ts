import { pauseLeft } from "./backoff"

/**
 * How long after the server closed a stream with an error a new one is opened: 2 s, doubling while
 * it keeps failing (up to 10 s), and never before a 429's `Retry-After` has passed.
 */
const REOPEN_MS = 2_000
const MAX_REOPEN_MS = 10_000

export interface LiveSourceHandlers {
  /** Adds the stream's event listeners to a newly made source. */
  readonly listen: (source: EventSource) => void
  /** The stream is (again) open; `reopened` after a break, when what it would have told may be missed. */
  readonly opened?: (reopened: boolean) => void
  readonly lost?: () => void
}

/**
 * An `EventSource` kept open until the returned function is called. `EventSource` reconnects by
 * itself after a network error; an HTTP error (a restarting server's 502, a 429) closes it for
 * good, so a new one is made after a pause, at the URL `url()` gives then (a resumed cursor).
 */
export const keepOpen = (url: () => string, handlers: LiveSourceHandlers): () => void => {
  let source: EventSource | undefined
  let reopen: ReturnType<typeof setTimeout> | undefined
  let failures = 0
  let openedBefore = false
  const open = () => {
    const made = new EventSource(url())
    handlers.listen(made)
    made.onopen = () => {
      failures = 0
      handlers.opened?.(openedBefore)
      openedBefore = true
    }
    made.onerror = () => {
      handlers.lost?.()
      if (made.readyState === EventSource.CLOSED && reopen === undefined) {
        const delay = Math.max(pauseLeft(), Math.min(MAX_REOPEN_MS, REOPEN_MS * 2 ** failures))
        failures += 1
        reopen = setTimeout(() => {
          reopen = undefined
          open()
        }, delay)
      }
    }
    source = made
  }
  open()
  return () => {
    source?.close()
    if (reopen !== undefined) clearTimeout(reopen)
  }
}
