import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { call, ok, scopedTo, type Scope, type ToolErrorBody } from "../support/TaskTools.js"
import { TestServer } from "../support/TestServer.js"
import { createKey, seedOwner } from "../support/Seed.js"

/** Words that only organization A's agents, prompts and Skills contain: no answer to B may carry them. */
const SECRETS = ["Alpha agent", "alpha-prompt", "Alpha prompt text", "alpha-skill", "Alpha skill body", "alpha file", "Alpha org"]

/** Organization A with an agent, project and organization prompts, and project and organization Skills with a file. */
const seedA = (slug: string) =>
  Effect.gen(function*() {
    const owner = yield* seedOwner(slug)
    const scope = scopedTo(owner.project.id)
    const { projectAgentId } = yield* ok(owner.key, "create_project_agent", {
      name: "Alpha agent",
      appearance: { color: "red" }
    }, scope)
    const { promptId } = yield* ok(owner.key, "create_prompt", { key: "alpha-prompt", content: "Alpha prompt text" }, scope)
    const orgPrompt = yield* ok(owner.key, "create_prompt", {
      key: "alpha-prompt",
      content: "Alpha org",
      scope: "organization"
    }, scope)
    const { skillId } = yield* ok(owner.key, "create_skill", { name: "alpha-skill", content: "Alpha skill body" }, scope)
    yield* ok(owner.key, "update_skill", { skillId, edits: [{ op: "write", path: "notes.md", content: "alpha file" }] })
    const orgSkill = yield* ok(owner.key, "create_skill", {
      name: "alpha-skill",
      content: "Alpha org",
      scope: "organization"
    }, scope)
    return { ...owner, scope, projectAgentId, promptId, orgPromptId: orgPrompt.promptId, skillId, orgSkillId: orgSkill.skillId }
  })

/** Everything A's owner can read of A's agents, prompts and Skills. */
const stateOf = (key: string, scope: Scope, skillIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    return {
      agents: yield* ok(key, "list_project_agents", {}, scope),
      prompts: yield* ok(key, "list_prompts", {}, scope),
      orgPrompts: yield* ok(key, "list_prompts", { scope: "organization" }, scope),
      skills: yield* Effect.forEach(skillIds, (skillId) => ok(key, "get_skill", { skillId }))
    }
  })

const leaksNothing = (label: string, answer: unknown) => {
  const text = JSON.stringify(answer)
  for (const secret of SECRETS.filter((word) => !label.toLowerCase().includes(word.toLowerCase()))) {
    expect(text, label).not.toContain(secret)
  }
}

