import * as HttpApiError from "@effect/platform/HttpApiError"
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import { CurrentPrincipal } from "../domain/Principal.js"

/** The browser's session cookie (HttpOnly, SameSite=Strict): how a page is signed in without holding a key. */
export const SESSION_COOKIE = "trellis_session"

/** An API key (`Authorization: Bearer`), else a browser session's cookie. */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("trellis/Authentication", {
  failure: HttpApiError.Unauthorized,
  provides: CurrentPrincipal,
  security: { bearer: HttpApiSecurity.bearer, session: HttpApiSecurity.apiKey({ in: "cookie", key: SESSION_COOKIE }) }
}) {}
