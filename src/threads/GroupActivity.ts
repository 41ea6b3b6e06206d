import type { SqlClient } from "@effect/sql"

/**
 * A group's row sorts by its latest member activity: a member's run starting or ending, or a
 * message sent to it, touches the group. A thread outside any group changes nothing.
 */
export const touchGroup = (sql: SqlClient.SqlClient, threadId: string) =>
  sql`UPDATE threads SET last_activity_at = now() WHERE id = (SELECT parent_thread_id FROM threads WHERE id = ${threadId})`
