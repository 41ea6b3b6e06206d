import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import type { Principal } from "../platform/auth/Principal.js"
import { isUniqueViolation } from "../platform/sql/SqlErrors.js"
import { Conflict, Forbidden, NotFound } from "../../catalog/domain/Errors.js"
import { OrganizationId, ProjectId } from "../../catalog/domain/Ids.js"
import { ProjectRecord } from "../../catalog/domain/Project.js"
import { ProjectRole } from "../../catalog/domain/Roles.js"
import { TaskLists } from "../lists-labels/TaskLists.js"

const AccessibleProject = Schema.Struct({ ...ProjectRecord.fields, role: ProjectRole })
export type AccessibleProject = typeof AccessibleProject.Type

const decodeProject = Schema.decodeUnknown(ProjectRecord)
const decodeAccessible = Schema.decodeUnknown(Schema.Array(AccessibleProject))

export class Projects extends Effect.Service<Projects>()("trellis/Projects", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const taskLists = yield* TaskLists

    const selectProject = sql`
      SELECT p.id, p.name, p.ref, p.organization_id AS "organizationId", o.slug AS "organizationSlug",
        o.name AS "organizationName", p.created_at AS "createdAt", p.updated_at AS "updatedAt"
      FROM projects p JOIN organizations o ON o.id = p.organization_id`

    const create = Effect.fn("Projects.create")(function*(input: {
      readonly organizationId: OrganizationId
      readonly name: string
      readonly ref: string
    }) {
      const id = ProjectId.generate()
      // A project never exists without its system Backlog, so both are written together.
      yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO projects (id, organization_id, name, ref)
          VALUES (${id}, ${input.organizationId}, ${input.name}, ${input.ref})`.pipe(
          Effect.catchTag("SqlError", (error) =>
            isUniqueViolation(error)
              ? new Conflict({ message: `ref: the organization already has a project with ref ${input.ref}` })
              : Effect.die(error))
        )
        yield* taskLists.createBacklog(id)
      })).pipe(Effect.catchTag("SqlError", Effect.die))
      return yield* get(id)
    })

    const get = Effect.fn("Projects.get")(function*(id: ProjectId) {
      const rows = yield* sql`${selectProject} WHERE p.id = ${id}`.pipe(Effect.orDie)
      if (rows[0] === undefined) return yield* new NotFound({ message: `project ${id} not found` })
      return yield* decodeProject(rows[0]).pipe(Effect.orDie)
    })

    // Organization owners and admins act as admins of every project of their organization. The
    // WHERE clause keeps only rows that have a role, so a row without one is a defect (the decode dies).
    const accessibleRows = (principal: Principal, only: ProjectId | null) =>
      sql`
        SELECT p.id, p.name, p.ref, p.organization_id AS "organizationId", o.slug AS "organizationSlug",
          o.name AS "organizationName", p.created_at AS "createdAt", p.updated_at AS "updatedAt",
          CASE WHEN om.role IN ('owner', 'admin') THEN 'admin' ELSE pm.role END AS role
        FROM projects p
        JOIN organizations o ON o.id = p.organization_id
        LEFT JOIN organization_members om ON om.organization_id = p.organization_id AND om.user_id = ${principal.userId}
        LEFT JOIN project_members pm ON pm.project_id = p.id AND pm.user_id = ${principal.userId}
        WHERE (pm.role IS NOT NULL OR om.role IN ('owner', 'admin'))
          ${only === null ? sql`` : sql`AND p.id = ${only}`}
        ORDER BY o.slug, p.name, p.id`.pipe(Effect.flatMap(decodeAccessible), Effect.orDie)

    /** The projects the principal's user can access, narrowed by the key's project list. */
    const listAccessible = Effect.fn("Projects.listAccessible")(function*(principal: Principal) {
      const rows = yield* accessibleRows(principal, null)
      const narrowed = principal.projectIds
      return narrowed === null ? rows : rows.filter((row) => narrowed.includes(row.id))
    })

    /**
     * Resolves a project for the principal. A project the user cannot see is reported as not
     * found (no existence leak); one the key is narrowed away from is forbidden.
     */
    const access = Effect.fn("Projects.access")(function*(principal: Principal, projectId: ProjectId) {
      const [row] = yield* accessibleRows(principal, projectId)
      if (row === undefined) return yield* new NotFound({ message: `projectId: project ${projectId} not found` })
      if (principal.projectIds !== null && !principal.projectIds.includes(projectId)) {
        return yield* new Forbidden({ message: `projectId: this API key is not allowed to access project ${projectId}` })
      }
      const { role, ...project } = row
      return { project, role }
    })

    return { create, get, listAccessible, access } as const
  }),
  dependencies: [TaskLists.Default]
}) {}
