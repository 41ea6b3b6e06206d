import { HttpLayerRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Redacted, Schema } from "effect"
import { sessionCookie, sessionToken, WebSessions } from "../auth/WebSessions.js"
import { TrellisConfig } from "../TrellisConfig.js"
import { SIGN_IN_PATH } from "./RequestGuard.js"

const SignInBody = Schema.Struct({ apiKey: Schema.String.pipe(Schema.pattern(/^trellis_\S+$/)) })
const decodeSignIn = Schema.decodeUnknown(SignInBody)

const refusal = (status: number, _tag: string, message: string) => HttpServerResponse.unsafeJson({ _tag, message }, { status })

const page = (status: number, title: string, text: string) =>
  HttpServerResponse.html(`<!doctype html><meta charset="utf-8"><title>${title}</title><h1>${title}</h1><p>${text}</p>`).pipe(
    HttpServerResponse.setStatus(status),
    HttpServerResponse.setHeader("cache-control", "no-store")
  )

/**
 * How a browser signs in and out: `POST /api/web/session` exchanges an API key for a session
 * cookie, `DELETE` ends it, and `GET /signin?token=…` opens a session from a one-time link. The key
 * never reaches the page's storage: the answer carries only the HttpOnly cookie.
 */
export const WebSessionRoutes = HttpLayerRouter.use((router) =>
  Effect.gen(function* () {
    const sessions = yield* WebSessions
    const config = yield* TrellisConfig
    const secure = config.publicUrl.startsWith("https:")
    const withCookie = (token: string | null) => HttpServerResponse.setHeader("set-cookie", sessionCookie(token, { secure }))

    yield* router.add("POST", SIGN_IN_PATH, Effect.gen(function* () {
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
          )),
        Effect.catchTag("Unauthorized", (error) => Effect.succeed(refusal(401, "Unauthorized", error.message)))
      )
    }))

    yield* router.add("DELETE", SIGN_IN_PATH, Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const token = sessionToken(request.headers["cookie"])
      if (token !== undefined) yield* sessions.signOut(token)
      return HttpServerResponse.empty({ status: 204 }).pipe(withCookie(null))
    }))

    yield* router.add("GET", "/signin", Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const token = new URL(request.url, "http://trellis.invalid").searchParams.get("token") ?? ""
      return yield* sessions.redeemLink(token).pipe(
        Effect.map((session) =>
          HttpServerResponse.empty({ status: 303 }).pipe(
            HttpServerResponse.setHeader("location", "/"),
            HttpServerResponse.setHeader("cache-control", "no-store"),
            withCookie(session.token)
          )),
        Effect.catchTag("Unauthorized", (error) => Effect.succeed(page(401, "Sign-in link not valid", error.message)))
      )
    }))
  })
)
