import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Catalog } from "../../catalog/index.js"
import type { OrganizationId, ProjectId } from "../../catalog/domain/Ids.js"
import { PromptId } from "../../catalog/domain/Ids.js"
import type { OrganizationRole, ProjectRole } from "../../catalog/domain/Roles.js"
import { Memberships } from "../../src/orgs/Memberships.js"
import { Projects } from "../../src/projects/Projects.js"
import { Prompts } from "../../src/prompts/Prompts.js"
import { type ScopeAccess, Scopes } from "../../src/projects/Scopes.js"
import { Users } from "../../src/orgs/Users.js"
import { organizationScope, projectScope, seedScopes } from "../support/ScopeFixtures.js"
import { ServiceTest } from "../support/ServiceTest.js"
import { createKey, seedOwner } from "../support/Seed.js"

/** A fresh organization and project with the owner's two scopes, and the Prompts service. */
const seed = (slug: string) =>
  Effect.gen(function*() {
    return { ...(yield* seedScopes(slug)), prompts: yield* Prompts }
  })

/** A new user with an unnarrowed key, in the project and/or the organization with the roles given. */
const newMember = (
  slug: string,
  roles: { readonly project?: readonly [ProjectId, ProjectRole]; readonly organization?: readonly [OrganizationId, OrganizationRole] }
) =>
  Effect.gen(function*() {
    const user = yield* (yield* Users).create({ name: `User of ${slug}`, email: `user@${slug}.test` })
    const memberships = yield* Memberships
    if (roles.project !== undefined) yield* memberships.addToProject(roles.project[0], user.id, roles.project[1])
    if (roles.organization !== undefined) yield* memberships.addToOrganization(roles.organization[0], user.id, roles.organization[1])
    return (yield* createKey(user.id, null)).principal
  })

const keysOf = (scope: ScopeAccess) =>
  Effect.map(Effect.flatMap(Prompts, (prompts) => prompts.list(scope)), (rows) => rows.map((row) => row.key))

