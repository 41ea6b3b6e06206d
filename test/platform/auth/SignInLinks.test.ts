import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { ApiKeys } from "../../../src/platform/auth/ApiKeys.js"
import { SESSION_COOKIE, WebSessions } from "../../../src/platform/auth/WebSessions.js"
import { rawRequest, TestServer } from "../../support/TestServer.js"
import { seedOwner } from "../../support/Seed.js"

/**
 * Issue 28 §5: one-time sign-in links. A refused link sends the browser to the app's sign-in page
 * saying why; a link and the page both return to the page asked for, never to another site; the
 * running server gives an API key a fresh link (`trellis admin signin-link`).
 */

const listProjects = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_projects", arguments: {} } })

const issue = (slug: string) =>
  Effect.gen(function*() {
    const owner = yield* seedOwner(slug)
    return { ...owner, link: yield* (yield* WebSessions).issueLink(owner.principal.apiKeyId) }
  })

const open = (path: string) => rawRequest({ method: "GET", path })

const sessionOf = (headers: Readonly<Record<string, string>>) =>
  new RegExp(`^${SESSION_COOKIE}=([^;]+)`).exec(headers["set-cookie"] ?? "")?.[1]

const expireLinks = (slug: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE sign_in_links SET expires_at = now() - interval '1 second' WHERE api_key_id IN (
      SELECT k.id FROM api_keys k JOIN users u ON u.id = k.user_id WHERE u.email = ${`owner@${slug}.test`})`)

const askLink = (key: string, body?: unknown) =>
  rawRequest({
    path: "/api/web/signin-link",
    headers: { authorization: `Bearer ${key}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })

