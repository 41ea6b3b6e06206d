import { Effect } from "effect"
import { ListProjects } from "../../catalog/Projects.js"
import { CurrentPrincipal } from "../platform/auth/Principal.js"
import { Projects } from "./Projects.js"
import * as Implement from "../platform/mcp/ToolImplementation.js"

export const ProjectTools = Effect.gen(function*() {
  const projects = yield* Projects
  return [
    Implement.unscoped(ListProjects, () =>
      Effect.gen(function*() {
        const rows = yield* projects.listAccessible(yield* CurrentPrincipal)
        return {
          projects: rows.map((row) => ({
            projectId: row.id,
            name: row.name,
            ref: row.ref,
            organization: { organizationId: row.organizationId, slug: row.organizationSlug, name: row.organizationName },
            role: row.role,
            createdAt: row.createdAt.toISOString(),
            updatedAt: row.updatedAt.toISOString()
          }))
        }
      }))
  ] as const
})
