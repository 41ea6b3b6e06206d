import { Effect } from "effect"
import { Forbidden } from "../../catalog/domain/Errors.js"
import { canWrite } from "../platform/auth/Permissions.js"
import type { ProjectAccess } from "../platform/auth/Principal.js"
import type { TaskRow } from "./TaskRow.js"

/** A task found for a caller, with the caller's access to its project. */
export interface ResolvedTask {
  readonly task: TaskRow
  readonly access: ProjectAccess
}

/** Writing a project's tasks and what hangs off them (comments, artifacts) needs the role member or admin. */
export const requireWrite = (access: ProjectAccess, what = "tasks") =>
  canWrite(access.role)
    ? Effect.void
    : new Forbidden({
      message: `changing ${what} in project ${access.project.ref} requires the project role member or admin; the caller is ${access.role}`
    })
