import { Schema } from "effect"
import { CliType } from "./CliType.js"
import { ListColor } from "./TaskList.js"

/** The Agent palette: the List palette, so an agent's chip sits beside Lists without new hues. */
export const AgentColor = ListColor
export type AgentColor = typeof AgentColor.Type

export const AgentWorkspace = Schema.Literal("local", "worktree")
export type AgentWorkspace = typeof AgentWorkspace.Type

export const AgentAppearance = Schema.Struct({
  color: AgentColor.annotations({ description: "A color of the Agent palette" })
})
export type AgentAppearance = typeof AgentAppearance.Type

/**
 * What the web UI offers when a task is delegated to the agent there: a thread prefilled with
 * these settings. Delegating through tools or the CLI never starts a thread.
 */
export const AgentAutomation = Schema.Struct({
  enabled: Schema.Boolean.annotations({ description: "Whether the web UI offers to start a prefilled thread on delegation" }),
  prompt: Schema.optional(Schema.String.annotations({ description: "The prefilled thread's first message" })),
  cliType: Schema.optional(CliType.annotations({ description: "A registered runtime slug" })),
  cliModel: Schema.optional(Schema.String),
  cliEffort: Schema.optional(Schema.String),
  mode: Schema.optional(Schema.String.annotations({ description: "Runtime mode, e.g. plan" })),
  workspace: Schema.optional(AgentWorkspace.annotations({
    description: "`local`: the checkout's working tree; `worktree`: a fresh git worktree"
  }))
}).annotations({ identifier: "AgentAutomation" })
export type AgentAutomation = typeof AgentAutomation.Type

export const MAX_AGENT_NAME_LENGTH = 80
