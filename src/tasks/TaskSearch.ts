import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import type { SearchTasks } from "../../catalog/Tasks.js"
import * as PageCursor from "../../catalog/domain/PageCursor.js"
import type { ProjectAccess } from "../platform/auth/Principal.js"
import { TaskLists } from "../lists-labels/TaskLists.js"
import { TaskReads } from "./TaskReads.js"

/** search_tasks' arguments; the project is resolved by the caller. */
export type TaskSearchInput = Omit<typeof SearchTasks.input.Type, "projectId">

/** After the last match's (score, id); a score is finite (JSON's 1e999 would decode to Infinity). */
const searchCursor = PageCursor.make("search_tasks", Schema.Tuple(Schema.Finite, Schema.String))

/** Full-text search over a project's tasks. */
export class TaskSearch extends Effect.Service<TaskSearch>()("trellis/TaskSearch", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const taskLists = yield* TaskLists
    const reads = yield* TaskReads

    /** Best matches first (ties by ID), paged with an opaque (score, id) cursor. */
    const search = Effect.fn("TaskSearch.search")(function*(access: ProjectAccess, input: TaskSearchInput) {
      const limit = input.limit ?? 20
      const after = yield* searchCursor.decode(input.cursor)
      const listId = input.listId === undefined ? undefined : (yield* taskLists.resolve(access, input.listId)).id
      const filters = input.filters ?? {}
      // A query that is a task ref finds that task first; refs are not in the text index.
      const refQuery = input.query.trim().toUpperCase()
      const conditions = sql.and([
        sql`t.project_id = ${access.project.id}`,
        sql`(t.search @@ q.query OR t.ref = ${refQuery})`,
        input.archiveMode === "archived" ? sql`t.archived_at IS NOT NULL` : sql`t.archived_at IS NULL`,
        ...(filters.status === undefined ? [] : [sql`t.status = ${filters.status}`]),
        ...(filters.assigneeId === undefined
          ? []
          : [filters.assigneeId === null ? sql`t.assignee_id IS NULL` : sql`t.assignee_id = ${filters.assigneeId}`]),
        ...(filters.delegatedToAgentId === undefined
          ? []
          : [
            filters.delegatedToAgentId === null
              ? sql`t.delegated_to_agent_id IS NULL`
              : sql`t.delegated_to_agent_id = ${filters.delegatedToAgentId}`
          ]),
        ...(listId === undefined ? [] : [sql`t.list_id = ${listId}`])
      ])
      const page = yield* reads.findMatches(sql`
        SELECT id, score FROM (
          SELECT t.id, CASE WHEN t.ref = ${refQuery} THEN 1e6 ELSE ts_rank(t.search, q.query) END::float8 AS score
          FROM tasks t, websearch_to_tsquery('simple', ${input.query}) AS q(query)
          WHERE t.deleted_at IS NULL AND ${conditions}
        ) ranked
        ${after === null ? sql`` : sql`WHERE (score < ${after[0]} OR (score = ${after[0]} AND id > ${after[1]}))`}
        ORDER BY score DESC, id
        LIMIT ${limit + 1}`)
      const shown = page.slice(0, limit)
      const last = shown.at(-1)
      return {
        tasks: shown.map(({ score: _score, ...task }) => task),
        nextCursor: page.length > limit && last !== undefined ? searchCursor.encode([last.score, last.id]) : null
      }
    })

    return { search } as const
  }),
  dependencies: [TaskLists.Default, TaskReads.Default]
}) {}
