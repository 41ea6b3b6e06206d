import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { Forbidden, InvalidArgument, NotFound } from "../domain/Errors.js"
import { MAX_FILE_BYTES, MAX_FILE_NAME_LENGTH, MAX_TASK_FILE_BYTES, TaskFileSummary } from "../domain/TaskFile.js"
import { Authentication } from "./Authentication.js"

/**
 * A body over a size rule (413). The RequestGuard answers the same `{ _tag, message }` when a
 * declared Content-Length is already over, before any byte is read.
 */
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", { message: Schema.String }) {}

const PREFIX = "/api/tasks"

export const taskIdParam = HttpApiSchema.param("taskId", Schema.String.annotations({ description: "The task's ID (task_…) or scoped ref" }))
const fileIdParam = HttpApiSchema.param("fileId", Schema.String)

/** Upload: its own value, so that FILE_UPLOAD_PATH comes from the declaration. */
const upload = HttpApiEndpoint.post("upload")`/${taskIdParam}/files`
  .setUrlParams(Schema.Struct({
    name: Schema.String.annotations({ description: `The file's name, 1–${MAX_FILE_NAME_LENGTH} characters` })
  }))
  .setPayload(HttpApiSchema.Uint8Array())
  .addSuccess(TaskFileSummary, { status: 201 })
  .addError(PayloadTooLarge, { status: 413 })
  .annotate(
    OpenApi.Description,
    `Attach a file to the task: the body is the file's bytes, its Content-Type the file's type. At most ${MAX_FILE_BYTES} bytes ` +
      `per file and ${MAX_TASK_FILE_BYTES} per task: 413, from Content-Length before the body is read (a chunked body past the ` +
      "file cap is cut). Needs the project role member or admin"
  )

/** A task's attached files, beside MCP: bytes do not fit a JSON-RPC call. */
export class TaskFilesGroup extends HttpApiGroup.make("taskFiles")
  .add(upload)
  .add(
    HttpApiEndpoint.get("download")`/${taskIdParam}/files/${fileIdParam}`
      .addSuccess(HttpApiSchema.Uint8Array())
      .annotate(
        OpenApi.Description,
        "The file's bytes, as an attachment (Content-Disposition) with its stored type; types a browser would run (HTML, SVG, " +
          "XML, scripts) are served as application/octet-stream. Needs read access to the task: another project's file is 404"
      )
  )
  .add(
    HttpApiEndpoint.del("remove")`/${taskIdParam}/files/${fileIdParam}`
      .annotate(OpenApi.Description, "Remove a file from the task for good. Needs the project role member or admin")
  )
  .addError(NotFound, { status: 404 })
  .addError(Forbidden, { status: 403 })
  .addError(InvalidArgument, { status: 400 })
  .prefix(PREFIX)
  .middleware(Authentication)
{}

/** Where files are uploaded; the RequestGuard gives this route the file size limit instead of the usual body limit. */
export const FILE_UPLOAD_PATH = `${PREFIX}${upload.path}`
