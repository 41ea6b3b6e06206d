import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { PayloadTooLarge } from "../../catalog/bridge/TaskFilesApi.js"
import { InvalidArgument, NotFound } from "../../catalog/domain/Errors.js"
import { TaskFileId } from "../../catalog/domain/Ids.js"
import { MAX_FILE_NAME_LENGTH, type TaskFileSummary, taskFilesRule } from "../../catalog/domain/TaskFile.js"
import type { Principal } from "../platform/auth/Principal.js"
import { TrellisConfig } from "../platform/TrellisConfig.js"
import { requireWrite, type ResolvedTask } from "./TaskAccess.js"

/** A file's metadata as stored: get_task's TaskFileSummary without the URL, the time as a Date. */
export const TaskFileRow = Schema.Struct({
  fileId: Schema.String,
  taskId: Schema.String,
  name: Schema.String,
  contentType: Schema.String,
  size: Schema.Number,
  uploaderId: Schema.String,
  uploaderName: Schema.String,
  createdAt: Schema.DateFromSelf
})
export type TaskFileRow = typeof TaskFileRow.Type

const Content = Schema.Struct({ content: Schema.Uint8ArrayFromSelf })
const Used = Schema.Struct({ used: Schema.Number })

/** What is attached: the bytes and what the uploader said of them. */
export interface NewFile {
  readonly name: string
  readonly contentType: string
  readonly content: Uint8Array
}

// Control characters would break headers and listings; lone surrogates cannot be stored.
const UNFIT_NAME = /[\u0000-\u001f\u007f/\\]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/

/** The type a file is stored with: the media type of its Content-Type (parameters dropped), else octet-stream. */
export const storedType = (header: string | undefined): string => {
  const essence = (header ?? "").split(";")[0]?.trim().toLowerCase() ?? ""
  return MEDIA_TYPE.test(essence) ? essence : "application/octet-stream"
}

export const checkName = (name: string) =>
  name.trim().length === 0
    ? Effect.fail(new InvalidArgument({ message: "name: must not be blank" }))
    : name.length > MAX_FILE_NAME_LENGTH
    ? Effect.fail(new InvalidArgument({ message: `name: must be at most ${MAX_FILE_NAME_LENGTH} characters` }))
    : UNFIT_NAME.test(name)
    ? Effect.fail(new InvalidArgument({ message: "name: must not contain control characters, / or \\ (a file name, not a path)" }))
    : Effect.void

