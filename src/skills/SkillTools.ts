import { Effect } from "effect"
import { CreateSkill, DeleteSkill, GetSkill, ListSkills, LoadSkill, ReadSkillFile, UpdateSkill } from "../../catalog/Skills.js"
import { CurrentPrincipal, CurrentProject } from "../platform/auth/Principal.js"
import { extensionProblem } from "./SkillManifest.js"
import { type SkillRecord, Skills } from "./Skills.js"
import { makeScopeResolver } from "../projects/ScopeResolver.js"
import * as Implement from "../platform/mcp/ToolImplementation.js"

const summary = (skill: SkillRecord) => ({
  skillId: skill.id,
  scope: skill.scope,
  name: skill.name,
  description: skill.description,
  category: skill.category,
  version: skill.version,
  extensionProblem: extensionProblem(skill)
})

// Skills take projectId in organization scope too, to derive the organization (SPEC).
const SCOPE_OPTIONS = { projectIdInOrganizationScope: true } as const

export const SkillTools = Effect.gen(function*() {
  const skills = yield* Skills
  const resolveScope = yield* makeScopeResolver
  return [
    Implement.unscoped(ListSkills, (input) =>
      Effect.gen(function*() {
        const rows = yield* skills.list(yield* resolveScope(input, SCOPE_OPTIONS))
        return { skills: rows.map(summary) }
      })),
    Implement.unscoped(GetSkill, ({ skillId }) =>
      Effect.gen(function*() {
        const skill = yield* skills.get(yield* CurrentPrincipal, skillId)
        return { ...summary(skill.record), skillMd: skill.skillMd, files: skill.files }
      })),
    Implement.unscoped(CreateSkill, ({ scope, projectId, organization, ...input }) =>
      Effect.gen(function*() {
        const owner = yield* resolveScope({ scope, projectId, organization }, SCOPE_OPTIONS)
        return { skillId: yield* skills.create(yield* CurrentPrincipal, owner, input) }
      })),
    Implement.unscoped(UpdateSkill, ({ skillId, ...patch }) =>
      Effect.gen(function*() {
        return yield* skills.update(yield* CurrentPrincipal, skillId, patch)
      })),
    Implement.unscoped(DeleteSkill, ({ skillId }) =>
      Effect.gen(function*() {
        yield* skills.remove(yield* CurrentPrincipal, skillId)
        return null
      })),
    Implement.scoped(LoadSkill, ({ name }) =>
      Effect.gen(function*() {
        return yield* skills.load(yield* CurrentProject, name)
      })),
    Implement.scoped(ReadSkillFile, ({ name, path }) =>
      Effect.gen(function*() {
        return yield* skills.readFile(yield* CurrentProject, name, path)
      }))
  ] as const
})
