import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { OrganizationId, ProjectId, UserId } from "../../catalog/domain/Ids.js"
import type { OrganizationRole, ProjectRole } from "../../catalog/domain/Roles.js"

/** Organization and project memberships; adding an existing member changes their role. */
export class Memberships extends Effect.Service<Memberships>()("trellis/Memberships", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const addToOrganization = Effect.fn("Memberships.addToOrganization")(function*(
      organizationId: OrganizationId,
      userId: UserId,
      role: OrganizationRole
    ) {
      yield* sql`INSERT INTO organization_members (organization_id, user_id, role)
        VALUES (${organizationId}, ${userId}, ${role})
        ON CONFLICT (organization_id, user_id) DO UPDATE SET role = EXCLUDED.role`.pipe(Effect.orDie)
    })

    const addToProject = Effect.fn("Memberships.addToProject")(function*(
      projectId: ProjectId,
      userId: UserId,
      role: ProjectRole
    ) {
      yield* sql`INSERT INTO project_members (project_id, user_id, role)
        VALUES (${projectId}, ${userId}, ${role})
        ON CONFLICT (project_id, user_id) DO UPDATE SET role = EXCLUDED.role`.pipe(Effect.orDie)
    })

    return { addToOrganization, addToProject } as const
  })
}) {}
