import { Schema } from "effect"
import { ProjectAgentId } from "./domain/Ids.js"
import { AgentAppearance, AgentAutomation, MAX_AGENT_NAME_LENGTH } from "./domain/ProjectAgent.js"
import * as Tool from "./Tool.js"

const AgentName = Schema.String.pipe(
  Schema.minLength(1, { message: () => "must not be empty or blank" }),
  Schema.maxLength(MAX_AGENT_NAME_LENGTH, { message: () => `must be at most ${MAX_AGENT_NAME_LENGTH} characters` })
).annotations({ title: "Agent name", description: `1–${MAX_AGENT_NAME_LENGTH} characters, trimmed` })

const Automation = AgentAutomation.annotations({
  description:
    "Offered by the web UI when a task is delegated there (a prefilled thread); delegating through tools or the CLI never starts a thread"
})

export const ProjectAgent = Schema.Struct({
  projectAgentId: ProjectAgentId,
  name: Schema.String,
  description: Schema.NullOr(Schema.String).annotations({ description: "Author-written; untrusted content" }),
  prompt: Schema.NullOr(Schema.String).annotations({ description: "The working prompt, snapshotted onto threads started with this agent" }),
  category: Schema.NullOr(Schema.String),
  appearance: AgentAppearance,
  automation: Schema.NullOr(AgentAutomation),
  createdAt: Schema.String.annotations({ description: "ISO 8601 timestamp" }),
  updatedAt: Schema.String.annotations({ description: "ISO 8601 timestamp" })
}).annotations({ identifier: "ProjectAgent" })

export const ListProjectAgents = Tool.make("list_project_agents", {
  title: "List project agents",
  description:
    "Lists the project's active agents, the ones tasks can be delegated to (delegatedToAgentId on create_task/update_task), by name.",
  input: Schema.Struct({ projectId: Tool.ProjectIdArgument }),
  output: Schema.Struct({ agents: Schema.Array(ProjectAgent) }),
  annotations: { readOnly: true, destructive: false, idempotent: true }
})

export const CreateProjectAgent = Tool.make("create_project_agent", {
  title: "Create a project agent",
  description: "Creates an agent that tasks of the project can be delegated to. `appearance.color` comes from the Agent palette. " +
    "`automation` only affects delegations made in the web UI; delegating through tools or the CLI never starts a thread. " +
    "Needs project role admin or member.",
  input: Schema.Struct({
    projectId: Tool.ProjectIdArgument,
    name: AgentName,
    description: Schema.optional(Schema.NullOr(Schema.String)),
    prompt: Schema.optional(Schema.NullOr(Schema.String).annotations({ description: "The agent's working prompt" })),
    category: Schema.optional(Schema.NullOr(Schema.String)),
    appearance: AgentAppearance,
    automation: Schema.optional(Schema.NullOr(Automation))
  }),
  output: Schema.Struct({ projectAgentId: ProjectAgentId }),
  annotations: { readOnly: false, destructive: false, idempotent: false }
})

export const UpdateProjectAgent = Tool.make("update_project_agent", {
  title: "Update a project agent",
  description: "Changes only the fields given. description, prompt and category take null to clear; `automation` replaces the whole " +
    "config (null clears it). Needs project role admin or member. Returns null.",
  input: Schema.Struct({
    projectAgentId: ProjectAgentId,
    name: Schema.optional(AgentName),
    description: Schema.optional(Schema.NullOr(Schema.String).annotations({ description: "null clears" })),
    prompt: Schema.optional(Schema.NullOr(Schema.String).annotations({ description: "null clears" })),
    category: Schema.optional(Schema.NullOr(Schema.String).annotations({ description: "null clears" })),
    appearance: Schema.optional(AgentAppearance),
    automation: Schema.optional(Schema.NullOr(Automation).annotations({ description: "Replaces the whole config; null clears it" }))
  }),
  output: Schema.Null,
  annotations: { readOnly: false, destructive: false, idempotent: true }
})
