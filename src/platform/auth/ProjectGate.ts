import { Context, type Effect } from "effect"
import type { Forbidden, NotFound } from "../../../catalog/domain/Errors.js"
import type { ProjectId } from "../../../catalog/domain/Ids.js"
import type { Principal, ProjectAccess } from "./Principal.js"

/**
 * Resolves a project for a caller and checks the key may reach it. The platform needs this one
 * check (to scope `P?` tools) without depending on the projects feature that implements it.
 */
export class ProjectGate extends Context.Tag("trellis/ProjectGate")<ProjectGate, {
  readonly access: (principal: Principal, projectId: ProjectId) => Effect.Effect<ProjectAccess, NotFound | Forbidden>
}>() {}
