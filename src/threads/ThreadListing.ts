import * as PageCursor from "../../catalog/domain/PageCursor.js"
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import type { Principal, ProjectAccess } from "../platform/auth/Principal.js"
import { MAX_GROUP_SIZE } from "../../catalog/domain/Thread.js"
import { type ListThreads, MAX_TASK_RUNS } from "../../catalog/Threads.js"
import type * as Tool from "../../catalog/Tool.js"
import { ThreadRows } from "./ThreadRows.js"
import { threadReadableBy } from "./ThreadVisibility.js"

/**
 * After the last row's (last activity, id). The activity is microseconds since the epoch, an
 * integer: exact, independent of the session's time zone, and nothing SQL can fail to parse.
 */
const Cursor = PageCursor.make(
  "list_threads",
  Schema.Tuple(
    Schema.String.pipe(Schema.pattern(/^-?\d{1,16}$/)),
    Schema.String
  )
)

/** A page of the project list, as `list_threads` asks for it. */
export type ProjectPage = Pick<Tool.InputOf<typeof ListThreads>, "includeDone" | "limit" | "cursor">

/** `list_threads`: the caller's project list, page by page, or one group's members. */
export class ThreadListing extends Effect.Service<ThreadListing>()("trellis/ThreadListing", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* ThreadRows

    /** The project list: the caller's top-level rows (threads outside groups, and containers), newest activity first. */
    const listProject = Effect.fn("ThreadListing.listProject")(function*(
      principal: Principal,
      access: ProjectAccess,
      options: ProjectPage
    ) {
      let after = sql``
      const position = yield* Cursor.decode(options.cursor)
      if (position !== null) {
        const [micros, id] = position
        after = sql`AND (t.last_activity_at, t.id) < (timestamptz 'epoch' + ${micros}::bigint * interval '1 microsecond', ${id})`
      }
      const found = yield* rows.select(
        sql.and([
          sql`t.project_id = ${access.project.id}`,
          sql`t.created_by = ${principal.userId}`,
          sql`t.deleted_at IS NULL`,
          sql`t.parent_thread_id IS NULL`,
          options.includeDone ? sql`true` : sql`t.done_at IS NULL`
        ]),
        sql`${after} ORDER BY t.last_activity_at DESC, t.id DESC LIMIT ${options.limit + 1}`
      )
      const page = found.slice(0, options.limit)
      const last = page.at(-1)
      const nextCursor = found.length > options.limit && last !== undefined
        ? Cursor.encode([last.activityCursor, last.id])
        : null
      return { threads: page, nextCursor }
    })

    /** A group's members, all in one page; an unreadable or ordinary ID gives none. */
    const listMembers = Effect.fn("ThreadListing.listMembers")(function*(
      principal: Principal,
      containerId: string,
      includeDone: boolean
    ) {
      const container = yield* rows.findReadable(principal, containerId)
      if (container === undefined || container.kind === "thread") return []
      return yield* rows.select(
        sql.and([
          sql`t.parent_thread_id = ${containerId}`,
          sql`t.deleted_at IS NULL`,
          includeDone ? sql`true` : sql`t.done_at IS NULL`
        ]),
        sql`ORDER BY t.created_at, t.id LIMIT ${MAX_GROUP_SIZE}`
      )
    })

    /** A task's runs: the threads bound to it that the caller may read, running and pending first. */
    const listTask = Effect.fn("ThreadListing.listTask")(function*(
      principal: Principal,
      taskId: string,
      includeDone: boolean
    ) {
      return yield* rows.select(
        sql.and([
          sql`t.associated_task_id = ${taskId}`,
          sql`t.kind = 'thread'`,
          sql`t.deleted_at IS NULL`,
          includeDone ? sql`true` : sql`t.done_at IS NULL`,
          threadReadableBy(sql, principal)
        ]),
        sql`ORDER BY (t.status IN ('running', 'pending')) DESC, t.last_activity_at DESC, t.id DESC LIMIT ${MAX_TASK_RUNS}`
      )
    })

    return { listProject, listMembers, listTask } as const
  }),
  dependencies: [ThreadRows.Default]
}) {}
