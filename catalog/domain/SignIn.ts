import { Schema } from "effect"

/**
 * Signing in, as the server, the web app and `trellis admin signin-link` agree on it: where a
 * refused one-time link sends the browser, why it was refused, and which return paths are kept.
 */

/** The web app's sign-in page: `?reason=` when a one-time link was refused, `?next=` the page to return to. */
export const SIGN_IN_PAGE = "/sign-in"

/** Why a one-time sign-in link opened nothing. */
export const SignInLinkReason = Schema.Literal("used", "expired", "revoked", "unknown")
export type SignInLinkReason = typeof SignInLinkReason.Type

const ORIGIN = "http://trellis.invalid"

/**
 * The page to return to after signing in, if `next` is a path of this app: it starts with a
 * single `/` and stays on the same origin once a browser resolves it (`//evil.example` and
 * `/\evil.example` do not), so a crafted link cannot send a fresh session's browser elsewhere.
 * The sign-in page itself is not a place to return to.
 */
export const returnPath = (next: string | null | undefined): string | undefined => {
  if (next === null || next === undefined || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return undefined
  // Browsers drop tabs and newlines inside URLs, which would turn "/\t/evil" into "//evil".
  if (/[\u0000-\u001f\u007f\\]/.test(next)) return undefined
  let url: URL
  try {
    url = new URL(next, ORIGIN)
  } catch {
    return undefined
  }
  if (url.origin !== ORIGIN || url.pathname === SIGN_IN_PAGE || url.pathname === "/signin") return undefined
  return url.pathname + url.search + url.hash
}

/** The sign-in page's address for a refused link and the page asked for. */
export const signInPagePath = (options: { readonly reason?: SignInLinkReason | undefined; readonly next?: string | undefined }): string => {
  const query = new URLSearchParams()
  if (options.reason !== undefined) query.set("reason", options.reason)
  const next = returnPath(options.next)
  if (next !== undefined) query.set("next", next)
  const search = query.toString()
  return search === "" ? SIGN_IN_PAGE : `${SIGN_IN_PAGE}?${search}`
}
