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
  /**
   * The browser session the request is signed by (its stored SHA-256 digest), absent for a request
   * with the key itself: a session has a rate budget of its own, so one page cannot spend the
   * budget of the key's other clients.
   */
  readonly webSessionId?: string
}

/** The caller of a request, provided by the key check of every route (the bridge API's middleware names it). */
export class CurrentPrincipal extends Context.Tag("trellis/CurrentPrincipal")<CurrentPrincipal, Principal>() {}