describe("one-time sign-in links", () => {
  layer(TestServer())((it) => {
    it.effect("a link opens one session, once, and sends the browser to the app", () =>
      Effect.gen(function*() {
        const { link } = yield* issue("link-once")
        const first = yield* open(`/signin?token=${link}`)
        expect(first.status).toBe(303)
        expect(first.headers["location"]).toBe("/")
        const token = sessionOf(first.headers) ?? ""
        expect(
          (yield* rawRequest({ body: listProjects, headers: { cookie: `${SESSION_COOKIE}=${token}`, origin: "http://127.0.0.1" } })).status
        ).toBe(200)
      }))

    it.effect("a used link sends the browser to the sign-in page saying it was used, and opens no session", () =>
      Effect.gen(function*() {
        const { link } = yield* issue("link-used")
        yield* open(`/signin?token=${link}`)
        const again = yield* open(`/signin?token=${link}`)
        expect(again.status).toBe(303)
        expect(again.headers["location"]).toBe("/sign-in?reason=used")
        expect(again.headers["set-cookie"]).toBeUndefined()
      }))

    it.effect("a link lasts 10 minutes; an expired one sends the browser to the sign-in page saying it expired", () =>
      Effect.gen(function*() {
        const { link, principal } = yield* issue("link-expired")
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ readonly lifetime: number }>`
          SELECT extract(epoch FROM expires_at - now())::float8 AS lifetime FROM sign_in_links WHERE api_key_id = ${principal.apiKeyId}`
        expect(row?.lifetime).toBeGreaterThan(9 * 60)
        expect(row?.lifetime).toBeLessThanOrEqual(10 * 60)
        yield* expireLinks("link-expired")
        const res = yield* open(`/signin?token=${link}`)
        expect(res.status).toBe(303)
        expect(res.headers["location"]).toBe("/sign-in?reason=expired")
        expect(res.headers["set-cookie"]).toBeUndefined()
      }))

    it.effect("a used link that has also expired is reported as used", () =>
      Effect.gen(function*() {
        const { link } = yield* issue("link-used-expired")
        yield* open(`/signin?token=${link}`)
        yield* expireLinks("link-used-expired")
        expect((yield* open(`/signin?token=${link}`)).headers["location"]).toBe("/sign-in?reason=used")
      }))

    it.effect("an unknown token, or none, sends the browser to the sign-in page saying the link is not valid", () =>
      Effect.gen(function*() {
        for (const path of ["/signin?token=not-a-link", "/signin"]) {
          const res = yield* open(path)
          expect(res.status).toBe(303)
          expect(res.headers["location"]).toBe("/sign-in?reason=unknown")
          expect(res.headers["set-cookie"]).toBeUndefined()
        }
      }))

    it.effect("a link whose API key was revoked opens nothing and says so", () =>
      Effect.gen(function*() {
        const { link, principal } = yield* issue("link-revoked")
        yield* (yield* ApiKeys).revoke(principal.apiKeyId)
        const res = yield* open(`/signin?token=${link}`)
        expect(res.headers["location"]).toBe("/sign-in?reason=revoked")
        expect(res.headers["set-cookie"]).toBeUndefined()
      }))

    it.effect("a link's next= is kept: the session opens on that page, and a refusal keeps it for the sign-in page", () =>
      Effect.gen(function*() {
        const { link } = yield* issue("link-next")
        const next = "/projects/proj_1/threads/thr_2?tab=x"
        const first = yield* open(`/signin?token=${link}&next=${encodeURIComponent(next)}`)
        expect(first.headers["location"]).toBe(next)
        expect(sessionOf(first.headers)).toBeDefined()
        const again = yield* open(`/signin?token=${link}&next=${encodeURIComponent(next)}`)
        expect(again.headers["location"]).toBe(`/sign-in?reason=used&next=${encodeURIComponent(next)}`)
      }))

    it.effect("a link never redirects off the app: next= that is not a single-slash path of this origin is dropped", () =>
      Effect.gen(function*() {
        const { principal } = yield* seedOwner("link-open-redirect")
        const sessions = yield* WebSessions
        for (
          const next of [
            "//evil.example/x",
            "https://evil.example/",
            "/\\evil.example",
            "/\t/evil.example",
            "evil.example",
            "javascript:alert(1)",
            "/sign-in"
          ]
        ) {
          const link = yield* sessions.issueLink(principal.apiKeyId)
          const res = yield* open(`/signin?token=${link}&next=${encodeURIComponent(next)}`)
          expect(res.status).toBe(303)
          expect(res.headers["location"]).toBe("/")
          expect(sessionOf(res.headers)).toBeDefined()
          const refused = yield* open(`/signin?token=${link}&next=${encodeURIComponent(next)}`)
          expect(refused.headers["location"]).toBe("/sign-in?reason=used")
        }
      }))

    it.effect("an API key gets a fresh link from the running server, with its next=; the link signs in as that key", () =>
      Effect.gen(function*() {
        const { key } = yield* seedOwner("link-fresh")
        const asked = yield* askLink(key, { next: "/projects/p/threads" })
        expect(asked.status).toBe(200)
        expect(asked.headers["cache-control"]).toBe("no-store")
        const { path } = Schema.decodeUnknownSync(Schema.Struct({ path: Schema.String }))(asked.json)
        expect(path).toMatch(/^\/signin\?token=[A-Za-z0-9_-]{40,}&next=%2Fprojects%2Fp%2Fthreads$/)
        const opened = yield* open(path)
        expect(opened.headers["location"]).toBe("/projects/p/threads")
        expect(sessionOf(opened.headers)).toBeDefined()
        const plain = yield* askLink(key)
        expect(plain.status).toBe(200)
        expect(JSON.stringify(plain.json)).not.toContain("next")
      }))

    it.effect("a fresh link needs an API key: none is 401, a browser session is 401, a next= off the app is 400", () =>
      Effect.gen(function*() {
        const { key } = yield* seedOwner("link-fresh-refused")
        expect((yield* rawRequest({ path: "/api/web/signin-link" })).status).toBe(401)
        const signedIn = yield* rawRequest({ path: "/api/web/session", body: JSON.stringify({ apiKey: key }) })
        const session = sessionOf(signedIn.headers) ?? ""
        const bySession = yield* rawRequest({
          path: "/api/web/signin-link",
          headers: { cookie: `${SESSION_COOKIE}=${session}`, origin: "http://127.0.0.1" }
        })
        expect(bySession.status).toBe(401)
        expect(bySession.text).toContain("API key")
        const offsite = yield* askLink(key, { next: "//evil.example" })
        expect(offsite.status).toBe(400)
        expect(offsite.json).toMatchObject({ _tag: "InvalidArgument", message: expect.stringContaining("next") })
      }))
  })
})
