import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Catalog } from "../../catalog/index.js"
import { PromptId } from "../../catalog/domain/Ids.js"
import { Memberships } from "../../src/orgs/Memberships.js"
import { Projects } from "../../src/projects/Projects.js"
import { Users } from "../../src/orgs/Users.js"
import { fails, joinAs, ok, okNull, scopedTo, type Scope } from "../support/TaskTools.js"
import { TestServer } from "../support/TestServer.js"
import { createKey, seedOwner } from "../support/Seed.js"

interface Prompt {
  readonly promptId: string
  readonly scope: string
  readonly key: string
  readonly description: string | null
  readonly category: string | null
  readonly content: string
  readonly autoExpand: boolean
  readonly autoSubmit: boolean
}

const promptsOf = (key: string, args: Record<string, unknown>, scope: Scope = {}) =>
  Effect.map(ok(key, "list_prompts", args, scope), (r) => r.prompts)

const createPrompt = (key: string, args: Record<string, unknown>, scope: Scope = {}) =>
  Effect.map(ok(key, "create_prompt", { content: "Review this", ...args }, scope), (r) => r.promptId)

const keysOf = (prompts: ReadonlyArray<Prompt>) => prompts.map((prompt) => prompt.key)

describe("prompt tools", () => {
  layer(TestServer())((it) => {
    it.effect("create_prompt defaults to project scope; list_prompts returns the Prompt fields; autoExpand and autoSubmit default false", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("prompt-create")
        const scope = scopedTo(project.id)
        const plain = yield* createPrompt(key, { key: "review" }, scope)
        const full = yield* createPrompt(key, {
          key: "git:commit",
          content: "Write a commit message",
          description: "Commit helper",
          category: "git",
          autoExpand: true,
          autoSubmit: true
        }, scope)
        expect(plain).toMatch(/^prompt_[0-9a-f]{32}$/)
        expect(yield* promptsOf(key, {}, scope)).toEqual([
          {
            promptId: full,
            scope: "project",
            key: "git:commit",
            description: "Commit helper",
            category: "git",
            content: "Write a commit message",
            autoExpand: true,
            autoSubmit: true
          },
          {
            promptId: plain,
            scope: "project",
            key: "review",
            description: null,
            category: null,
            content: "Review this",
            autoExpand: false,
            autoSubmit: false
          }
        ])
        expect(yield* promptsOf(key, { projectId: project.id, scope: "project" })).toHaveLength(2)
      }))

    it.effect("a key is 2–40 characters of lowercase letters, digits, hyphens and colons, without a leading slash", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("prompt-keys")
        const scope = scopedTo(project.id)
        for (const good of ["ab", "a".repeat(40), "deploy:prod-2", "9-:"]) yield* createPrompt(key, { key: good }, scope)
        for (const bad of ["/review", "a", "a".repeat(41), "Review", "re view", "re_view", "ré"]) {
          expect(yield* fails(key, "create_prompt", { key: bad, content: "x" }, scope), bad).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("key")
          })
        }
        expect(yield* promptsOf(key, {}, scope)).toHaveLength(4)
      }))

    it.effect("content is required and must not be empty", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("prompt-content")
        const scope = scopedTo(project.id)
        expect(yield* fails(key, "create_prompt", { key: "review" }, scope)).toMatchObject({ message: expect.stringContaining("content") })
        expect(yield* fails(key, "create_prompt", { key: "review", content: "" }, scope)).toMatchObject({
          message: expect.stringContaining("content")
        })
      }))

    it.effect("a key is unique per scope owner: project, organization and another project each have their own", () =>
      Effect.gen(function*() {
        const { key, organization, project } = yield* seedOwner("prompt-unique")
        const other = yield* (yield* Projects).create({ organizationId: organization.id, name: "Other", ref: "OTHER" })
        yield* createPrompt(key, { key: "review" }, scopedTo(project.id))
        expect(yield* fails(key, "create_prompt", { key: "review", content: "again" }, scopedTo(project.id))).toMatchObject({
          code: "conflict",
          message: expect.stringContaining("key: project MAIN already has a prompt /review")
        })
        yield* createPrompt(key, { key: "review" }, scopedTo(other.id))
        yield* createPrompt(key, { key: "review", scope: "organization" }, scopedTo(project.id))
        expect(yield* fails(key, "create_prompt", { key: "review", content: "x", scope: "organization", organization: organization.slug }))
          .toMatchObject({ code: "conflict", message: expect.stringContaining("organization prompt-unique") })
      }))

    it.effect("organization scope: by slug or ID, defaulting to the organization owning the connection's project", () =>
      Effect.gen(function*() {
        const { key, organization, project } = yield* seedOwner("prompt-org")
        const bySlug = yield* createPrompt(key, { key: "standup", scope: "organization", organization: "prompt-org" })
        const byId = yield* createPrompt(key, { key: "retro", scope: "organization", organization: organization.id })
        const byDefault = yield* createPrompt(key, { key: "planning", scope: "organization" }, scopedTo(project.id))
        const listed = yield* promptsOf(key, { scope: "organization", organization: organization.id })
        expect(listed.map((p) => [p.key, p.promptId, p.scope])).toEqual([
          ["planning", byDefault, "organization"],
          ["retro", byId, "organization"],
          ["standup", bySlug, "organization"]
        ])
        expect(yield* promptsOf(key, { scope: "organization" }, scopedTo(project.id))).toEqual(listed)
        expect(yield* promptsOf(key, {}, scopedTo(project.id))).toEqual([])
      }))

    it.effect("scope arguments: organization only with organization scope, projectId only with project scope", () =>
      Effect.gen(function*() {
        const { key, organization, project } = yield* seedOwner("prompt-scope-args")
        for (const name of ["list_prompts", "create_prompt"] as const) {
          const extra = name === "create_prompt" ? { key: "x1", content: "x" } : {}
          expect(yield* fails(key, name, { ...extra, organization: organization.slug }, scopedTo(project.id))).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("organization: only used with scope: \"organization\"")
          })
          expect(yield* fails(key, name, { ...extra, scope: "organization", projectId: project.id })).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("projectId: only used with scope: \"project\"")
          })
          expect(yield* fails(key, name, { ...extra, scope: "organization" })).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("organization: required")
          })
          expect(yield* fails(key, name, { ...extra })).toMatchObject({ message: expect.stringContaining("projectId: required") })
          expect(yield* fails(key, name, { ...extra, scope: "team" }, scopedTo(project.id))).toMatchObject({
            message: expect.stringContaining("scope")
          })
        }
      }))

    it.effect("update_prompt returns null and changes only the fields given; null clears description and category", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("prompt-update")
        const scope = scopedTo(project.id)
        const id = yield* createPrompt(key, { key: "review", description: "Reviews", category: "code", autoExpand: true }, scope)
        const [before] = yield* promptsOf(key, {}, scope)
        yield* okNull(key, "update_prompt", { promptId: id, content: "Review carefully" })
        expect(yield* promptsOf(key, {}, scope)).toEqual([{ ...before, content: "Review carefully" }])
        yield* okNull(key, "update_prompt", { promptId: id, key: "deep-review", autoSubmit: true, description: null, category: null })
        expect(yield* promptsOf(key, {}, scope)).toEqual([{
          ...before,
          key: "deep-review",
          content: "Review carefully",
          description: null,
          category: null,
          autoSubmit: true
        }])
      }))

    it.effect("update_prompt takes no scope: the stored prompt keeps its own, and its key stays unique there", () =>
      Effect.gen(function*() {
        const { key, organization, project } = yield* seedOwner("prompt-update-scope")
        const scope = scopedTo(project.id)
        const orgPrompt = yield* createPrompt(key, { key: "standup", scope: "organization", organization: organization.slug })
        yield* createPrompt(key, { key: "retro", scope: "organization", organization: organization.slug })
        yield* createPrompt(key, { key: "retro" }, scope)
        for (const extra of [{ scope: "project" }, { projectId: project.id }, { organization: organization.slug }]) {
          expect(yield* fails(key, "update_prompt", { promptId: orgPrompt, ...extra }, scope)).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("is unexpected")
          })
        }
        expect(yield* fails(key, "update_prompt", { promptId: orgPrompt, key: "retro" })).toMatchObject({
          code: "conflict",
          message: expect.stringContaining("organization prompt-update-scope")
        })
        yield* okNull(key, "update_prompt", { promptId: orgPrompt, content: "What did you do?" }, scope)
        const orgPrompts = yield* promptsOf(key, { scope: "organization", organization: organization.slug })
        expect(orgPrompts.find((p) => p.promptId === orgPrompt)).toMatchObject({ scope: "organization", content: "What did you do?" })
        expect(keysOf(yield* promptsOf(key, {}, scope))).toEqual(["retro"])
      }))

    it.effect("update_prompt of an unknown prompt, or one of another organization, is not found", () =>
      Effect.gen(function*() {
        const a = yield* seedOwner("prompt-tenant-a")
        const b = yield* seedOwner("prompt-tenant-b")
        const mine = yield* createPrompt(a.key, { key: "secret" }, scopedTo(a.project.id))
        const orgPrompt = yield* createPrompt(a.key, { key: "secret", scope: "organization", organization: a.organization.slug })
        for (const promptId of [mine, orgPrompt, PromptId.generate()]) {
          expect(yield* fails(b.key, "update_prompt", { promptId, content: "stolen" })).toMatchObject({
            code: "not_found",
            message: `promptId: prompt ${promptId} not found`
          })
        }
        expect(yield* fails(b.key, "list_prompts", { scope: "organization", organization: a.organization.slug })).toMatchObject({
          code: "not_found",
          message: expect.stringContaining("organization: organization prompt-tenant-a not found")
        })
      }))

    it.effect("project prompts need project role admin or member to change; organization prompts need organization owner or admin", () =>
      Effect.gen(function*() {
        const { key, organization, project } = yield* seedOwner("prompt-roles")
        const scope = scopedTo(project.id)
        const id = yield* createPrompt(key, { key: "review" }, scope)
        const orgPrompt = yield* createPrompt(key, { key: "standup", scope: "organization", organization: organization.slug })
        const viewer = yield* joinAs(project.id, "prompt-roles-viewer", "viewer")
        expect(yield* promptsOf(viewer.key, {}, scope)).toHaveLength(1)
        expect(yield* fails(viewer.key, "create_prompt", { key: "mine", content: "x" }, scope)).toMatchObject({ code: "forbidden" })
        expect(yield* fails(viewer.key, "update_prompt", { promptId: id, content: "x" })).toMatchObject({ code: "forbidden" })
        const member = yield* joinAs(project.id, "prompt-roles-member", "member")
        yield* okNull(member.key, "update_prompt", { promptId: id, content: "Ours" })
        // A project member who is not in the organization does not see its prompts at all.
        expect(yield* fails(member.key, "update_prompt", { promptId: orgPrompt, content: "x" })).toMatchObject({ code: "not_found" })
        const orgMember = yield* (yield* Users).create({ name: "Org member", email: "m@prompt-roles.test" })
        yield* (yield* Memberships).addToOrganization(organization.id, orgMember.id, "member")
        const orgMemberKey = (yield* createKey(orgMember.id, null)).secret
        expect(yield* promptsOf(orgMemberKey, { scope: "organization", organization: organization.slug })).toHaveLength(1)
        expect(yield* fails(orgMemberKey, "update_prompt", { promptId: orgPrompt, content: "x" })).toMatchObject({
          code: "forbidden",
          message: expect.stringContaining("owner or admin")
        })
        expect(
          yield* fails(orgMemberKey, "create_prompt", { key: "x1", content: "x", scope: "organization", organization: organization.slug })
        )
          .toMatchObject({ code: "forbidden" })
      }))

    it.effect("a key narrowed to projects reaches its projects' prompts but no organization prompts", () =>
      Effect.gen(function*() {
        const { key, organization, project, user } = yield* seedOwner("prompt-narrowed")
        const orgPrompt = yield* createPrompt(key, { key: "standup", scope: "organization", organization: organization.slug })
        yield* createPrompt(key, { key: "review" }, scopedTo(project.id))
        const narrowed = (yield* createKey(user.id, [project.id])).secret
        expect(keysOf(yield* promptsOf(narrowed, {}, scopedTo(project.id)))).toEqual(["review"])
        for (
          const [name, args] of [
            ["list_prompts", { scope: "organization", organization: organization.slug }],
            ["list_prompts", { scope: "organization" }],
            ["create_prompt", { key: "x1", content: "x", scope: "organization" }],
            ["update_prompt", { promptId: orgPrompt, content: "x" }]
          ] as const
        ) {
          expect(yield* fails(narrowed, name, args, scopedTo(project.id)), name).toMatchObject({ code: "forbidden" })
        }
      }))

    it.effect("there is no tool to delete a prompt", () =>
      Effect.sync(() => {
        expect(Catalog.map((tool) => tool.name).filter((name) => name.includes("prompt"))).toEqual([
          "list_prompts",
          "create_prompt",
          "update_prompt"
        ])
      }))
  })
})
