import { Context } from "effect"
import type { ApiKeyId, ProjectId, UserId } from "../domain/Ids.js"
import type { ProjectRole } from "../domain/Roles.js"
import type { ProjectRecord } from "../services/Projects.js"

/** Who is calling: the user behind the API key, and the projects the key is narrowed to (null: all). */
export interface Principal {
  readonly userId: UserId
  readonly apiKeyId: ApiKeyId
  readonly projectIds: ReadonlyArray<ProjectId> | null
}

export class CurrentPrincipal extends Context.Tag("trellis/CurrentPrincipal")<CurrentPrincipal, Principal>() {}

/** The project a `P?` tool works in, resolved and access-checked by the dispatcher. */
export class CurrentProject extends Context.Tag("trellis/CurrentProject")<
  CurrentProject,
  { readonly project: ProjectRecord; readonly role: ProjectRole }
>() {}

/** A resolved project and the caller's effective role in it: what services check permissions against. */
export type ProjectAccess = Context.Tag.Service<CurrentProject>

/** Whether the key may reach the project at all (a narrowed key reaches only its projects). */
export const keyReaches = (principal: Principal, projectId: string): boolean =>
  principal.projectIds === null || principal.projectIds.some((id) => id === projectId)
