import type { Schema } from "effect"
import { ListProjects } from "../../../catalog/Projects.js"
import { CreateSkill, DeleteSkill, GetSkill, ListSkills, UpdateSkill } from "../../../catalog/Skills.js"
import { makeToolHooks } from "../lib/queries"

/** The tools of the Skills pages, loaded with them. */
const tools = {
  list_projects: ListProjects,
  list_skills: ListSkills,
  get_skill: GetSkill,
  create_skill: CreateSkill,
  update_skill: UpdateSkill,
  delete_skill: DeleteSkill
} as const

export type SkillToolArgs<N extends keyof typeof tools> = Schema.Schema.Encoded<(typeof tools)[N]["input"]>
export type SkillToolResult<N extends keyof typeof tools> = Schema.Schema.Type<(typeof tools)[N]["output"]>

export const { useToolMutation, useToolQuery } = makeToolHooks(tools)
