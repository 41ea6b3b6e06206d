import { describe, expect, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { SESSION_COOKIE } from "../../src/platform/auth/WebSessions.js"
import { Memberships } from "../../src/orgs/Memberships.js"
import { Users } from "../../src/orgs/Users.js"
import { WEB_ONLY_DELETE } from "../../src/prompts/PromptsHttp.js"
import { joinAs, ok, scopedTo } from "../support/TaskTools.js"
import { rawRequest, TestServer } from "../support/TestServer.js"
import { createKey, seedOwner } from "../support/Seed.js"

/** Issue 31 §4: SPEC's "deleting a prompt is web only" is `DELETE /api/prompts/:promptId`, for a browser session alone. */

const SAME_ORIGIN = "http://127.0.0.1"
const ErrorBody = Schema.Struct({ _tag: Schema.String, message: Schema.String })
const refusal = (json: unknown) => Schema.decodeUnknownSync(ErrorBody)(json)

/** A browser session opened with `apiKey`, as the sign-in page opens one. */
const sessionOf = (apiKey: string) =>
  Effect.gen(function*() {
    const signedIn = yield* rawRequest({ path: "/api/web/session", body: JSON.stringify({ apiKey }) })
    const token = new RegExp(`^${SESSION_COOKIE}=([^;]*)`).exec(signedIn.headers["set-cookie"] ?? "")?.[1] ?? ""
    expect(token).not.toBe("")
    return { cookie: `${SESSION_COOKIE}=${token}`, origin: SAME_ORIGIN }
  })

const remove = (promptId: string, headers: Record<string, string>) =>
  rawRequest({ method: "DELETE", path: `/api/prompts/${encodeURIComponent(promptId)}`, headers })

const keysOf = (key: string, args: Record<string, unknown>, scope = {}) =>
  Effect.map(ok(key, "list_prompts", args, scope), (result) => result.prompts.map((prompt) => prompt.key))

const createPrompt = (key: string, args: Record<string, unknown>, scope = {}) =>
  Effect.map(ok(key, "create_prompt", { content: "Review this", ...args }, scope), (result) => result.promptId)

describe("deleting a prompt (web only)", () => {
  layer(TestServer())((it) => {
    it.effect("a browser session deletes a project prompt: 204, and list_prompts no longer has it", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("prompt-del")
        const scope = scopedTo(project.id)
        const id = yield* createPrompt(key, { key: "review" }, scope)
        yield* createPrompt(key, { key: "standup" }, scope)
        const answer = yield* remove(id, yield* sessionOf(key))
        expect(answer.status, answer.text).toBe(204)
        expect(yield* keysOf(key, {}, scope)).toEqual(["standup"])
      }))

    it.effect("an organization owner's session deletes an organization prompt", () =>
      Effect.gen(function*() {
        const { key, organization } = yield* seedOwner("prompt-del-org")
        const id = yield* createPrompt(key, { key: "retro", scope: "organization", organization: organization.slug })
        expect((yield* remove(id, yield* sessionOf(key))).status).toBe(204)
        expect(yield* keysOf(key, { scope: "organization", organization: organization.slug })).toEqual([])
      }))

    it.effect("an API key is refused with 403 saying it is web only, and the prompt stays", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("prompt-del-key")
        const id = yield* createPrompt(key, { key: "review" }, scopedTo(project.id))
        const answer = yield* remove(id, { authorization: `Bearer ${key}` })
        expect(answer.status).toBe(403)
        expect(refusal(answer.json)).toEqual({ _tag: "Forbidden", message: WEB_ONLY_DELETE })
        expect(yield* keysOf(key, {}, scopedTo(project.id))).toEqual(["review"])
      }))

    it.effect("an unknown prompt is 404 naming promptId; a malformed ID is 400", () =>
      Effect.gen(function*() {
        const { key } = yield* seedOwner("prompt-del-unknown")
        const session = yield* sessionOf(key)
        const unknown = yield* remove(`prompt_${"0".repeat(32)}`, session)
        expect(unknown.status).toBe(404)
        expect(refusal(unknown.json).message).toMatch(/^promptId: prompt prompt_0+ not found$/)
        expect((yield* remove("not-a-prompt", session)).status).toBe(400)
      }))

    it.effect("a project viewer is 403 and a project member deletes; an organization member is 403 on an organization prompt", () =>
      Effect.gen(function*() {
        const { key, organization, project } = yield* seedOwner("prompt-del-roles")
        const scope = scopedTo(project.id)
        const first = yield* createPrompt(key, { key: "review" }, scope)
        const orgPrompt = yield* createPrompt(key, { key: "standup", scope: "organization", organization: organization.slug })
        const viewer = yield* joinAs(project.id, "prompt-del-roles-viewer", "viewer")
        const refused = yield* remove(first, yield* sessionOf(viewer.key))
        expect(refused.status).toBe(403)
        expect(refusal(refused.json).message).toContain("requires the project role admin or member; the caller is viewer")
        const member = yield* joinAs(project.id, "prompt-del-roles-member", "member")
        const memberSession = yield* sessionOf(member.key)
        // Not in the organization: its prompts are not there for this member at all.
        expect((yield* remove(orgPrompt, memberSession)).status).toBe(404)
        expect((yield* remove(first, memberSession)).status).toBe(204)
        const orgMember = yield* (yield* Users).create({ name: "Org member", email: "m@prompt-del-roles.test" })
        yield* (yield* Memberships).addToOrganization(organization.id, orgMember.id, "member")
        const orgRefused = yield* remove(orgPrompt, yield* sessionOf((yield* createKey(orgMember.id, null)).secret))
        expect(orgRefused.status).toBe(403)
        expect(refusal(orgRefused.json).message).toContain("owner or admin")
        expect(yield* keysOf(key, { scope: "organization", organization: organization.slug })).toEqual(["standup"])
      }))

    it.effect("the guard of every route: no credentials is 401, a session without Origin is 403, a read-only key's session is 403", () =>
      Effect.gen(function*() {
        const { key, project, user } = yield* seedOwner("prompt-del-guard")
        const id = yield* createPrompt(key, { key: "review" }, scopedTo(project.id))
        expect((yield* remove(id, {})).status).toBe(401)
        const { cookie } = yield* sessionOf(key)
        expect((yield* remove(id, { cookie })).status).toBe(403)
        const readOnly = yield* createKey(user.id, null, { readOnly: true })
        const refused = yield* remove(id, yield* sessionOf(readOnly.secret))
        expect(refused.status).toBe(403)
        expect(refusal(refused.json).message).toContain("read-only")
        expect(yield* keysOf(key, {}, scopedTo(project.id))).toEqual(["review"])
      }))
  })
})
