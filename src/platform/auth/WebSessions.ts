import * as Cookies from "@effect/platform/Cookies"
import { SqlClient } from "@effect/sql"
import { Duration, Effect, Option, Redacted, Schema } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { SESSION_COOKIE } from "../../../catalog/bridge/Authentication.js"
import { ApiKeyId } from "../../../catalog/domain/Ids.js"
import { SignInLinkReason } from "../../../catalog/domain/SignIn.js"
import { ApiKeys, decodePrincipals, principalColumns, Unauthorized } from "./ApiKeys.js"
import type { Principal } from "./Principal.js"

export { SESSION_COOKIE }
/** How long a browser session lasts before the person signs in again. */
export const SESSION_TTL = Duration.days(7)
/** How long a one-time sign-in link (`trellis serve`'s banner) may wait to be opened. */
export const LINK_TTL = Duration.minutes(10)

const sha256 = (secret: string) => createHash("sha256").update(secret).digest("hex")
const newToken = () => randomBytes(32).toString("base64url")

const decodeExpiry = Schema.decodeUnknown(Schema.Array(Schema.Struct({ expiresAt: Schema.DateFromSelf })))
const decodeKeyIds = Schema.decodeUnknown(Schema.Array(Schema.Struct({ apiKeyId: ApiKeyId })))
const decodeLinkStates = Schema.decodeUnknown(
  Schema.Array(Schema.Struct({ used: Schema.Boolean, expired: Schema.Boolean, revoked: Schema.Boolean }))
)

/** A one-time sign-in link that opened nothing, and why: the browser is sent to the app's sign-in page with the reason. */
export class SignInLinkRefused extends Schema.TaggedError<SignInLinkRefused>()("SignInLinkRefused", {
  reason: SignInLinkReason,
  message: Schema.String
}) {}

const refusalMessage: Record<SignInLinkReason, string> = {
  used: "This sign-in link was already used: a link opens one session, once",
  expired: `This sign-in link has expired: a link lasts ${Duration.toMinutes(LINK_TTL)} minutes`,
  revoked: "The API key of this sign-in link was revoked",
  unknown: "This is not a sign-in link of this server"
}

/** The `Set-Cookie` value that opens (or, with `null`, ends) the session in the browser. */
export const sessionCookie = (token: string | null, options: { readonly secure: boolean }): string =>
  Cookies.serializeCookie(Cookies.unsafeMakeCookie(SESSION_COOKIE, token ?? "", {
    httpOnly: true,
    sameSite: "strict",
    path: "/",
    secure: options.secure,
    maxAge: token === null ? 0 : SESSION_TTL
  }))

/** The session token a request's `Cookie` header carries, if any. */
export const sessionToken = (cookieHeader: string | undefined): string | undefined =>
  cookieHeader === undefined ? undefined : Cookies.parseHeader(cookieHeader)[SESSION_COOKIE] || undefined

/**
 * Browser sessions: a person signs in once with an API key (or a one-time link) and the browser
 * holds only an opaque session token in an HttpOnly cookie, never the key. A session acts as the
 * key it was opened with — the same projects, the same permission checks — and ends when it
 * expires, when the person signs out, or when that key is revoked. Only SHA-256 digests are stored.
 */
