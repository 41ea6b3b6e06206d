import { Context } from "effect"
import type { Principal } from "../../../catalog/domain/Principal.js"
import type { ProjectRole } from "../../../catalog/domain/Roles.js"
export { CurrentPrincipal, type Principal } from "../../../catalog/domain/Principal.js"
import type { ProjectRecord } from "../../../catalog/domain/Project.js"

/** The project a `P?` tool works in, resolved and access-checked by the dispatcher. */
export class CurrentProject extends Context.Tag("trellis/CurrentProject")<
  CurrentProject,
  { readonly project: ProjectRecord; readonly role: ProjectRole }
>() {}

/** The connection's default project (`?project=` on the MCP URL), if any. */
export class DefaultProject extends Context.Tag("trellis/DefaultProject")<DefaultProject, string | null>() {}

/** A resolved project and the caller's effective role in it: what services check permissions against. */
export type ProjectAccess = Context.Tag.Service<CurrentProject>

/** Whether the key may reach the project at all (a narrowed key reaches only its projects). */
export const keyReaches = (principal: Principal, projectId: string): boolean =>
  principal.projectIds === null || principal.projectIds.some((id) => id === projectId)
