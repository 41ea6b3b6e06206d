/**
 * "Viewed" per file, kept in the browser: a file is viewed while the diff the person marked is the
 * diff shown. The mark holds a hash of that patch, so a later report that changes the file's diff
 * turns it back to unviewed by itself, and one that leaves it alone keeps it viewed.
 */
const key = (threadId: string, path: string) => `trellis.viewed.${threadId}.${path}`

/** FNV-1a: a short fingerprint of a patch, not a secret. */
export const fingerprint = (text: string): string => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return (hash >>> 0).toString(16)
}

export const isViewed = (threadId: string, path: string, diff: string): boolean => {
  try {
    return window.localStorage.getItem(key(threadId, path)) === fingerprint(diff)
  } catch {
    return false
  }
}

export const setViewed = (threadId: string, path: string, diff: string, viewed: boolean): void => {
  try {
    if (viewed) window.localStorage.setItem(key(threadId, path), fingerprint(diff))
    else window.localStorage.removeItem(key(threadId, path))
  } catch {
    // Storage full or refused: the mark lasts as long as the page.
  }
}
