import { Schema } from "effect"
import { ScopeKind } from "./domain/Scope.js"
import * as Tool from "./Tool.js"

/** `scope` of the prompt and Skill tools. */
export const ScopeArgument = Schema.optional(ScopeKind.annotations({
  description: "`project` (default): the project's own; `organization`: shared by every project of the organization",
  default: "project"
}))

/** `organization` of the prompt and Skill tools: organization scope only. */
export const OrganizationArgument = Schema.optional(
  Schema.String.pipe(
    Schema.minLength(1, { message: () => "must not be empty" })
  ).annotations({
    description: "Organization scope only: the organization's slug or ID. Defaults to the organization owning the resolved project. " +
      "Passing it with project scope is an error."
  })
)

/** The scope arguments of list_prompts, create_prompt, list_skills and create_skill. */
export const ScopeFields = { scope: ScopeArgument, projectId: Tool.ProjectIdArgument, organization: OrganizationArgument }
