import type { Schema } from "effect"
import { CreateProjectAgent, ListProjectAgents, UpdateProjectAgent } from "../../../catalog/Agents.js"
import { makeToolHooks } from "../lib/queries"

/** The tools of the agents page, loaded with it. */
const tools = {
  list_project_agents: ListProjectAgents,
  create_project_agent: CreateProjectAgent,
  update_project_agent: UpdateProjectAgent
} as const

export type AgentToolArgs<N extends keyof typeof tools> = Schema.Schema.Encoded<(typeof tools)[N]["input"]>
export type AgentToolResult<N extends keyof typeof tools> = Schema.Schema.Type<(typeof tools)[N]["output"]>

export const { useToolMutation, useToolQuery } = makeToolHooks(tools)
