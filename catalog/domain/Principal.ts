import { Context } from "effect"
import type { ApiKeyId, ProjectId, UserId } from "./Ids.js"

/**
 * Who is calling: the user behind the API key, the projects the key is narrowed to (null: all),
 * and whether the key may only read.
 */
export interface Principal {
  readonly userId: UserId
  readonly apiKeyId: ApiKeyId
  readonly projectIds: ReadonlyArray<ProjectId> | null
  readonly readOnly: boolean
}

/** The caller of a request, provided by the key check of every route (the bridge API's middleware names it). */
export class CurrentPrincipal extends Context.Tag("trellis/CurrentPrincipal")<CurrentPrincipal, Principal>() {}
