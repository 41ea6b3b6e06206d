import * as PageCursor from "../../catalog/domain/PageCursor.js"
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Schema } from "effect"
import type * as ListCatalog from "../../catalog/Lists.js"
import type { InputOf } from "../../catalog/Tool.js"
import { canManageLists } from "../platform/auth/Permissions.js"
import type { ProjectAccess } from "../platform/auth/Principal.js"
import { violatedConstraint } from "../platform/sql/SqlErrors.js"
import { Conflict, Forbidden, InvalidArgument, LimitExceeded, NotFound } from "../../catalog/domain/Errors.js"
import { ProjectId, TaskListId } from "../../catalog/domain/Ids.js"
import { validateName } from "../../catalog/domain/Names.js"
import { rankAfter } from "../../catalog/domain/Rank.js"
import {
  BACKLOG_NAME,
  BACKLOG_REF,
  BoardGroupBy,
  DEFAULT_BOARD_GROUP_BY,
  deriveListRef,
  ListColor,
  MAX_ACTIVE_LISTS,
  MAX_LIST_NAME_LENGTH,
  validateListRef,
  ViewMode
} from "../../catalog/domain/TaskList.js"

export const TaskListRecord = Schema.Struct({
  id: TaskListId,
  projectId: ProjectId,
  ref: Schema.String,
  name: Schema.String,
  color: Schema.NullOr(ListColor),
  defaultViewMode: Schema.NullOr(ViewMode),
  defaultBoardGroupBy: Schema.NullOr(BoardGroupBy),
  isSystem: Schema.Boolean,
  rank: Schema.String,
  archivedAt: Schema.NullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})
export type TaskListRecord = typeof TaskListRecord.Type

export type CreateTaskList = Omit<InputOf<typeof ListCatalog.CreateTaskList>, "projectId">

/** Omitted fields are kept; `null` clears `color`, and makes `defaultViewMode` inherit the project's. */
export type UpdateTaskList = Omit<InputOf<typeof ListCatalog.UpdateTaskList>, "projectId" | "listId">

export type ListTaskLists = Omit<InputOf<typeof ListCatalog.ListTaskLists>, "projectId">

export const DEFAULT_PAGE_SIZE = 20
export const MAX_PAGE_SIZE = 50

const decodeRecord = Schema.decodeUnknown(TaskListRecord)
const decodeRecords = Schema.decodeUnknown(Schema.Array(TaskListRecord))
const decodeCount = Schema.decodeUnknown(Schema.Array(Schema.Struct({ n: Schema.Int })))
const decodeRefsAndRanks = Schema.decodeUnknown(Schema.Array(TaskListRecord.pick("ref", "rank")))

/** A page boundary: the (rank, id) sort key of the last List returned, as base64url JSON. */
/** After the last row's (rank, id). */
const Cursor = PageCursor.make("list_task_lists", Schema.Tuple(Schema.String, TaskListId))

/** A board groups by status unless told otherwise; other view modes have no grouping. */
const boardGroupBy = (
  mode: ViewMode | null,
  requested: BoardGroupBy | null | undefined,
  current: BoardGroupBy | null
): BoardGroupBy | null =>
  mode !== "board" ? null : requested === undefined ? current ?? DEFAULT_BOARD_GROUP_BY : requested ?? DEFAULT_BOARD_GROUP_BY

const requireListManagement = (access: ProjectAccess) =>
  canManageLists(access.role)
    ? Effect.void
    : new Forbidden({
      message: `managing Lists in project ${access.project.ref} requires the project role member or admin; the caller is ${access.role}`
    })

