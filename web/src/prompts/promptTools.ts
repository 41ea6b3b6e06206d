import type { Schema } from "effect"
import { ListProjects } from "../../../catalog/Projects.js"
import { CreatePrompt, ListPrompts, UpdatePrompt } from "../../../catalog/Prompts.js"
import { makeToolHooks } from "../lib/queries"

/** The tools of the prompts page, loaded with it. */
const tools = {
  list_projects: ListProjects,
  list_prompts: ListPrompts,
  create_prompt: CreatePrompt,
  update_prompt: UpdatePrompt
} as const

export type PromptToolResult<N extends keyof typeof tools> = Schema.Schema.Type<(typeof tools)[N]["output"]>

export const { useToolMutation, useToolQuery } = makeToolHooks(tools)
