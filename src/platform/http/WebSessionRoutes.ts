import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Redacted, Schema } from "effect"
import { returnPath, signInPagePath } from "../../../catalog/domain/SignIn.js"
import { ApiKeys } from "../auth/ApiKeys.js"
import { sessionCookie, sessionToken, WebSessions } from "../auth/WebSessions.js"
import { TrellisConfig } from "../TrellisConfig.js"
import { bearerToken, SIGN_IN_PATH } from "./RequestGuard.js"

/** Where `trellis admin signin-link` asks the running server for a fresh one-time link. */
export const SIGN_IN_LINK_PATH = "/api/web/signin-link"

const SignInBody = Schema.Struct({ apiKey: Schema.String.pipe(Schema.pattern(/^trellis_\S+$/)) })
const decodeSignIn = Schema.decodeUnknown(SignInBody)
const LinkBody = Schema.Struct({ next: Schema.optional(Schema.String) })
const decodeLink = Schema.decodeUnknown(Schema.parseJson(LinkBody))

const refusal = (status: number, _tag: string, message: string) => HttpServerResponse.unsafeJson({ _tag, message }, { status })

const seeOther = (location: string) =>
  HttpServerResponse.empty({ status: 303 }).pipe(
    HttpServerResponse.setHeader("location", location),
    HttpServerResponse.setHeader("cache-control", "no-store")
  )

/**
 * How a browser signs in and out: `POST /api/web/session` exchanges an API key for a session
 * cookie, `DELETE` ends it, and `GET /signin?token=…` opens a session from a one-time link. The key
 * never reaches the page's storage: the answer carries only the HttpOnly cookie. A refused link
 * sends the browser to the app's sign-in page with the reason (docs/decisions.md, "Refused sign-in
 * links"); `POST /api/web/signin-link` gives the caller's API key a fresh link.
 */
export const WebSessionRoutes = HttpLayerRouter.use((router) =>
  Effect.gen(function*() {
    const sessions = yield* WebSessions
    const apiKeys = yield* ApiKeys
    const config = yield* TrellisConfig
    const secure = config.publicUrl.startsWith("https:")
    const withCookie = (token: string | null) => HttpServerResponse.setHeader("set-cookie", sessionCookie(token, { secure }))

    yield* router.add(
      "POST",
      SIGN_IN_PATH,
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const body = yield* request.json.pipe(Effect.flatMap(decodeSignIn), Effect.either)
        if (body._tag === "Left") {
          return refusal(400, "InvalidArgument", "apiKey: required, a Trellis API key (trellis_…) in a JSON body { \"apiKey\": … }")
        }
        return yield* sessions.signIn(Redacted.make(body.right.apiKey)).pipe(
          Effect.map((session) =>
            HttpServerResponse.unsafeJson({ userId: session.principal.userId, expiresAt: session.expiresAt.toISOString() }).pipe(
              withCookie(session.token),
              HttpServerResponse.setHeader("cache-control", "no-store")
            )
          ),
          Effect.catchTag("Unauthorized", (error) => Effect.succeed(refusal(401, "Unauthorized", error.message)))
        )
      })
    )

    yield* router.add(
      "DELETE",
      SIGN_IN_PATH,
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const token = sessionToken(request.headers["cookie"])
        if (token !== undefined) yield* sessions.signOut(token)
        return HttpServerResponse.empty({ status: 204 }).pipe(withCookie(null))
      })
    )

    yield* router.add(
      "GET",
      "/signin",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const query = new URL(request.url, "http://trellis.invalid").searchParams
        const next = returnPath(query.get("next"))
        return yield* sessions.redeemLink(query.get("token") ?? "").pipe(
          Effect.map((session) => seeOther(next ?? "/").pipe(withCookie(session.token))),
          Effect.catchTag("SignInLinkRefused", (refused) => Effect.succeed(seeOther(signInPagePath({ reason: refused.reason, next }))))
        )
      })
    )

    // An API key only: a session that could mint links would outlive its 7 days.
    yield* router.add(
      "POST",
      SIGN_IN_LINK_PATH,
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const key = bearerToken(request.headers["authorization"])
        if (key === undefined) {
          return refusal(401, "Unauthorized", "A sign-in link is issued to an API key (Authorization: Bearer), not to a browser session")
        }
        const body = yield* request.text.pipe(
          Effect.flatMap((text) => text.trim() === "" ? Effect.succeed<typeof LinkBody.Type>({}) : decodeLink(text)),
          Effect.either
        )
        if (body._tag === "Left") return refusal(400, "InvalidArgument", "body: optional JSON { \"next\": \"/a/path/of/the/app\" }")
        const next = body.right.next === undefined ? undefined : returnPath(body.right.next)
        if (body.right.next !== undefined && next === undefined) {
          return refusal(400, "InvalidArgument", "next: a path of this app, starting with a single /")
        }
        return yield* apiKeys.authenticate(key).pipe(
          Effect.flatMap((principal) => sessions.issueLink(principal.apiKeyId)),
          Effect.map((token) => {
            const query = new URLSearchParams({ token })
            if (next !== undefined) query.set("next", next)
            return HttpServerResponse.unsafeJson({ path: `/signin?${query.toString()}` }).pipe(
              HttpServerResponse.setHeader("cache-control", "no-store")
            )
          }),
          Effect.catchTag("Unauthorized", (error) => Effect.succeed(refusal(401, "Unauthorized", error.message)))
        )
      })
    )
  })
)
