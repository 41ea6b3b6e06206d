import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { ApiKeys } from "../../src/platform/auth/ApiKeys.js"
import { Memberships } from "../../src/orgs/Memberships.js"
import { Projects } from "../../src/projects/Projects.js"
import { Users } from "../../src/orgs/Users.js"
import { callTool, rawRequest, TestServer } from "../support/TestServer.js"
import { createKey, seedOwner } from "../support/Seed.js"

const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" })

const expectUnauthorized = (res: { status: number; headers: Readonly<Record<string, string>>; json: unknown }) => {
  expect(res.status).toBe(401)
  expect(res.headers["www-authenticate"]).toMatch(/^Bearer /)
  expect(res.json).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32001 } })
}

type ListProjectsResult = { result: { structuredContent: { projects: Array<{ ref: string; role: string }> } } }

describe("API key authentication", () => {
  layer(TestServer())((it) => {
    it.effect("a request without an Authorization header is 401 with WWW-Authenticate: Bearer and -32001", () =>
      Effect.gen(function*() {
        expectUnauthorized(yield* rawRequest({ body: ping }))
      }))

    it.effect("a wrong or malformed key is 401", () =>
      Effect.gen(function*() {
        for (const key of ["trellis_not-a-real-key", "sk-something-else"]) {
          const res = yield* rawRequest({ body: ping, headers: { authorization: `Bearer ${key}` } })
          expectUnauthorized(res)
          expect(res.headers["www-authenticate"]).toContain("error=\"invalid_token\"")
        }
      }))

    it.effect("a revoked key is 401 from the next request on", () =>
      Effect.gen(function*() {
        const { key, principal } = yield* seedOwner("revoked")
        expect((yield* rawRequest({ body: ping, headers: { authorization: `Bearer ${key}` } })).status).toBe(200)
        yield* (yield* ApiKeys).revoke(principal.apiKeyId)
        expectUnauthorized(yield* rawRequest({ body: ping, headers: { authorization: `Bearer ${key}` } }))
      }))

    it.effect("a key is stored only as a SHA-256 hash and records its last use", () =>
      Effect.gen(function*() {
        const { key, user } = yield* seedOwner("hashed")
        yield* callTool(key, "list_projects")
        const [record] = yield* (yield* ApiKeys).list(user.id)
        expect(record?.lastUsedAt).toBeInstanceOf(Date)
        expect(record?.prefix).toBe(key.slice(0, record?.prefix.length))
        expect(JSON.stringify(record)).not.toContain(key.slice(record?.prefix.length ?? 0))
      }))

    it.effect("list_projects shows the projects the user can access, with the effective role", () =>
      Effect.gen(function*() {
        const { key, organization, user } = yield* seedOwner("lister")
        const projects = yield* Projects
        yield* projects.create({ organizationId: organization.id, name: "Second", ref: "SECOND" })
        const res = yield* callTool(key, "list_projects", {})
        const listed = (res.json as ListProjectsResult).result.structuredContent.projects
        expect(listed.map((project) => project.ref)).toEqual(["MAIN", "SECOND"])
        expect(listed.every((project) => project.role === "admin")).toBe(true)

        const other = yield* seedOwner("elsewhere")
        const member = yield* (yield* Users).create({ name: "Member", email: "member@lister.test" })
        yield* (yield* Memberships).addToProject(other.project.id, member.id, "viewer")
        const memberKey = yield* createKey(member.id, null)
        const seen = (((yield* callTool(memberKey.secret, "list_projects")).json) as ListProjectsResult).result.structuredContent.projects
        expect(seen).toEqual([expect.objectContaining({ ref: "MAIN", role: "viewer" })])
        expect(user.id).not.toBe(member.id)
      }))

    it.effect("a key narrowed to some projects sees only those", () =>
      Effect.gen(function*() {
        const { organization, user } = yield* seedOwner("narrow")
        const second = yield* (yield* Projects).create({ organizationId: organization.id, name: "Second", ref: "SECOND" })
        const narrowed = yield* createKey(user.id, [second.id])
        const res = yield* callTool(narrowed.secret, "list_projects")
        expect((res.json as ListProjectsResult).result.structuredContent.projects.map((project) => project.ref)).toEqual(["SECOND"])
      }))
  })
})
