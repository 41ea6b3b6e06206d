import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Schema } from "effect"
import type { CreateTaskLabel, DeleteTaskLabel, UpdateTaskLabel } from "../../catalog/Labels.js"
import type { InputOf } from "../../catalog/Tool.js"
import { isProjectAdmin } from "../platform/auth/Permissions.js"
import type { ProjectAccess } from "../platform/auth/Principal.js"
import { violatedConstraint } from "../platform/sql/SqlErrors.js"
import { Conflict, Forbidden, InvalidArgument, LimitExceeded, NotFound } from "../../catalog/domain/Errors.js"
import { LabelId, ProjectId, TaskId } from "../../catalog/domain/Ids.js"
import { DEFAULT_LABEL_COLOR, LabelColor, MAX_LABEL_NAME_LENGTH, MAX_LABELS } from "../../catalog/domain/Label.js"
import { validateName } from "../../catalog/domain/Names.js"
import { rankAfter } from "../../catalog/domain/Rank.js"

export const LabelRecord = Schema.Struct({
  id: LabelId,
  projectId: ProjectId,
  name: Schema.String,
  color: LabelColor,
  rank: Schema.String,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})
export type LabelRecord = typeof LabelRecord.Type

export type CreateLabel = Omit<InputOf<typeof CreateTaskLabel>, "projectId">
export type UpdateLabel = Omit<InputOf<typeof UpdateTaskLabel>, "projectId" | "labelId">
/** What happens to a deleted label's tasks. */
export type LabelResolution = NonNullable<InputOf<typeof DeleteTaskLabel>["resolution"]>

const decodeRecord = Schema.decodeUnknown(LabelRecord)
const decodeRecords = Schema.decodeUnknown(Schema.Array(LabelRecord))
/** The project's label count and its last rank (null when it has none). */
const decodeTally = Schema.decodeUnknown(Schema.Array(Schema.Struct({
  n: Schema.Int,
  last: Schema.NullOr(LabelRecord.fields.rank)
})))
const decodeTaskIds = Schema.decodeUnknown(Schema.Array(Schema.Struct({ id: TaskId })))

const requireAdmin = (access: ProjectAccess) =>
  isProjectAdmin(access.role)
    ? Effect.void
    : new Forbidden({
      message: `managing labels in project ${access.project.ref} requires the project role admin; the caller is ${access.role}`
    })