export class TaskLists extends Effect.Service<TaskLists>()("trellis/TaskLists", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const columns = sql`id, project_id AS "projectId", ref, name, color, default_view_mode AS "defaultViewMode",
      default_board_group_by AS "defaultBoardGroupBy", is_system AS "isSystem", rank, archived_at AS "archivedAt",
      created_at AS "createdAt", updated_at AS "updatedAt"`

    const uniqueConflict = (access: ProjectAccess, values: { readonly name: string; readonly ref: string }) => (error: SqlError) => {
      switch (violatedConstraint(error)) {
        case "task_lists_project_name_key":
          return new Conflict({
            message: `name: project ${access.project.ref} already has a List named "${values.name}" (names are unique ignoring case)`
          })
        case "task_lists_project_ref_key":
          return new Conflict({ message: `ref: project ${access.project.ref} already has a List with ref ${values.ref}` })
        default:
          return Effect.die(error)
      }
    }

    /** The system Backlog of a new project; runs inside the project's creating transaction. */
    const createBacklog = Effect.fn("TaskLists.createBacklog")(function*(projectId: ProjectId) {
      const rank = yield* rankAfter(null)
      yield* sql`INSERT INTO task_lists (id, project_id, name, ref, is_system, rank)
        VALUES (${TaskListId.generate()}, ${projectId}, ${BACKLOG_NAME}, ${BACKLOG_REF}, true, ${rank})`.pipe(Effect.orDie)
    })

    const findRow = (access: ProjectAccess, listIdOrRef: string, forUpdate: boolean) =>
      sql`SELECT ${columns} FROM task_lists
        WHERE project_id = ${access.project.id} AND (id = ${listIdOrRef} OR ref = ${listIdOrRef.trim().toUpperCase()})
        ${forUpdate ? sql`FOR UPDATE` : sql``}`.pipe(
        Effect.orDie,
        Effect.flatMap((rows) =>
          rows[0] === undefined
            ? new NotFound({ message: `listId: list ${listIdOrRef} not found in project ${access.project.ref}` })
            : Effect.orDie(decodeRecord(rows[0]))
        )
      )

    /**
     * A List of the project by raw ID or bare ref (any case). A List of another project is not
     * found, whether or not it exists.
     */
    const resolve = Effect.fn("TaskLists.resolve")(function*(access: ProjectAccess, listIdOrRef: string) {
      return yield* findRow(access, listIdOrRef, false)
    })

    /**
     * Active (or archived) Lists in rank order, the Backlog first, optionally narrowed to those
     * whose name or ref contains `query` (ignoring case), one page at a time.
     */
    const list = Effect.fn("TaskLists.list")(function*(access: ProjectAccess, options: ListTaskLists = {}) {
      const limit = options.limit ?? DEFAULT_PAGE_SIZE
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
        return yield* new InvalidArgument({ message: `limit: must be an integer from 1 to ${MAX_PAGE_SIZE}` })
      }
      const after = yield* Cursor.decode(options.cursor)
      const query = options.query?.trim() ?? ""
      const rows = yield* sql`SELECT ${columns} FROM task_lists
        WHERE project_id = ${access.project.id}
          AND ${options.archived === true ? sql`archived_at IS NOT NULL` : sql`archived_at IS NULL`}
          ${query === "" ? sql`` : sql`AND (strpos(lower(name), lower(${query})) > 0 OR strpos(lower(ref), lower(${query})) > 0)`}
          ${after === null ? sql`` : sql`AND (rank, id) > (${after[0]}, ${after[1]})`}
        ORDER BY rank, id
        LIMIT ${limit + 1}`.pipe(Effect.orDie, Effect.flatMap((rows) => Effect.orDie(decodeRecords(rows))))
      const lists = rows.slice(0, limit)
      const last = lists[lists.length - 1]
      const nextCursor = rows.length > limit && last !== undefined
        ? Cursor.encode([last.rank, last.id])
        : null
      return { lists, nextCursor }
    })

    /**
     * Creates a List at the end of the project's rank order. Holding the project row while
     * counting keeps the limit exact under concurrent creates (and derived refs distinct).
     */
    const create = Effect.fn("TaskLists.create")(function*(access: ProjectAccess, input: CreateTaskList) {
      yield* requireListManagement(access)
      const name = yield* validateName("name", input.name, MAX_LIST_NAME_LENGTH)
      const explicitRef = input.ref === undefined ? null : yield* validateListRef(input.ref)
      const mode = input.defaultViewMode ?? null
      const groupBy = boardGroupBy(mode, input.defaultBoardGroupBy, null)
      const projectId = access.project.id
      return yield* sql.withTransaction(Effect.gen(function*() {
        // NO KEY UPDATE serializes List writers without blocking inserts that only reference the project.
        yield* sql`SELECT id FROM projects WHERE id = ${projectId} FOR NO KEY UPDATE`
        const [counted] = yield* sql`SELECT count(*)::int AS n FROM task_lists
          WHERE project_id = ${projectId} AND archived_at IS NULL AND NOT is_system`.pipe(
          Effect.flatMap((rows) => Effect.orDie(decodeCount(rows)))
        )
        if ((counted?.n ?? 0) >= MAX_ACTIVE_LISTS) {
          return yield* new LimitExceeded({
            message:
              `project ${access.project.ref} already has ${MAX_ACTIVE_LISTS} active Lists, the most a project can have (the system Backlog does not count)`
          })
        }
        const existing = yield* sql`SELECT ref, rank FROM task_lists
          WHERE project_id = ${projectId} ORDER BY rank DESC, id DESC`.pipe(
          Effect.flatMap((rows) => Effect.orDie(decodeRefsAndRanks(rows)))
        )
        const ref = explicitRef ?? deriveListRef(name, existing.map((row) => row.ref))
        const rank = yield* rankAfter(existing[0]?.rank ?? null)
        const rows = yield* sql`INSERT INTO task_lists
            (id, project_id, name, ref, color, default_view_mode, default_board_group_by, rank)
          VALUES (${TaskListId.generate()}, ${projectId}, ${name}, ${ref}, ${input.color ?? null}, ${mode}, ${groupBy}, ${rank})
          RETURNING ${columns}`.pipe(Effect.catchTag("SqlError", uniqueConflict(access, { name, ref })))
        return yield* Effect.orDie(decodeRecord(rows[0]))
      })).pipe(Effect.catchTag("SqlError", Effect.die))
    })

    /** Changes a user List's name, ref, color or default view; system Lists cannot be changed. */
    const update = Effect.fn("TaskLists.update")(function*(
      access: ProjectAccess,
      listIdOrRef: string,
      patch: UpdateTaskList
    ) {
      yield* requireListManagement(access)
      if (patch.name === undefined && patch.ref === undefined && patch.color === undefined && patch.defaultViewMode === undefined) {
        return yield* new InvalidArgument({
          message:
            "name, ref, color, defaultViewMode: pass at least one to change (defaultBoardGroupBy alone is not enough: pass it with defaultViewMode \"board\")"
        })
      }
      const name = patch.name === undefined ? undefined : yield* validateName("name", patch.name, MAX_LIST_NAME_LENGTH)
      const ref = patch.ref === undefined ? undefined : yield* validateListRef(patch.ref)
      return yield* sql.withTransaction(Effect.gen(function*() {
        const current = yield* findRow(access, listIdOrRef, true)
        if (current.isSystem) {
          return yield* new InvalidArgument({
            message: `listId: ${current.ref} is a system List of project ${access.project.ref} and cannot be updated`
          })
        }
        const next = {
          name: name ?? current.name,
          ref: ref ?? current.ref,
          color: patch.color === undefined ? current.color : patch.color,
          mode: patch.defaultViewMode === undefined ? current.defaultViewMode : patch.defaultViewMode
        }
        const groupBy = boardGroupBy(next.mode, patch.defaultBoardGroupBy, current.defaultBoardGroupBy)
        const rows = yield* sql`UPDATE task_lists
          SET name = ${next.name}, ref = ${next.ref}, color = ${next.color}, default_view_mode = ${next.mode},
            default_board_group_by = ${groupBy}, updated_at = now()
          WHERE id = ${current.id}
          RETURNING ${columns}`.pipe(Effect.catchTag("SqlError", uniqueConflict(access, next)))
        return yield* Effect.orDie(decodeRecord(rows[0]))
      })).pipe(Effect.catchTag("SqlError", Effect.die))
    })

    return { createBacklog, resolve, list, create, update } as const
  })
}) {}
