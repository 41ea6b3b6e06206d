import { Effect } from "effect"
import type { Principal } from "../../src/platform/auth/Principal.js"
import type { ProjectId } from "../../catalog/domain/Ids.js"
import { Projects } from "../../src/projects/Projects.js"
import { type ScopeAccess, Scopes } from "../../src/projects/Scopes.js"
import { seedOwner } from "./Seed.js"

/** A project as the owner of prompts and Skills, access-checked for `principal`. */
export const projectScope = (principal: Principal, projectId: ProjectId) =>
  Effect.map(Effect.flatMap(Projects, (projects) => projects.access(principal, projectId)), (project): ScopeAccess => ({
    kind: "project",
    project
  }))

/** An organization (by slug or ID) as the owner of prompts and Skills, access-checked for `principal`. */
export const organizationScope = (principal: Principal, slugOrId: string) =>
  Effect.map(Effect.flatMap(Scopes, (scopes) => scopes.organization(principal, slugOrId, "organization")), (organization): ScopeAccess => ({
    kind: "organization",
    organization
  }))

/** A fresh organization and project (seedOwner), with the owner's two scopes: the project and the organization. */
export const seedScopes = (slug: string) =>
  Effect.gen(function*() {
    const owner = yield* seedOwner(slug)
    const project = yield* projectScope(owner.principal, owner.project.id)
    const organization = yield* organizationScope(owner.principal, owner.organization.slug)
    return { ...owner, scopes: { project, organization } }
  })
