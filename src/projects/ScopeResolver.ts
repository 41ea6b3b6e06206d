import { Effect, type Schema } from "effect"
import type { ScopeFields } from "../../catalog/ScopeArguments.js"
import { CurrentPrincipal } from "../platform/auth/Principal.js"
import { InvalidArgument, type ToolError } from "../../catalog/domain/Errors.js"
import { ProjectGate } from "../platform/auth/ProjectGate.js"
import { Projects } from "./Projects.js"
import { type ScopeAccess, Scopes } from "./Scopes.js"
import { resolveProject } from "../platform/mcp/ToolImplementation.js"
import { DefaultProject } from "../platform/auth/Principal.js"

export type ScopeArguments = Schema.Struct.Type<typeof ScopeFields>

export type ScopeResolver = (
  input: ScopeArguments,
  options: { readonly projectIdInOrganizationScope: boolean }
) => Effect.Effect<ScopeAccess, ToolError, CurrentPrincipal | DefaultProject>

/**
 * Resolves the scope arguments of the prompt and Skill tools. `organization` belongs to
 * organization scope only. Prompts take `projectId` in project scope only; Skills also take it in
 * organization scope, to derive the organization. Without `organization`, organization scope
 * means the organization owning the resolved project.
 */
export const makeScopeResolver = Effect.gen(function*() {
  const projects = yield* Projects
  const scopes = yield* Scopes
  const resolver: ScopeResolver = (input, options) =>
    Effect.gen(function*() {
      const principal = yield* CurrentPrincipal
      if ((input.scope ?? "project") === "project") {
        if (input.organization !== undefined) {
          return yield* new InvalidArgument({
            message:
              "organization: only used with scope: \"organization\" (pass scope: \"organization\" to work on organization-wide items)"
          })
        }
        const project = yield* Effect.provideService(resolveProject(input.projectId), ProjectGate, projects)
        return { kind: "project", project } satisfies ScopeAccess
      }
      if (input.projectId !== undefined && !options.projectIdInOrganizationScope) {
        return yield* new InvalidArgument({ message: "projectId: only used with scope: \"project\"" })
      }
      if (input.organization !== undefined) {
        return {
          kind: "organization",
          organization: yield* scopes.organization(principal, input.organization, "organization")
        } satisfies ScopeAccess
      }
      if (input.projectId === undefined && (yield* DefaultProject) === null) {
        return yield* new InvalidArgument({
          message:
            "organization: required with scope: \"organization\", because the connection URL has no ?project=<project_id> to derive it from"
        })
      }
      const project = yield* Effect.provideService(resolveProject(input.projectId), ProjectGate, projects)
      const organization = yield* scopes.organization(principal, project.project.organizationId, "organization")
      return { kind: "organization", organization } satisfies ScopeAccess
    })
  return resolver
})
