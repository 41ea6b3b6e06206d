import type { SqlClient } from "@effect/sql"
import { NotFound } from "../../catalog/domain/Errors.js"
import type { Principal } from "../platform/auth/Principal.js"

/**
 * The answer for a thread the caller may not read: the same as for one that does not exist, so
 * that nobody learns another organization's (or teammate's) thread IDs from a refusal.
 */
export const threadNotFound = new NotFound({ message: "Thread not found" })

/**
 * SQL condition on the thread row aliased `t`: the principal may read it, as `get_thread` decides
 * (their own threads and what a teammate shared, in a project the user belongs to and the key reaches).
 * Put in a statement's WHERE, an unreadable row is filtered out before `FOR UPDATE` could lock it;
 * each test is a primary-key probe, so it costs the hot path (chunk uploads) no extra round trip.
 */
export const threadReadableBy = (sql: SqlClient.SqlClient, principal: Principal) => {
  const narrowed = principal.projectIds === null
    ? sql`true`
    : principal.projectIds.length === 0
    ? sql`false`
    : sql`t.project_id IN ${sql.in(principal.projectIds)}`
  return sql`(
    (t.created_by = ${principal.userId} OR t.shared_at IS NOT NULL
      OR EXISTS (SELECT 1 FROM threads g WHERE g.id = t.parent_thread_id AND g.shared_at IS NOT NULL))
    AND (EXISTS (SELECT 1 FROM project_members pm WHERE pm.project_id = t.project_id AND pm.user_id = ${principal.userId})
      OR EXISTS (SELECT 1 FROM organization_members om WHERE om.user_id = ${principal.userId} AND om.role IN ('owner', 'admin')
        AND om.organization_id = (SELECT p.organization_id FROM projects p WHERE p.id = t.project_id)))
    AND ${narrowed})`
}
