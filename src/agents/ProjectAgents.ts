import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import type * as AgentCatalog from "../../catalog/Agents.js"
import type { InputOf } from "../../catalog/Tool.js"
import { canWrite } from "../platform/auth/Permissions.js"
import type { Principal, ProjectAccess } from "../platform/auth/Principal.js"
import { Forbidden, NotFound } from "../../catalog/domain/Errors.js"
import { ProjectAgentId, ProjectId } from "../../catalog/domain/Ids.js"
import { validateName } from "../../catalog/domain/Names.js"
import { AgentAutomation, AgentColor, MAX_AGENT_NAME_LENGTH } from "../../catalog/domain/ProjectAgent.js"
import { Projects } from "../projects/Projects.js"

export const ProjectAgentRecord = Schema.Struct({
  id: ProjectAgentId,
  projectId: ProjectId,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  prompt: Schema.NullOr(Schema.String),
  category: Schema.NullOr(Schema.String),
  color: AgentColor,
  automation: Schema.NullOr(AgentAutomation),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})
export type ProjectAgentRecord = typeof ProjectAgentRecord.Type

export type CreateProjectAgent = Omit<InputOf<typeof AgentCatalog.CreateProjectAgent>, "projectId">

/** Omitted fields are kept; null clears description, prompt, category and automation. */
export type UpdateProjectAgent = Omit<InputOf<typeof AgentCatalog.UpdateProjectAgent>, "projectAgentId">

const decodeRecords = Schema.decodeUnknown(Schema.Array(ProjectAgentRecord))
const decodeOwners = Schema.decodeUnknown(Schema.Array(ProjectAgentRecord.pick("projectId")))
const encodeAutomation = Schema.encodeSync(AgentAutomation)

const requireWriter = (access: ProjectAccess) =>
  canWrite(access.role)
    ? Effect.void
    : new Forbidden({
      message:
        `changing project agents in project ${access.project.ref} requires the project role admin or member; the caller is ${access.role}`
    })

/** The agents tasks can be delegated to. Archived agents stay referenced by old tasks and threads but are not listed. */
export class ProjectAgents extends Effect.Service<ProjectAgents>()("trellis/ProjectAgents", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const projects = yield* Projects

    const columns = sql`id, project_id AS "projectId", name, description, prompt, category, color, automation,
      created_at AS "createdAt", updated_at AS "updatedAt"`

    const automationJson = (automation: AgentAutomation | null | undefined) =>
      automation === undefined || automation === null ? null : JSON.stringify(encodeAutomation(automation))

    /** The project's active agents, by name. */
    const list = Effect.fn("ProjectAgents.list")(function*(access: ProjectAccess) {
      const rows = yield* sql`SELECT ${columns} FROM project_agents
        WHERE project_id = ${access.project.id} AND archived_at IS NULL ORDER BY name, id`.pipe(Effect.orDie)
      return yield* Effect.orDie(decodeRecords(rows))
    })

    const create = Effect.fn("ProjectAgents.create")(function*(access: ProjectAccess, input: CreateProjectAgent) {
      yield* requireWriter(access)
      const name = yield* validateName("name", input.name, MAX_AGENT_NAME_LENGTH)
      const id = ProjectAgentId.generate()
      yield* sql`INSERT INTO project_agents (id, project_id, name, description, prompt, category, color, automation)
        VALUES (${id}, ${access.project.id}, ${name}, ${input.description ?? null}, ${input.prompt ?? null},
          ${input.category ?? null}, ${input.appearance.color}, ${automationJson(input.automation)}::jsonb)`.pipe(Effect.orDie)
      return id
    })

    /**
     * Changes the fields given. The agent is found through its own project, so the caller needs
     * access to that project; one they cannot see is not found.
     */
    const update = Effect.fn("ProjectAgents.update")(function*(
      principal: Principal,
      agentId: ProjectAgentId,
      patch: UpdateProjectAgent
    ) {
      const notFound = new NotFound({ message: `projectAgentId: project agent ${agentId} not found` })
      const [owner] = yield* sql`SELECT project_id AS "projectId" FROM project_agents
        WHERE id = ${agentId} AND archived_at IS NULL`.pipe(Effect.flatMap(decodeOwners), Effect.orDie)
      if (owner === undefined) return yield* notFound
      const access = yield* projects.access(principal, owner.projectId).pipe(Effect.catchTag("NotFound", () => notFound))
      yield* requireWriter(access)
      const name = patch.name === undefined ? undefined : yield* validateName("name", patch.name, MAX_AGENT_NAME_LENGTH)
      const sets = [
        name === undefined ? undefined : sql`name = ${name}`,
        patch.description === undefined ? undefined : sql`description = ${patch.description}`,
        patch.prompt === undefined ? undefined : sql`prompt = ${patch.prompt}`,
        patch.category === undefined ? undefined : sql`category = ${patch.category}`,
        patch.appearance === undefined ? undefined : sql`color = ${patch.appearance.color}`,
        patch.automation === undefined ? undefined : sql`automation = ${automationJson(patch.automation)}::jsonb`
      ].filter((set) => set !== undefined)
      const updated = yield* sql`UPDATE project_agents SET ${sql.csv([...sets, sql`updated_at = now()`])}
        WHERE id = ${agentId} AND archived_at IS NULL RETURNING id`.pipe(Effect.orDie)
      if (updated.length === 0) return yield* notFound
    })

    return { list, create, update } as const
  }),
  dependencies: [Projects.Default]
}) {}
