import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Chunk, Effect, Stream } from "effect"
import { PayloadTooLarge } from "../../catalog/bridge/TaskFilesApi.js"
import { TrellisApi } from "../../catalog/bridge/TrellisApi.js"
import { InvalidArgument } from "../../catalog/domain/Errors.js"
import { fileSizeRule } from "../../catalog/domain/TaskFile.js"
import { CurrentPrincipal } from "../platform/auth/Principal.js"
import { baseUrl, originOf } from "../platform/http/RequestOrigin.js"
import { TrellisConfig } from "../platform/TrellisConfig.js"
import { fileSummary, storedType, TaskFiles } from "./TaskFiles.js"
import { TaskReads } from "./TaskReads.js"

/** Types a browser would render or run as a page of this origin: served as plain bytes instead. */
const ACTIVE_TYPE = /html|xml|svg|javascript|ecmascript|css|^text\/|^multipart\//

/** The type a download is served as: the stored one, unless a browser could run it. */
export const servedType = (stored: string): string =>
  ACTIVE_TYPE.test(stored) && stored !== "text/plain" && stored !== "text/csv" ? "application/octet-stream" : stored

/** RFC 5987's attr-char: what may stand unencoded in `filename*`. */
const encodeExtValue = (name: string) =>
  encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)

/** `attachment` with an ASCII fallback name and the exact name in UTF-8 (RFC 6266). */
export const contentDisposition = (name: string): string => {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, "_")
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeExtValue(name)}`
}

/** The body's bytes, cut with 413 as soon as they pass `max` (a chunked body declares no length). */
const readAtMost = (request: HttpServerRequest.HttpServerRequest, max: number) =>
  request.stream.pipe(
    Stream.mapError(() => new InvalidArgument({ message: "file: the body could not be read" })),
    Stream.runFoldEffect({ chunks: Chunk.empty<Uint8Array>(), size: 0 }, (read, chunk) => {
      const size = read.size + chunk.byteLength
      return size > max
        ? Effect.fail(new PayloadTooLarge({ message: `file: ${fileSizeRule(max)}; the body passed it` }))
        : Effect.succeed({ chunks: Chunk.append(read.chunks, chunk), size })
    }),
    Effect.map(({ chunks, size }) => {
      const content = new Uint8Array(size)
      let offset = 0
      for (const chunk of chunks) {
        content.set(chunk, offset)
        offset += chunk.byteLength
      }
      return content
    })
  )

/** The `taskFiles` group of the client routes: upload, download and remove a task's files. */
export const TaskFileHandlers = HttpApiBuilder.group(TrellisApi, "taskFiles", (handlers) =>
  Effect.gen(function*() {
    const files = yield* TaskFiles
    const reads = yield* TaskReads
    const config = yield* TrellisConfig
    const resolve = (address: string) => Effect.flatMap(CurrentPrincipal, (principal) => reads.resolve(principal, address, null))

    return handlers
      .handleRaw("upload", ({ path, request, urlParams }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const resolved = yield* resolve(path.taskId)
          const declared = Number(request.headers["content-length"] ?? "0")
          // Refused before a byte is read: a file that cannot fit the task (the guard has already
          // refused one over the per-file size).
          yield* files.checkRoom(resolved, Number.isFinite(declared) ? declared : 0)
          const content = yield* readAtMost(request, config.maxFileBytes)
          const row = yield* files.attach(principal, resolved, {
            name: urlParams.name,
            contentType: storedType(request.headers["content-type"]),
            content
          })
          const base = baseUrl(config, originOf(config, request.headers["host"]))
          return yield* HttpServerResponse.json(fileSummary(row, base), { status: 201 }).pipe(Effect.orDie)
        }))
      .handleRaw("download", ({ path }) =>
        Effect.gen(function*() {
          const { content, file } = yield* files.download(yield* resolve(path.taskId), path.fileId)
          return HttpServerResponse.uint8Array(content, {
            contentType: servedType(file.contentType),
            headers: {
              "content-disposition": contentDisposition(file.name),
              "x-content-type-options": "nosniff",
              "content-security-policy": "sandbox; default-src 'none'",
              "cache-control": "private, no-store"
            }
          })
        }))
      .handle("remove", ({ path }) =>
        Effect.gen(function*() {
          yield* files.remove(yield* resolve(path.taskId), path.fileId)
        }))
  }))