/** The files of a task: attached by members, listed on get_task, downloaded by whoever may read the task. */
export class TaskFiles extends Effect.Service<TaskFiles>()("trellis/TaskFiles", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* TrellisConfig

    const selectFiles = sql`SELECT f.id AS "fileId", f.task_id AS "taskId", f.name, f.content_type AS "contentType",
      f.size, f.uploaded_by AS "uploaderId", u.name AS "uploaderName", f.created_at AS "createdAt"
      FROM task_files f JOIN users u ON u.id = f.uploaded_by`

    const rowsOf = SqlSchema.findAll({
      Request: Schema.Array(Schema.String),
      Result: TaskFileRow,
      execute: (taskIds) => sql`${selectFiles} WHERE f.task_id IN ${sql.in(taskIds)} ORDER BY f.created_at, f.id`
    })

    const oneRow = SqlSchema.findOne({
      Request: Schema.Struct({ taskId: Schema.String, fileId: Schema.String }),
      Result: TaskFileRow,
      execute: ({ fileId, taskId }) => sql`${selectFiles} WHERE f.id = ${fileId} AND f.task_id = ${taskId}`
    })

    const contentOf = SqlSchema.single({
      Request: Schema.String,
      Result: Content,
      execute: (fileId) => sql`SELECT content FROM task_file_contents WHERE file_id = ${fileId}`
    })

    const usedBy = SqlSchema.single({
      Request: Schema.String,
      Result: Used,
      execute: (taskId) => sql`SELECT coalesce(sum(size), 0)::float8 AS used FROM task_files WHERE task_id = ${taskId}`
    })

    /** The files of each task, oldest first, without their bytes. */
    const listOf = Effect.fn("TaskFiles.listOf")(function*(taskIds: ReadonlyArray<string>) {
      if (taskIds.length === 0) return []
      return yield* rowsOf(taskIds).pipe(Effect.orDie)
    })

    const overTaskCap = (taskId: string, used: number, adding: number) =>
      new PayloadTooLarge({
        message: `file: ${taskFilesRule(config.maxTaskFileBytes)}; task ${taskId} holds ${used} bytes, so ${adding} more do not fit`
      })

    /**
     * Refuses, before the body is read, a file that would not fit: the declared length against the
     * room left on the task. The write checks again under the task's lock (attach).
     */
    const checkRoom = Effect.fn("TaskFiles.checkRoom")(function*(resolved: ResolvedTask, declared: number) {
      yield* requireWrite(resolved.access, "files")
      const { used } = yield* usedBy(resolved.task.id).pipe(Effect.orDie)
      if (used + declared > config.maxTaskFileBytes) return yield* overTaskCap(resolved.task.id, used, declared)
    })

    /** Attaches a file: its metadata and bytes in one transaction, within the task's cap. */
    const attach = Effect.fn("TaskFiles.attach")(function*(principal: Principal, resolved: ResolvedTask, file: NewFile) {
      yield* requireWrite(resolved.access, "files")
      yield* checkName(file.name)
      const { task } = resolved
      const fileId = TaskFileId.generate()
      return yield* sql.withTransaction(Effect.gen(function*() {
        // The task's row lock serializes attaching to one task, so two uploads cannot both fit the
        // room that only one has; a task deleted since it was resolved is no longer there.
        const live = yield* sql`SELECT 1 FROM tasks WHERE id = ${task.id} AND deleted_at IS NULL FOR NO KEY UPDATE`
        if (live.length === 0) return yield* new NotFound({ message: `taskId: task ${task.ref} not found` })
        const { used } = yield* usedBy(task.id)
        if (used + file.content.byteLength > config.maxTaskFileBytes) {
          return yield* overTaskCap(task.id, used, file.content.byteLength)
        }
        yield* sql`INSERT INTO task_files (id, task_id, name, content_type, size, uploaded_by)
          VALUES (${fileId}, ${task.id}, ${file.name}, ${file.contentType}, ${file.content.byteLength}, ${principal.userId})`
        yield* sql`INSERT INTO task_file_contents (file_id, content) VALUES (${fileId}, ${file.content})`
        const row = yield* oneRow({ taskId: task.id, fileId })
        if (row._tag === "None") return yield* Effect.dieMessage(`file ${fileId} vanished inside its own transaction`)
        return row.value
      })).pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die, NoSuchElementException: Effect.die }))
    })

    const notFound = (resolved: ResolvedTask, fileId: string) =>
      new NotFound({ message: `fileId: file ${fileId} not found on task ${resolved.task.ref}` })

    /** A file of the task with its bytes. */
    const download = Effect.fn("TaskFiles.download")(function*(resolved: ResolvedTask, fileId: string) {
      const row = yield* oneRow({ taskId: resolved.task.id, fileId }).pipe(Effect.orDie)
      if (row._tag === "None") return yield* notFound(resolved, fileId)
      const { content } = yield* contentOf(fileId).pipe(Effect.orDie)
      return { file: row.value, content }
    })

    /** Removes a file for good (its bytes go with it). */
    const remove = Effect.fn("TaskFiles.remove")(function*(resolved: ResolvedTask, fileId: string) {
      yield* requireWrite(resolved.access, "files")
      const removed = yield* sql`DELETE FROM task_files WHERE id = ${fileId} AND task_id = ${resolved.task.id} RETURNING id`.pipe(
        Effect.orDie
      )
      if (removed.length === 0) return yield* notFound(resolved, fileId)
    })

    return { listOf, checkRoom, attach, download, remove } as const
  })
}) {}

/** get_task's view of a file: its download URL is absolute, on `base` (RequestOrigin.ts). */
export const fileSummary = (row: TaskFileRow, base: string): TaskFileSummary => ({
  fileId: row.fileId,
  name: row.name,
  size: row.size,
  contentType: row.contentType,
  uploadedBy: { userId: row.uploaderId, name: row.uploaderName },
  createdAt: row.createdAt.toISOString(),
  downloadUrl: `${base}/api/tasks/${encodeURIComponent(row.taskId)}/files/${encodeURIComponent(row.fileId)}`
})
