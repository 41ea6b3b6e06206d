import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { canWrite } from "../platform/auth/Permissions.js"
import type { Principal, ProjectAccess } from "../platform/auth/Principal.js"
import { Forbidden, NotFound } from "../../catalog/domain/Errors.js"
import { OrganizationId, ProjectId } from "../../catalog/domain/Ids.js"
import { OrganizationRole } from "../../catalog/domain/Roles.js"
import { ScopeKind } from "../../catalog/domain/Scope.js"
import { Projects } from "./Projects.js"

export const OrganizationAccessRecord = Schema.Struct({
  id: OrganizationId,
  slug: Schema.String,
  name: Schema.String,
  role: OrganizationRole
})

/** An organization as its member sees it, with their role in it. */
export type OrganizationAccess = typeof OrganizationAccessRecord.Type

/** Who owns a prompt or a Skill, resolved and access-checked for the caller. */
export type ScopeAccess =
  | { readonly kind: "project"; readonly project: ProjectAccess }
  | { readonly kind: "organization"; readonly organization: OrganizationAccess }

/** Where a stored prompt or Skill lives: the columns their records share. */
export const StoredScope = Schema.Struct({
  scope: ScopeKind,
  organizationId: OrganizationId,
  projectId: Schema.NullOr(ProjectId)
})
export type StoredScope = typeof StoredScope.Type

const decodeOrganization = Schema.decodeUnknown(OrganizationAccessRecord)

/** The owning project or organization's ID and where a row of that scope is filed. */
export const scopeOwner = (scope: ScopeAccess): StoredScope =>
  scope.kind === "project"
    ? { scope: "project", organizationId: scope.project.project.organizationId, projectId: scope.project.project.id }
    : { scope: "organization", organizationId: scope.organization.id, projectId: null }

/** The SQL condition selecting the rows (prompts, Skills) owned by `scope`. */
export const ownedBy = (sql: SqlClient.SqlClient, scope: ScopeAccess) =>
  scope.kind === "project"
    ? sql`scope = 'project' AND project_id = ${scope.project.project.id}`
    : sql`scope = 'organization' AND organization_id = ${scope.organization.id}`

export const describeScope = (scope: ScopeAccess): string =>
  scope.kind === "project" ? `project ${scope.project.project.ref}` : `organization ${scope.organization.slug}`

/**
 * Access to the owners of prompts and Skills. Project scope follows the project's roles
 * (writers: admin, member); organization scope needs organization membership (writers: owner,
 * admin) and a key that is not narrowed to projects.
 */
export class Scopes extends Effect.Service<Scopes>()("trellis/Scopes", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const projects = yield* Projects

    /**
     * The caller's organization. Membership is checked before the key's narrowing, so that a
     * narrowed key learns nothing about organizations (or their prompts and Skills) its user is
     * not a member of: those are not found, like for any other key.
     */
    const organization = Effect.fn("Scopes.organization")(function*(principal: Principal, slugOrId: string, field: string) {
      const rows = yield* sql`
        SELECT o.id, o.slug, o.name, m.role FROM organizations o
        JOIN organization_members m ON m.organization_id = o.id AND m.user_id = ${principal.userId}
        WHERE o.slug = ${slugOrId.toLowerCase()} OR o.id = ${slugOrId}`.pipe(Effect.orDie)
      if (rows[0] === undefined) return yield* new NotFound({ message: `${field}: organization ${slugOrId} not found` })
      if (principal.projectIds !== null) {
        return yield* new Forbidden({
          message: `${field}: this API key is narrowed to specific projects, so it cannot reach organization prompts or Skills`
        })
      }
      return yield* Effect.orDie(decodeOrganization(rows[0]))
    })

    /** The scope of a stored row, for the caller; one they cannot see fails with the row's own `notFound`. */
    const ofStored = Effect.fn("Scopes.ofStored")(function*(principal: Principal, stored: StoredScope, notFound: NotFound) {
      if (stored.projectId !== null) {
        const project = yield* projects.access(principal, stored.projectId).pipe(Effect.catchTag("NotFound", () => notFound))
        return { kind: "project", project } satisfies ScopeAccess
      }
      const org = yield* organization(principal, stored.organizationId, "organization").pipe(
        Effect.catchTag("NotFound", () => notFound)
      )
      return { kind: "organization", organization: org } satisfies ScopeAccess
    })

    const requireWriter = (scope: ScopeAccess, what: string) => {
      if (scope.kind === "project") {
        return canWrite(scope.project.role)
          ? Effect.void
          : new Forbidden({
            message:
              `changing ${what} in project ${scope.project.project.ref} requires the project role admin or member; the caller is ${scope.project.role}`
          })
      }
      const role = scope.organization.role
      return role === "owner" || role === "admin"
        ? Effect.void
        : new Forbidden({
          message:
            `changing organization ${what} in ${scope.organization.slug} requires the organization role owner or admin; the caller is ${role}`
        })
    }

    return { organization, ofStored, requireWriter } as const
  }),
  dependencies: [Projects.Default]
}) {}
