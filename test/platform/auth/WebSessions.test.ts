import { HttpClient, HttpClientRequest } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { ApiKeys } from "../../../src/platform/auth/ApiKeys.js"
import { SESSION_COOKIE } from "../../../src/platform/auth/WebSessions.js"
import { Projects } from "../../../src/projects/Projects.js"
import { rawRequest, TestServer } from "../../support/TestServer.js"
import { createKey, seedOwner } from "../../support/Seed.js"

/** Issue 18, "Signing in": a browser holds a session cookie, never the API key. One-time links: SignInLinks.test.ts. */

const listProjects = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_projects", arguments: {} } })
const SAME_ORIGIN = "http://127.0.0.1"

/** Moves a user's sessions past their end, as the database's clock would. */
const expireAll = (table: "web_sessions", slug: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE ${sql(table)} SET expires_at = now() - interval '1 second' WHERE api_key_id IN (
      SELECT k.id FROM api_keys k JOIN users u ON u.id = k.user_id WHERE u.email = ${`owner@${slug}.test`})`)

const getPage = (path: string) => Effect.flatMap(HttpClient.HttpClient, (client) => client.get(path))

const signIn = (apiKey: string) => rawRequest({ path: "/api/web/session", body: JSON.stringify({ apiKey }) })

/** The session token a `Set-Cookie` answer opens, and the cookie's attributes. */
const cookieOf = (headers: Readonly<Record<string, string>>) => {
  const header = headers["set-cookie"] ?? ""
  const token = new RegExp(`^${SESSION_COOKIE}=([^;]*)`).exec(header)?.[1] ?? ""
  return { header, token }
}

const asSession = (token: string, headers: Record<string, string> = { origin: SAME_ORIGIN }) => ({
  cookie: `${SESSION_COOKIE}=${token}`,
  ...headers
})

const ProjectRefs = Schema.Struct({
  result: Schema.Struct({ structuredContent: Schema.Struct({ projects: Schema.Array(Schema.Struct({ ref: Schema.String })) }) })
})
const refsOf = (json: unknown) => Schema.decodeUnknownSync(ProjectRefs)(json).result.structuredContent.projects.map((p) => p.ref)

describe("browser sessions", () => {
  layer(TestServer())((it) => {
    it.effect("signing in with an API key sets an HttpOnly, SameSite=Strict session cookie and never echoes the key", () =>
      Effect.gen(function*() {
        const { key, user } = yield* seedOwner("web-signin")
        const res = yield* signIn(key)
        expect(res.status).toBe(200)
        expect(res.json).toMatchObject({ userId: user.id })
        const { header, token } = cookieOf(res.headers)
        expect(token.length).toBeGreaterThan(40)
        expect(header).toContain("HttpOnly")
        expect(header).toContain("SameSite=Strict")
        expect(header).toContain("Path=/")
        expect(header).toMatch(/Max-Age=604800/)
        expect(res.text + header).not.toContain(key)
      }))

    it.effect("a session is stored only as a digest of its token", () =>
      Effect.gen(function*() {
        const { key } = yield* seedOwner("web-digest")
        const { token } = cookieOf((yield* signIn(key)).headers)
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql`SELECT * FROM web_sessions`
        expect(rows.length).toBeGreaterThan(0)
        expect(JSON.stringify(rows)).not.toContain(token)
        expect(JSON.stringify(rows)).not.toContain(key)
      }))

    it.effect("the session cookie calls tools as its key: a narrowed key's session sees only its projects", () =>
      Effect.gen(function*() {
        const { organization, project, user } = yield* seedOwner("web-narrow")
        yield* (yield* Projects).create({ organizationId: organization.id, name: "Other", ref: "OTHER" })
        const narrowed = yield* createKey(user.id, [project.id])
        const wide = yield* createKey(user.id, null)
        const narrowedToken = cookieOf((yield* signIn(narrowed.secret)).headers).token
        const wideToken = cookieOf((yield* signIn(wide.secret)).headers).token
        const asNarrowed = yield* rawRequest({ body: listProjects, headers: asSession(narrowedToken) })
        expect(asNarrowed.status).toBe(200)
        expect(refsOf(asNarrowed.json)).toEqual(["MAIN"])
        expect(refsOf((yield* rawRequest({ body: listProjects, headers: asSession(wideToken) })).json)).toEqual(["MAIN", "OTHER"])
      }))

    it.effect("the session cookie signs the client HttpApi routes too (a thread's event stream), as its key would", () =>
      Effect.gen(function*() {
        const { key } = yield* seedOwner("web-httpapi")
        const { token } = cookieOf((yield* signIn(key)).headers)
        const path = "/api/threads/thr_00000000000000000000000000000000/events"
        expect((yield* getPage(path)).status).toBe(401)
        const signed = yield* Effect.flatMap(
          HttpClient.HttpClient,
          (client) => client.execute(HttpClientRequest.get(path).pipe(HttpClientRequest.setHeader("cookie", `${SESSION_COOKIE}=${token}`)))
        )
        expect(signed.status).toBe(404)
      }))

    it.effect("a session request that changes anything must carry an allowed Origin (CSRF): none or a foreign one is 403", () =>
      Effect.gen(function*() {
        const { key } = yield* seedOwner("web-csrf")
        const { token } = cookieOf((yield* signIn(key)).headers)
        const withoutOrigin = yield* rawRequest({ body: listProjects, headers: { cookie: `${SESSION_COOKIE}=${token}` } })
        expect(withoutOrigin.status).toBe(403)
        expect(withoutOrigin.text).toContain("Origin")
        const foreign = yield* rawRequest({ body: listProjects, headers: asSession(token, { origin: "https://evil.example" }) })
        expect(foreign.status).toBe(403)
        expect((yield* rawRequest({ body: listProjects, headers: asSession(token) })).status).toBe(200)
      }))

    it.effect("signing out ends the session and clears the cookie; the old cookie is then 401", () =>
      Effect.gen(function*() {
        const { key } = yield* seedOwner("web-signout")
        const { token } = cookieOf((yield* signIn(key)).headers)
        const out = yield* rawRequest({ method: "DELETE", path: "/api/web/session", headers: asSession(token) })
        expect(out.status).toBe(204)
        expect(out.headers["set-cookie"]).toMatch(new RegExp(`^${SESSION_COOKIE}=;.*Max-Age=0`))
        expect((yield* rawRequest({ body: listProjects, headers: asSession(token) })).status).toBe(401)
      }))

    it.effect("revoking the API key ends every session opened with it", () =>
      Effect.gen(function*() {
        const { key, principal } = yield* seedOwner("web-revoke")
        const { token } = cookieOf((yield* signIn(key)).headers)
        yield* (yield* ApiKeys).revoke(principal.apiKeyId)
        const res = yield* rawRequest({ body: listProjects, headers: asSession(token) })
        expect(res.status).toBe(401)
      }))

    it.effect("a session lasts 7 days; once expired it is 401", () =>
      Effect.gen(function*() {
        const { key } = yield* seedOwner("web-expiry")
        const { token } = cookieOf((yield* signIn(key)).headers)
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ readonly lifetime: number }>`
          SELECT extract(epoch FROM s.expires_at - s.created_at)::float8 AS lifetime FROM web_sessions s
          JOIN api_keys k ON k.id = s.api_key_id JOIN users u ON u.id = k.user_id WHERE u.email = 'owner@web-expiry.test'`
        expect(row?.lifetime).toBe(7 * 24 * 3600)
        yield* expireAll("web_sessions", "web-expiry")
        const res = yield* rawRequest({ body: listProjects, headers: asSession(token) })
        expect(res.status).toBe(401)
        expect(res.text).toContain("sign in again")
      }))

    it.effect("bad sign-in input names the field; a wrong key is 401 and opens nothing", () =>
      Effect.gen(function*() {
        const missing = yield* rawRequest({ path: "/api/web/session", body: "{}" })
        expect(missing.status).toBe(400)
        expect(missing.json).toMatchObject({ _tag: "InvalidArgument", message: expect.stringContaining("apiKey") })
        const wrong = yield* signIn("trellis_not_a_real_key")
        expect(wrong.status).toBe(401)
        expect(wrong.headers["set-cookie"]).toBeUndefined()
      }))
  })
})