export class WebSessions extends Effect.Service<WebSessions>()("trellis/WebSessions", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const apiKeys = yield* ApiKeys

    // Times are the database's, so every backend instance agrees on when a session ends.
    const interval = (ttl: Duration.Duration) => `${Duration.toMillis(ttl)} milliseconds`

    const open = (apiKeyId: ApiKeyId) =>
      Effect.gen(function*() {
        const token = newToken()
        const rows = yield* sql`INSERT INTO web_sessions (token_sha256, api_key_id, expires_at)
          VALUES (${sha256(token)}, ${apiKeyId}, now() + ${interval(SESSION_TTL)}::interval)
          RETURNING expires_at AS "expiresAt"`.pipe(Effect.flatMap(decodeExpiry), Effect.orDie)
        return { token, expiresAt: rows[0]?.expiresAt ?? new Date() }
      })

    /** Opens a session for an API key; the key itself is not kept. */
    const signIn = Effect.fn("WebSessions.signIn")(function*(apiKey: Redacted.Redacted<string>) {
      const principal = yield* apiKeys.authenticate(Redacted.value(apiKey))
      return { ...(yield* open(principal.apiKeyId)), principal }
    })

    /** The principal of a live session: its key's, while neither the session nor the key has ended. */
    const authenticate = (token: string): Effect.Effect<Principal, Unauthorized> =>
      Effect.gen(function*() {
        const digest = sha256(token)
        const rows = yield* sql`
          SELECT ${principalColumns(sql)}
          FROM web_sessions s JOIN api_keys k ON k.id = s.api_key_id
          WHERE s.token_sha256 = ${digest} AND s.ended_at IS NULL AND s.expires_at > now()
            AND k.revoked_at IS NULL`.pipe(Effect.flatMap(decodePrincipals), Effect.orDie)
        return yield* Option.match(Option.fromNullable(rows[0]), {
          onNone: () => Effect.fail(new Unauthorized({ message: "The session has ended or expired: sign in again" })),
          onSome: (principal) => Effect.succeed({ ...principal, webSessionId: digest })
        })
      })

    /** Ends a session; ending one that has already ended changes nothing. */
    const signOut = Effect.fn("WebSessions.signOut")(function*(token: string) {
      yield* sql`UPDATE web_sessions SET ended_at = now() WHERE token_sha256 = ${sha256(token)} AND ended_at IS NULL`.pipe(Effect.orDie)
    })

    /** A one-time sign-in link's token for a key: it opens one session, once, within LINK_TTL (`trellis serve`'s banner, `trellis admin signin-link`). */
    const issueLink = Effect.fn("WebSessions.issueLink")(function*(apiKeyId: ApiKeyId) {
      const token = newToken()
      yield* sql`INSERT INTO sign_in_links (token_sha256, api_key_id, expires_at)
        VALUES (${sha256(token)}, ${apiKeyId}, now() + ${interval(LINK_TTL)}::interval)`.pipe(Effect.orDie)
      return token
    })

    /**
     * Uses a sign-in link: the one UPDATE that marks it used is what makes a second use fail. A used
     * link's digest stays, so a second use is told apart from an expired or unknown link.
     */
    const redeemLink = Effect.fn("WebSessions.redeemLink")(function*(token: string) {
      const digest = sha256(token)
      const rows = yield* sql`
        UPDATE sign_in_links l SET used_at = now()
        FROM api_keys k
        WHERE l.token_sha256 = ${digest} AND l.used_at IS NULL AND l.expires_at > now()
          AND k.id = l.api_key_id AND k.revoked_at IS NULL
        RETURNING l.api_key_id AS "apiKeyId"`.pipe(Effect.flatMap(decodeKeyIds), Effect.orDie)
      const row = rows[0]
      if (row === undefined) {
        const [state] = yield* sql`
          SELECT l.used_at IS NOT NULL AS used, l.expires_at <= now() AS expired, k.revoked_at IS NOT NULL AS revoked
          FROM sign_in_links l JOIN api_keys k ON k.id = l.api_key_id
          WHERE l.token_sha256 = ${digest}`.pipe(Effect.flatMap(decodeLinkStates), Effect.orDie)
        const reason: SignInLinkReason = state === undefined
          ? "unknown"
          : state.used
          ? "used"
          : state.expired
          ? "expired"
          : state.revoked
          ? "revoked"
          : "unknown"
        return yield* new SignInLinkRefused({ reason, message: refusalMessage[reason] })
      }
      return yield* open(row.apiKeyId)
    })

    return { signIn, authenticate, signOut, issueLink, redeemLink } as const
  }),
  dependencies: [ApiKeys.Default]
}) {}