describe("tenant isolation of the agent, prompt and Skill tools", () => {
  layer(TestServer())((it) => {
    it.effect("every agent, prompt and Skill tool called by organization B with A's IDs, project or organization is not found and changes nothing", () =>
      Effect.gen(function*() {
        const a = yield* seedA("iso-a")
        const b = yield* seedOwner("iso-b")
        const onA = a.scope
        const onB = scopedTo(b.project.id)
        const A = a.project.id
        const before = yield* stateOf(a.key, onA, [a.skillId, a.orgSkillId])

        const cases: ReadonlyArray<readonly [string, Record<string, unknown>, Scope?]> = [
          ["list_project_agents", { projectId: A }],
          ["list_project_agents", {}, onA],
          ["create_project_agent", { projectId: A, name: "Planted", appearance: { color: "red" } }],
          ["update_project_agent", { projectAgentId: a.projectAgentId, name: "Hijacked" }, onB],
          ["list_prompts", { projectId: A }],
          ["list_prompts", {}, onA],
          ["list_prompts", { scope: "organization", organization: "iso-a" }, onB],
          ["list_prompts", { scope: "organization", organization: a.organization.id }],
          ["list_prompts", { scope: "organization" }, onA],
          ["create_prompt", { projectId: A, key: "planted", content: "x" }],
          ["create_prompt", { scope: "organization", organization: "iso-a", key: "planted", content: "x" }],
          ["update_prompt", { promptId: a.promptId, content: "Hijacked" }, onB],
          ["update_prompt", { promptId: a.orgPromptId, content: "Hijacked" }, onB],
          ["list_skills", { projectId: A }],
          ["list_skills", { scope: "organization", projectId: A }],
          ["list_skills", { scope: "organization", organization: "iso-a" }, onB],
          ["get_skill", { skillId: a.skillId }],
          ["get_skill", { skillId: a.orgSkillId }, onB],
          ["create_skill", { projectId: A, name: "planted", content: "x" }],
          ["create_skill", { scope: "organization", organization: a.organization.id, name: "planted", content: "x" }],
          ["update_skill", { skillId: a.skillId, edits: [{ op: "delete", path: "notes.md" }] }],
          ["update_skill", { skillId: a.orgSkillId, content: "Hijacked" }],
          ["delete_skill", { skillId: a.skillId }, onB],
          ["delete_skill", { skillId: a.orgSkillId }],
          ["load_skill", { projectId: A, name: "alpha-skill" }],
          ["load_skill", { name: "alpha-skill" }, onA],
          ["read_skill_file", { projectId: A, name: "alpha-skill", path: "notes.md" }],
          ["read_skill_file", { name: "alpha-skill", path: "SKILL.md" }, onA]
        ]
        const tools = new Set<string>()
        for (const [name, args, scope] of cases) {
          tools.add(name)
          const label = `${name} ${JSON.stringify(args)} ${scope?.path ?? ""}`
          const result = yield* call(b.key, name, args, scope)
          expect(result.isError, `${label} → ${result.content[0]?.text}`).toBe(true)
          expect((result.structuredContent as { readonly error: ToolErrorBody }).error.code, label).toBe("not_found")
          leaksNothing(label, result)
        }
        expect(tools.size).toBe(13)

        // In B's own project, A's Skill names find nothing: null, not an error.
        for (
          const [name, args] of [
            ["load_skill", { name: "alpha-skill" }],
            ["read_skill_file", { name: "alpha-skill", path: "notes.md" }]
          ] as const
        ) {
          const result = yield* call(b.key, name, args, onB)
          expect(result.content).toEqual([{ type: "text", text: "null" }])
        }
        leaksNothing("B's own listings", [
          yield* ok(b.key, "list_project_agents", {}, onB),
          yield* ok(b.key, "list_prompts", {}, onB),
          yield* ok(b.key, "list_prompts", { scope: "organization" }, onB),
          yield* ok(b.key, "list_skills", {}, onB),
          yield* ok(b.key, "list_skills", { scope: "organization" }, onB)
        ])
        expect(yield* stateOf(a.key, onA, [a.skillId, a.orgSkillId])).toEqual(before)
      }))

    it.effect("a key of organization B narrowed to its projects finds none of A's organization prompts and Skills: not found, not forbidden", () =>
      Effect.gen(function*() {
        const a = yield* seedA("iso-narrowed-a")
        const b = yield* seedOwner("iso-narrowed-b")
        const narrowed = (yield* createKey(b.user.id, [b.project.id])).secret
        const onB = scopedTo(b.project.id)
        const before = yield* stateOf(a.key, a.scope, [a.skillId, a.orgSkillId])
        for (
          const [name, args] of [
            ["list_prompts", { scope: "organization", organization: a.organization.slug }],
            ["create_prompt", { scope: "organization", organization: a.organization.id, key: "planted", content: "x" }],
            ["update_prompt", { promptId: a.orgPromptId, content: "Hijacked" }],
            ["list_skills", { scope: "organization", organization: a.organization.slug }],
            ["create_skill", { scope: "organization", organization: a.organization.id, name: "planted", content: "x" }],
            ["get_skill", { skillId: a.orgSkillId }],
            ["update_skill", { skillId: a.orgSkillId, content: "Hijacked" }],
            ["delete_skill", { skillId: a.orgSkillId }]
          ] as const
        ) {
          const label = `${name} ${JSON.stringify(args)}`
          const result = yield* call(narrowed, name, args, onB)
          expect((result.structuredContent as { readonly error: ToolErrorBody }).error.code, label).toBe("not_found")
          leaksNothing(label, result)
        }
        expect(yield* stateOf(a.key, a.scope, [a.skillId, a.orgSkillId])).toEqual(before)
      }))
  })
})
