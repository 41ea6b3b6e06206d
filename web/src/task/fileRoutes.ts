import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import { Effect, Either, Schema } from "effect"
import { FILE_UPLOAD_PATH } from "../../../catalog/bridge/TaskFilesApi.js"
import { TrellisApi } from "../../../catalog/bridge/TrellisApi.js"
import { TaskFileSummary } from "../../../catalog/domain/TaskFile.js"
import { pageRuntime } from "../lib/backoff"

/**
 * A task's file routes (catalog/bridge/TaskFilesApi.ts). Uploads go through XMLHttpRequest, the
 * one browser API that reports upload progress; the answer is decoded with the contract's Schemas.
 * The session cookie signs both, as every other call of the page.
 */

const Refusal = Schema.Struct({ message: Schema.String })
const decodeFile = Schema.decodeUnknownEither(Schema.parseJson(TaskFileSummary))
const decodeRefusal = Schema.decodeUnknownEither(Schema.parseJson(Refusal))

export type Uploaded = Either.Either<typeof TaskFileSummary.Type, string>

/** POSTs one file's bytes; `progress` gets the share sent (0–1); resolves to the stored file or the server's message. */
export const uploadFile = (taskId: string, file: File, progress: (sent: number) => void): Promise<Uploaded> =>
  new Promise((resolve) => {
    const request = new XMLHttpRequest()
    const path = FILE_UPLOAD_PATH.replace(":taskId", encodeURIComponent(taskId))
    request.open("POST", `${path}?name=${encodeURIComponent(file.name)}`)
    request.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) progress(event.loaded / event.total)
    }
    request.onload = () => {
      if (request.status === 201) {
        return resolve(Either.mapLeft(decodeFile(request.responseText), () => "The server's answer could not be read"))
      }
      resolve(Either.left(Either.match(decodeRefusal(request.responseText), {
        onLeft: () => `The server answered HTTP ${request.status}`,
        onRight: (refusal) => refusal.message
      })))
    }
    request.onerror = () => resolve(Either.left("Cannot reach the Trellis server"))
    // The browser sends the file's own type (none when it does not know it: stored as octet-stream).
    request.send(file)
  })

const fileRoutes = Effect.flatMap(
  HttpClient.HttpClient,
  (httpClient) => HttpApiClient.group(TrellisApi, { group: "taskFiles", httpClient, baseUrl: window.location.origin })
)

/** Removes a file; resolves to undefined, or the server's message. */
export const removeFile = (taskId: string, fileId: string): Promise<string | undefined> =>
  pageRuntime.runPromise(
    Effect.flatMap(fileRoutes, (routes) => routes.remove({ path: { taskId, fileId } })).pipe(
      Effect.match({ onFailure: (error) => "message" in error ? String(error.message) : error._tag, onSuccess: () => undefined })
    )
  )
