/**
 * One live stream for every tab of the browser profile instead of one per tab. Chromium opens at
 * most six HTTP/1.1 connections to a host, and an open EventSource holds one for good: with a
 * changes stream and an event stream per thread page, a fourth thread tab waited for a connection,
 * and so did every request of the tabs already open. The tab holding the Web Lock `name` opens the
 * stream and hands each message to the others over a BroadcastChannel; when it closes, the lock
 * passes to another tab, which opens the stream in its turn.
 *
 * `open` starts the stream, giving each message to `publish`, and returns what stops it; it is told
 * whether it takes over from another tab (which may have missed messages while the lock passed).
 * Every tab, the one holding the stream included, gets each message through `receive`. Without
 * Web Locks or BroadcastChannel each tab opens its own.
 */
export const oneForAllTabs = <M>(
  name: string,
  open: (publish: (message: M) => void, takingOver: boolean) => () => void,
  receive: (message: M) => void
): () => void => {
  if (typeof navigator.locks === "undefined" || typeof BroadcastChannel === "undefined") return open(receive, false)
  const channel = new BroadcastChannel(name)
  channel.onmessage = (event: MessageEvent<M>) => receive(event.data)
  const publish = (message: M) => {
    receive(message)
    channel.postMessage(message)
  }
  const abort = new AbortController()
  let release: (() => void) | undefined
  let stop: (() => void) | undefined
  // Held until this tab closes its page or the stream is no longer wanted: the lock is released then.
  const hold = (takingOver: boolean) =>
    new Promise<void>((resolve) => {
      if (abort.signal.aborted) return resolve()
      release = resolve
      stop = open(publish, takingOver)
    })
  void navigator.locks.request(name, { ifAvailable: true }, (lock) => {
    if (lock !== null) return hold(false)
    return navigator.locks.request(name, { signal: abort.signal }, () => hold(true)).catch(() => undefined)
  }).catch(() => undefined)
  return () => {
    abort.abort()
    stop?.()
    release?.()
    channel.close()
  }
}