export class Labels extends Effect.Service<Labels>()("trellis/Labels", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const columns = sql`id, project_id AS "projectId", name, color, rank, created_at AS "createdAt", updated_at AS "updatedAt"`

    const nameConflict = (access: ProjectAccess, name: string) => (error: SqlError) =>
      violatedConstraint(error) === "labels_project_name_key"
        ? new Conflict({
          message: `name: project ${access.project.ref} already has a label named "${name}" (names are unique ignoring case)`
        })
        : Effect.die(error)

    const findRow = (access: ProjectAccess, labelIdOrName: string, forUpdate: boolean) =>
      // An ID match wins over a label that happens to be named like an ID.
      sql`SELECT ${columns} FROM labels
        WHERE project_id = ${access.project.id} AND (id = ${labelIdOrName} OR lower(name) = lower(${labelIdOrName.trim()}))
        ORDER BY (id = ${labelIdOrName}) DESC
        LIMIT 1
        ${forUpdate ? sql`FOR UPDATE` : sql``}`.pipe(
        Effect.orDie,
        Effect.flatMap((rows) =>
          rows[0] === undefined
            ? new NotFound({ message: `labelId: label ${labelIdOrName} not found in project ${access.project.ref}` })
            : Effect.orDie(decodeRecord(rows[0]))
        )
      )

    /**
     * A label of the project by ID or exact name (ignoring case). A label of another project is
     * not found, whether or not it exists.
     */
    const resolve = Effect.fn("Labels.resolve")(function*(access: ProjectAccess, labelIdOrName: string) {
      return yield* findRow(access, labelIdOrName, false)
    })

    /** The project's labels in board-column order. */
    const list = Effect.fn("Labels.list")(function*(access: ProjectAccess) {
      const rows = yield* sql`SELECT ${columns} FROM labels WHERE project_id = ${access.project.id} ORDER BY rank, id`.pipe(
        Effect.orDie
      )
      return yield* Effect.orDie(decodeRecords(rows))
    })

    /**
     * Creates a label as the last board column. Holding the project row while counting keeps the
     * limit exact under concurrent creates.
     */
    const create = Effect.fn("Labels.create")(function*(access: ProjectAccess, input: CreateLabel) {
      yield* requireAdmin(access)
      const name = yield* validateName("name", input.name, MAX_LABEL_NAME_LENGTH)
      const projectId = access.project.id
      return yield* sql.withTransaction(Effect.gen(function*() {
        // NO KEY UPDATE serializes label writers without blocking inserts that only reference the project.
        yield* sql`SELECT id FROM projects WHERE id = ${projectId} FOR NO KEY UPDATE`
        const [counted] = yield* sql`
          SELECT count(*)::int AS n, max(rank) AS last FROM labels WHERE project_id = ${projectId}`.pipe(
          Effect.flatMap((rows) => Effect.orDie(decodeTally(rows)))
        )
        if ((counted?.n ?? 0) >= MAX_LABELS) {
          return yield* new LimitExceeded({
            message: `project ${access.project.ref} already has ${MAX_LABELS} labels, the most a project can have`
          })
        }
        const rank = yield* rankAfter(counted?.last ?? null)
        const rows = yield* sql`INSERT INTO labels (id, project_id, name, color, rank)
          VALUES (${LabelId.generate()}, ${projectId}, ${name}, ${input.color ?? DEFAULT_LABEL_COLOR}, ${rank})
          RETURNING ${columns}`.pipe(Effect.catchTag("SqlError", nameConflict(access, name)))
        return yield* Effect.orDie(decodeRecord(rows[0]))
      })).pipe(Effect.catchTag("SqlError", Effect.die))
    })

    /** Renames or recolors a label; tasks keep it, since they refer to it by ID. */
    const update = Effect.fn("Labels.update")(function*(
      access: ProjectAccess,
      labelIdOrName: string,
      patch: UpdateLabel
    ) {
      yield* requireAdmin(access)
      if (patch.name === undefined && patch.color === undefined) {
        return yield* new InvalidArgument({ message: "name, color: pass at least one to change" })
      }
      const name = patch.name === undefined ? undefined : yield* validateName("name", patch.name, MAX_LABEL_NAME_LENGTH)
      return yield* sql.withTransaction(Effect.gen(function*() {
        const current = yield* findRow(access, labelIdOrName, true)
        const next = { name: name ?? current.name, color: patch.color ?? current.color }
        const rows = yield* sql`UPDATE labels SET name = ${next.name}, color = ${next.color}, updated_at = now()
          WHERE id = ${current.id}
          RETURNING ${columns}`.pipe(Effect.catchTag("SqlError", nameConflict(access, next.name)))
        return yield* Effect.orDie(decodeRecord(rows[0]))
      })).pipe(Effect.catchTag("SqlError", Effect.die))
    })

    /**
     * Deletes a label and deals with its tasks in the same transaction: clears the label, moves
     * them to another label, or clears it and archives the active ones.
     */
    const remove = Effect.fn("Labels.remove")(function*(
      access: ProjectAccess,
      labelIdOrName: string,
      resolution: LabelResolution,
      reassignTo: string | undefined
    ) {
      yield* requireAdmin(access)
      if (resolution === "reassign" && reassignTo === undefined) {
        return yield* new InvalidArgument({ message: "reassignTo: required when resolution is reassign" })
      }
      if (resolution !== "reassign" && reassignTo !== undefined) {
        return yield* new InvalidArgument({ message: `reassignTo: only used when resolution is reassign (it is ${resolution})` })
      }
      return yield* sql.withTransaction(Effect.gen(function*() {
        const label = yield* findRow(access, labelIdOrName, true)
        const target = reassignTo === undefined ? null : yield* findRow(access, reassignTo, true).pipe(
          Effect.catchTag(
            "NotFound",
            () => new NotFound({ message: `reassignTo: label ${reassignTo} not found in project ${access.project.ref}` })
          )
        )
        if (target !== null && target.id === label.id) {
          return yield* new InvalidArgument({ message: "reassignTo: must be another label than the one deleted" })
        }
        // Deleted tasks are not "its tasks" any more: they only lose the label, so the row can go.
        const tasks = yield* sql`SELECT id FROM tasks WHERE label_id = ${label.id} AND deleted_at IS NULL ORDER BY id`.pipe(
          Effect.flatMap((rows) => Effect.orDie(decodeTaskIds(rows)))
        )
        yield* resolution === "archiveTasks"
          ? sql`UPDATE tasks SET label_id = NULL, archived_at = coalesce(archived_at, now()), updated_at = now()
              WHERE label_id = ${label.id} AND deleted_at IS NULL`
          : sql`UPDATE tasks SET label_id = ${target?.id ?? null}, updated_at = now() WHERE label_id = ${label.id} AND deleted_at IS NULL`
        yield* sql`UPDATE tasks SET label_id = NULL WHERE label_id = ${label.id} AND deleted_at IS NOT NULL`
        yield* sql`DELETE FROM labels WHERE id = ${label.id}`
        return tasks.map((task) => task.id)
      })).pipe(Effect.catchTag("SqlError", Effect.die))
    })

    return { resolve, list, create, update, remove } as const
  })
}) {}
