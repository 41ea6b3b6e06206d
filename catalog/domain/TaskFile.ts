import { Schema } from "effect"

/** A file attached to a task is at most this many bytes (10 MiB); a larger upload is refused before it is read. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024
/** A task's files together are at most this many bytes (50 MiB). */
export const MAX_TASK_FILE_BYTES = 50 * 1024 * 1024
export const MAX_FILE_NAME_LENGTH = 255

const mebibytes = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`

/** The rules as a person reads them, with the exact byte counts a client can check against. */
export const fileSizeRule = (bytes: number) => `a file is at most ${mebibytes(bytes)} (${bytes} bytes)`
export const taskFilesRule = (bytes: number) => `a task's files are at most ${mebibytes(bytes)} (${bytes} bytes) together`

/** What `get_task` shows of each file attached to the task. */
export const TaskFileSummary = Schema.Struct({
  fileId: Schema.String,
  name: Schema.String.annotations({ description: "The file's name as uploaded" }),
  size: Schema.Number.annotations({ description: "Bytes" }),
  contentType: Schema.String.annotations({ description: "The media type given at upload (application/octet-stream if none)" }),
  uploadedBy: Schema.Struct({ userId: Schema.String, name: Schema.String }),
  createdAt: Schema.String,
  downloadUrl: Schema.String.annotations({
    description: "Absolute URL of the file's bytes; GET it with the same API key (Authorization: Bearer) or a web session"
  })
}).annotations({ identifier: "TaskFileSummary" })
export type TaskFileSummary = typeof TaskFileSummary.Type
