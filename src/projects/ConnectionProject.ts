import { Effect, Either, Option, Schema } from "effect"
import { ProjectId } from "../../catalog/domain/Ids.js"
import { CurrentPrincipal, DefaultProject, type ProjectAccess } from "../platform/auth/Principal.js"
import type { Projects } from "./Projects.js"

const decodeProjectId = Schema.decodeUnknownEither(ProjectId)

/**
 * The MCP connection's project (`?project=` on its URL), access-checked for the caller: what the
 * server shows beside the tool catalog (prompts, Skills) belongs to it. None without `?project=`,
 * for a value that is not a project ID, and for a project the key cannot reach: there is then
 * nothing to show, rather than an error on every listing.
 */
export const connectionProject = (
  projects: Projects
): Effect.Effect<Option.Option<ProjectAccess>, never, CurrentPrincipal | DefaultProject> =>
  Effect.gen(function*() {
    const fallback = yield* DefaultProject
    if (fallback === null) return Option.none()
    const projectId = decodeProjectId(fallback)
    if (Either.isLeft(projectId)) return Option.none()
    return yield* projects.access(yield* CurrentPrincipal, projectId.right).pipe(Effect.option)
  })
