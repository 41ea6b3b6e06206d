import { Effect } from "effect"
import { CreateProjectAgent, ListProjectAgents, UpdateProjectAgent } from "../../catalog/Agents.js"
import { CurrentPrincipal, CurrentProject } from "../platform/auth/Principal.js"
import { type ProjectAgentRecord, ProjectAgents } from "./ProjectAgents.js"
import * as Implement from "../platform/mcp/ToolImplementation.js"

const agentPayload = (agent: ProjectAgentRecord) => ({
  projectAgentId: agent.id,
  name: agent.name,
  description: agent.description,
  prompt: agent.prompt,
  category: agent.category,
  appearance: { color: agent.color },
  automation: agent.automation,
  createdAt: agent.createdAt.toISOString(),
  updatedAt: agent.updatedAt.toISOString()
})

export const AgentTools = Effect.gen(function*() {
  const agents = yield* ProjectAgents
  return [
    Implement.scoped(ListProjectAgents, () =>
      Effect.gen(function*() {
        const rows = yield* agents.list(yield* CurrentProject)
        return { agents: rows.map(agentPayload) }
      })),
    Implement.scoped(CreateProjectAgent, ({ projectId: _, ...input }) =>
      Effect.gen(function*() {
        return { projectAgentId: yield* agents.create(yield* CurrentProject, input) }
      })),
    Implement.unscoped(UpdateProjectAgent, ({ projectAgentId, ...patch }) =>
      Effect.gen(function*() {
        yield* agents.update(yield* CurrentPrincipal, projectAgentId, patch)
        return null
      }))
  ] as const
})