describe("Prompts", () => {
  layer(ServiceTest(Layer.mergeAll(Prompts.Default, Scopes.Default)))((it) => {
    it.effect("create returns the new prompt's ID; list returns the Prompt fields by key; autoExpand and autoSubmit default false", () =>
      Effect.gen(function*() {
        const { prompts, scopes, organization, project } = yield* seed("pr-create")
        const plain = yield* prompts.create(scopes.project, { key: "review", content: "Review this" })
        const every = {
          key: "git:commit",
          content: "Commit",
          description: "Commit helper",
          category: "git",
          autoExpand: true,
          autoSubmit: true
        }
        const full = yield* prompts.create(scopes.project, every)
        expect(plain).toMatch(/^prompt_[0-9a-f]{32}$/)
        const filed = { scope: "project", organizationId: organization.id, projectId: project.id }
        expect(yield* prompts.list(scopes.project)).toEqual([
          { id: full, ...filed, ...every },
          {
            id: plain,
            ...filed,
            key: "review",
            description: null,
            category: null,
            content: "Review this",
            autoExpand: false,
            autoSubmit: false
          }
        ])
      }))

    it.effect("an organization prompt is filed under the organization, apart from every project's prompts", () =>
      Effect.gen(function*() {
        const { prompts, scopes, organization } = yield* seed("pr-org")
        const id = yield* prompts.create(scopes.organization, { key: "standup", content: "What did you do?" })
        expect(yield* prompts.list(scopes.organization)).toEqual([
          expect.objectContaining({ id, scope: "organization", organizationId: organization.id, projectId: null, key: "standup" })
        ])
        expect(yield* prompts.list(scopes.project)).toEqual([])
      }))

    it.effect("a key is 2–40 characters of lowercase letters, digits, hyphens and colons, without a leading slash", () =>
      Effect.gen(function*() {
        const { principal, prompts, scopes } = yield* seed("pr-keys")
        const good = ["ab", "a".repeat(40), "deploy:prod-2", "9-:"]
        for (const key of good) yield* prompts.create(scopes.project, { key, content: "x" })
        expect(yield* Effect.flip(prompts.create(scopes.project, { key: "/review", content: "x" }))).toMatchObject({
          _tag: "InvalidArgument",
          message: "key: \"/review\" must not start with a slash"
        })
        for (const key of ["a", "a".repeat(41), "Review", "re view", "re_view", "ré", ""]) {
          expect(yield* Effect.flip(prompts.create(scopes.project, { key, content: "x" })), key).toMatchObject({
            _tag: "InvalidArgument",
            message: expect.stringMatching(/^key: .*2–40 characters/)
          })
        }
        const [first] = yield* prompts.list(scopes.project)
        for (const key of ["/ab", "A1"]) {
          expect(yield* Effect.flip(prompts.update(principal, first?.id ?? PromptId.generate(), { key }))).toMatchObject({
            _tag: "InvalidArgument"
          })
        }
        expect((yield* keysOf(scopes.project)).sort()).toEqual([...good].sort())
      }))

    it.effect("content must not be empty, on create and update", () =>
      Effect.gen(function*() {
        const { principal, prompts, scopes } = yield* seed("pr-content")
        expect(yield* Effect.flip(prompts.create(scopes.project, { key: "review", content: "" }))).toMatchObject({
          _tag: "InvalidArgument",
          message: "content: must not be empty"
        })
        const id = yield* prompts.create(scopes.project, { key: "review", content: "Review" })
        expect(yield* Effect.flip(prompts.update(principal, id, { content: "" }))).toMatchObject({ _tag: "InvalidArgument" })
        expect((yield* prompts.list(scopes.project))[0]?.content).toBe("Review")
      }))

    it.effect("a key is unique per scope owner: the project, the organization and another project each have their own", () =>
      Effect.gen(function*() {
        const { organization, principal, prompts, scopes } = yield* seed("pr-unique")
        const other = yield* (yield* Projects).create({ organizationId: organization.id, name: "Other", ref: "OTHER" })
        yield* prompts.create(scopes.project, { key: "review", content: "x" })
        expect(yield* Effect.flip(prompts.create(scopes.project, { key: "review", content: "again" }))).toMatchObject({
          _tag: "Conflict",
          message: "key: project MAIN already has a prompt /review"
        })
        yield* prompts.create(yield* projectScope(principal, other.id), { key: "review", content: "x" })
        yield* prompts.create(scopes.organization, { key: "review", content: "x" })
        expect(yield* Effect.flip(prompts.create(scopes.organization, { key: "review", content: "x" }))).toMatchObject({
          _tag: "Conflict",
          message: "key: organization pr-unique already has a prompt /review"
        })
      }))

    it.effect("update changes only the fields given; null clears description and category", () =>
      Effect.gen(function*() {
        const { principal, prompts, scopes } = yield* seed("pr-update")
        const id = yield* prompts.create(scopes.project, {
          key: "review",
          content: "Review",
          description: "Reviews",
          category: "code",
          autoExpand: true
        })
        const [before] = yield* prompts.list(scopes.project)
        yield* prompts.update(principal, id, {})
        expect(yield* prompts.list(scopes.project)).toEqual([before])
        yield* prompts.update(principal, id, { content: "Review carefully" })
        expect(yield* prompts.list(scopes.project)).toEqual([{ ...before, content: "Review carefully" }])
        const rest = { key: "deep-review", autoExpand: false, autoSubmit: true, description: null, category: null }
        yield* prompts.update(principal, id, rest)
        expect(yield* prompts.list(scopes.project)).toEqual([{ ...before, content: "Review carefully", ...rest }])
      }))

    it.effect("update keeps the stored prompt in its own scope, where its new key must be unique", () =>
      Effect.gen(function*() {
        const { principal, prompts, scopes } = yield* seed("pr-update-scope")
        const standup = yield* prompts.create(scopes.organization, { key: "standup", content: "x" })
        yield* prompts.create(scopes.organization, { key: "retro", content: "x" })
        yield* prompts.create(scopes.project, { key: "planning", content: "x" })
        expect(yield* Effect.flip(prompts.update(principal, standup, { key: "retro" }))).toMatchObject({
          _tag: "Conflict",
          message: "key: organization pr-update-scope already has a prompt /retro"
        })
        // A key used only in a project is free in the organization.
        yield* prompts.update(principal, standup, { key: "planning" })
        expect(yield* keysOf(scopes.organization)).toEqual(["planning", "retro"])
        expect(yield* keysOf(scopes.project)).toEqual(["planning"])
      }))

    it.effect("updating an unknown prompt, or one of an organization the caller is not in, is not found and changes nothing", () =>
      Effect.gen(function*() {
        const a = yield* seed("pr-tenant-a")
        const b = yield* seedOwner("pr-tenant-b")
        const local = yield* a.prompts.create(a.scopes.project, { key: "secret", content: "A" })
        const shared = yield* a.prompts.create(a.scopes.organization, { key: "secret", content: "A" })
        const narrowedB = (yield* createKey(b.user.id, [b.project.id])).principal
        for (const promptId of [local, shared, PromptId.generate()]) {
          for (const principal of [b.principal, narrowedB]) {
            expect(yield* Effect.flip(a.prompts.update(principal, promptId, { content: "stolen" }))).toMatchObject({
              _tag: "NotFound",
              message: `promptId: prompt ${promptId} not found`
            })
          }
        }
        expect((yield* a.prompts.list(a.scopes.project))[0]?.content).toBe("A")
        expect((yield* a.prompts.list(a.scopes.organization))[0]?.content).toBe("A")
      }))

    it.effect("project prompts need project role admin or member to change; organization prompts need organization owner or admin", () =>
      Effect.gen(function*() {
        const { organization, project, prompts, scopes } = yield* seed("pr-roles")
        const local = yield* prompts.create(scopes.project, { key: "review", content: "x" })
        const shared = yield* prompts.create(scopes.organization, { key: "standup", content: "x" })
        const viewer = yield* newMember("pr-roles-viewer", { project: [project.id, "viewer"] })
        const viewerScope = yield* projectScope(viewer, project.id)
        expect(yield* keysOf(viewerScope)).toEqual(["review"])
        expect(yield* Effect.flip(prompts.create(viewerScope, { key: "mine", content: "x" }))).toMatchObject({
          _tag: "Forbidden",
          message: expect.stringContaining("admin or member")
        })
        expect(yield* Effect.flip(prompts.update(viewer, local, { content: "y" }))).toMatchObject({ _tag: "Forbidden" })
        const writer = yield* newMember("pr-roles-member", { project: [project.id, "member"] })
        yield* prompts.update(writer, local, { content: "ours" })
        // A project member outside the organization does not see its prompts at all.
        expect(yield* Effect.flip(prompts.update(writer, shared, { content: "y" }))).toMatchObject({ _tag: "NotFound" })
        const orgMember = yield* newMember("pr-roles-org-member", { organization: [organization.id, "member"] })
        const orgMemberScope = yield* organizationScope(orgMember, organization.slug)
        expect(yield* keysOf(orgMemberScope)).toEqual(["standup"])
        expect(yield* Effect.flip(prompts.create(orgMemberScope, { key: "mine", content: "x" }))).toMatchObject({
          _tag: "Forbidden",
          message: expect.stringContaining("owner or admin")
        })
        expect(yield* Effect.flip(prompts.update(orgMember, shared, { content: "y" }))).toMatchObject({ _tag: "Forbidden" })
        const orgAdmin = yield* newMember("pr-roles-org-admin", { organization: [organization.id, "admin"] })
        yield* prompts.update(orgAdmin, shared, { content: "admins may" })
        expect((yield* prompts.list(scopes.organization))[0]?.content).toBe("admins may")
      }))

    it.effect("a key narrowed to projects reaches its projects' prompts but no organization prompts", () =>
      Effect.gen(function*() {
        const { organization, project, prompts, scopes, user } = yield* seed("pr-narrowed")
        const shared = yield* prompts.create(scopes.organization, { key: "standup", content: "x" })
        const local = yield* prompts.create(scopes.project, { key: "review", content: "x" })
        const narrowed = (yield* createKey(user.id, [project.id])).principal
        yield* prompts.update(narrowed, local, { content: "mine" })
        expect(yield* keysOf(yield* projectScope(narrowed, project.id))).toEqual(["review"])
        for (const slugOrId of [organization.slug, organization.id]) {
          expect(yield* Effect.flip(organizationScope(narrowed, slugOrId))).toMatchObject({
            _tag: "Forbidden",
            message: expect.stringContaining("narrowed")
          })
        }
        expect(yield* Effect.flip(prompts.update(narrowed, shared, { content: "y" }))).toMatchObject({
          _tag: "Forbidden",
          message: expect.stringContaining("narrowed")
        })
        expect((yield* prompts.list(scopes.organization))[0]?.content).toBe("x")
      }))

    it.effect("no tool deletes a prompt: deleting is web-only (DELETE /api/prompts/:promptId)", () =>
      Effect.sync(() => {
        expect(Catalog.map((tool) => tool.name).filter((name) => name.includes("prompt")).sort())
          .toEqual(["create_prompt", "list_prompts", "update_prompt"])
      }))
  })
})
