import { HttpClient, HttpClientRequest } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Option, Schema, Stream } from "effect"
import * as net from "node:net"
import { TaskFileSummary } from "../../catalog/domain/TaskFile.js"
import { Projects } from "../../src/projects/Projects.js"
import { TaskTree } from "../../src/tasks/TaskTree.js"
import { connect, type Frame } from "../support/Sse.js"
import { ServerPort, TestServer } from "../support/TestServer.js"
import { createKey, seedOwner } from "../support/Seed.js"
import { ok, scopedTo } from "../support/TaskTools.js"
import { createTask, getTask, joinAs } from "./TaskFixtures.js"

/** Small caps, so the limits are reached with small bodies. */
const FILE_CAP = 100_000
const TASK_CAP = 250_000
const config = { rateLimit: Option.none(), maxFileBytes: FILE_CAP, maxTaskFileBytes: TASK_CAP }

/** Every byte value, so an encoding slip anywhere (text, UTF-8, base64) shows as different bytes. */
const binary = (size: number) => Uint8Array.from({ length: size }, (_, i) => (i * 7 + 3) % 256)
const NAME = `Résumé "final" 日本.bin`

const ErrorBody = Schema.Struct({ _tag: Schema.String, message: Schema.String })

const bearer = (key: string) => ({ authorization: `Bearer ${key}` })

/** POSTs a file's bytes to the upload route. */
const upload = (key: string, taskId: string, name: string, bytes: Uint8Array, contentType = "application/octet-stream") =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(
      HttpClientRequest.post(`/api/tasks/${encodeURIComponent(taskId)}/files`).pipe(
        HttpClientRequest.setUrlParam("name", name),
        HttpClientRequest.setHeaders(bearer(key)),
        HttpClientRequest.bodyUint8Array(bytes, contentType)
      )
    )
    return { status: response.status, body: yield* response.json }
  }).pipe(Effect.orDie)

const uploaded = (key: string, taskId: string, name: string, bytes: Uint8Array, contentType?: string) =>
  Effect.gen(function*() {
    const { body, status } = yield* upload(key, taskId, name, bytes, contentType)
    expect(status, JSON.stringify(body)).toBe(201)
    return yield* Schema.decodeUnknown(TaskFileSummary)(body)
  }).pipe(Effect.orDie)

const refusal = (body: unknown) => Schema.decodeUnknownSync(ErrorBody)(body)

/** GETs an absolute download URL from the test server (its path and query: the port is the server's own). */
const download = (key: string | undefined, downloadUrl: string) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const url = new URL(downloadUrl)
    const response = yield* client.execute(
      HttpClientRequest.get(`${url.pathname}${url.search}`).pipe(HttpClientRequest.setHeaders(key === undefined ? {} : bearer(key)))
    )
    return { status: response.status, headers: response.headers, bytes: new Uint8Array(yield* response.arrayBuffer) }
  }).pipe(Effect.orDie)

/** Sends only the head of a request over a raw socket and returns the status line and body of the answer. */
const headOnly = (port: number, head: string) =>
  Effect.async<{ readonly status: number; readonly text: string }>((resume) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(head))
    let received = ""
    const done = () => resume(Effect.succeed({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0), text: received }))
    socket.on("data", (data) => {
      received += data.toString("utf8")
      const [headers, body = ""] = received.split("\r\n\r\n")
      const length = Number(/content-length: (\d+)/i.exec(headers ?? "")?.[1] ?? NaN)
      if (body.length >= length) {
        socket.destroy()
        done()
      }
    })
    socket.on("close", done)
    socket.on("error", done)
  })

/**
 * Sends a chunked body, a chunk every few milliseconds, and never the final chunk: only the server
 * can end the exchange, by answering or by closing the connection.
 */
const chunkedUpload = (port: number, head: string, chunk: Uint8Array, chunks: number) =>
  Effect.async<{ readonly status: number; readonly text: string }>((resume) => {
    let received = ""
    let sent = 0
    const socket = net.connect(port, "127.0.0.1", () => {
      socket.write(head)
      const send = () => {
        if (socket.destroyed || socket.writableEnded) return
        if (sent++ < chunks) {
          socket.write(`${chunk.byteLength.toString(16)}\r\n`)
          socket.write(chunk)
          socket.write("\r\n")
        }
        setTimeout(send, 5)
      }
      send()
    })
    socket.on("data", (data) => {
      received += data.toString("utf8")
    })
    socket.on("error", () => undefined)
    socket.on("close", () =>
      resume(Effect.succeed({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0),
        text: received
      })))
  })

const storedFiles = (taskId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const files = yield* sql`SELECT id FROM task_files WHERE task_id = ${taskId}`
    const contents =
      yield* sql`SELECT c.file_id FROM task_file_contents c JOIN task_files f ON f.id = c.file_id WHERE f.task_id = ${taskId}`
    return { files: files.length, contents: contents.length }
  }).pipe(Effect.orDie)

const allContents = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT count(*)::int AS n FROM task_file_contents`).pipe(
  Effect.map((rows) => Number(rows[0]?.["n"])),
  Effect.orDie
)

describe("task files: upload, list, download", () => {
  layer(TestServer(config, "node"), { excludeTestServices: true })((it) => {
    it.effect("an uploaded file is listed by get_task with an absolute download URL, and a key downloads the same bytes", () =>
      Effect.gen(function*() {
        const { key, project, user } = yield* seedOwner("files-roundtrip")
        const { taskId } = yield* createTask(key, project.id)
        const bytes = binary(70_000)
        const file = yield* uploaded(key, taskId, NAME, bytes, "image/png")
        expect(file).toMatchObject({ name: NAME, size: 70_000, contentType: "image/png", uploadedBy: { userId: user.id } })

        const task = yield* getTask(key, taskId)
        expect(task.files).toEqual([file])
        const url = new URL(file.downloadUrl)
        expect(url.protocol).toBe("http:")
        expect(url.host).toBe(`127.0.0.1:${yield* ServerPort}`)
        expect(url.pathname).toBe(`/api/tasks/${taskId}/files/${file.fileId}`)

        const got = yield* download(key, file.downloadUrl)
        expect(got.status).toBe(200)
        expect(Buffer.from(got.bytes).equals(Buffer.from(bytes))).toBe(true)
        expect(got.headers["content-type"]).toBe("image/png")
        expect(got.headers["content-length"]).toBe("70000")
        expect(got.headers["x-content-type-options"]).toBe("nosniff")
        const disposition = got.headers["content-disposition"] ?? ""
        expect(disposition).toMatch(/^attachment; filename="[\x20-\x7e]*"; filename\*=UTF-8''/)
        expect(disposition).not.toMatch(/filename="[^"]*"[^;]/)
        expect(decodeURIComponent(disposition.split("filename*=UTF-8''")[1] ?? "")).toBe(NAME)

        expect((yield* download(undefined, file.downloadUrl)).status).toBe(401)
      }))

    it.effect("a Content-Length over the per-file cap is 413 before the body is read, naming the file rule", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("files-declared")
        const { taskId } = yield* createTask(key, project.id)
        // The head alone: an answer means the server decided without waiting for a byte of the body.
        const answer = yield* headOnly(
          yield* ServerPort,
          `POST /api/tasks/${taskId}/files?name=big.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n` +
            `Content-Type: application/octet-stream\r\nContent-Length: ${FILE_CAP + 1}\r\n\r\n`
        )
        expect(answer.status).toBe(413)
        const body = refusal(JSON.parse(answer.text.slice(answer.text.indexOf("\r\n\r\n") + 4)))
        expect(body._tag).toBe("PayloadTooLarge")
        expect(body.message).toContain(`file: a file is at most 0.1 MB (${FILE_CAP} bytes)`)
        expect(yield* storedFiles(taskId)).toEqual({ files: 0, contents: 0 })
      }))

    it.effect("a chunked body past the per-file cap is cut: the server closes the connection, answering no 201, and nothing is stored", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("files-chunked")
        const { taskId } = yield* createTask(key, project.id)
        const answer = yield* chunkedUpload(
          yield* ServerPort,
          `POST /api/tasks/${taskId}/files?name=stream.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n` +
            `Content-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n`,
          binary(10_000),
          // Far more than the cap: a server reading to the end would store or refuse only once it ends.
          3 * Math.ceil(FILE_CAP / 10_000)
        )
        expect(answer.status === 0 || answer.status === 413, answer.text.slice(0, 200)).toBe(true)
        expect(yield* storedFiles(taskId)).toEqual({ files: 0, contents: 0 })
      }))

    it.effect("a task's files are capped together: the file that would pass the cap is 413, declared or read, and nothing is stored", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("files-task-cap")
        const { taskId } = yield* createTask(key, project.id)
        yield* uploaded(key, taskId, "one.bin", binary(FILE_CAP))
        yield* uploaded(key, taskId, "two.bin", binary(FILE_CAP))
        const over = yield* upload(key, taskId, "three.bin", binary(TASK_CAP - 2 * FILE_CAP + 1))
        expect(over.status).toBe(413)
        expect(refusal(over.body).message).toContain(`file: a task's files are at most 0.2 MB (${TASK_CAP} bytes) together`)
        expect(yield* storedFiles(taskId)).toEqual({ files: 2, contents: 2 })
        // A chunked body declares no length: it is read, then refused by the write under the task's lock.
        const client = yield* HttpClient.HttpClient
        const chunked = yield* client.execute(
          HttpClientRequest.post(`/api/tasks/${taskId}/files`).pipe(
            HttpClientRequest.setUrlParam("name", "three.bin"),
            HttpClientRequest.setHeaders(bearer(key)),
            HttpClientRequest.bodyStream(Stream.make(binary(30_000), binary(30_000)), { contentType: "application/octet-stream" })
          )
        ).pipe(Effect.orDie)
        expect(chunked.status).toBe(413)
        expect(refusal(yield* chunked.json.pipe(Effect.orDie)).message).toContain(`(${TASK_CAP} bytes) together`)
        expect(yield* storedFiles(taskId)).toEqual({ files: 2, contents: 2 })
        // Exactly the room left fits.
        yield* uploaded(key, taskId, "three.bin", binary(TASK_CAP - 2 * FILE_CAP))
        expect((yield* getTask(key, taskId)).files.map((file) => file.name)).toEqual(["one.bin", "two.bin", "three.bin"])
      }))

    it.effect("another project's file is 404 for a viewer and a stranger, 403 for a key narrowed away; never the bytes", () =>
      Effect.gen(function*() {
        const { key, organization, project, user } = yield* seedOwner("files-access")
        const other = yield* (yield* Projects).create({ organizationId: organization.id, name: "Other", ref: "OTHER" })
        const { taskId } = yield* createTask(key, other.id, { name: "Private" })
        const file = yield* uploaded(key, taskId, "secret.txt", new TextEncoder().encode("the secret"), "text/plain")
        const viewer = yield* joinAs(project.id, "files-access", "viewer")
        const stranger = yield* seedOwner("files-stranger")
        const narrowed = yield* createKey(user.id, [project.id])
        const callers = [
          ["viewer of MAIN", viewer.key, 404],
          ["stranger", stranger.key, 404],
          ["narrowed key", narrowed.secret, 403]
        ] as const
        for (const [who, caller, status] of callers) {
          const got = yield* download(caller, file.downloadUrl)
          expect(got.status, who).toBe(status)
          expect(new TextDecoder().decode(got.bytes), who).not.toContain("secret")
          const attempt = yield* upload(caller, taskId, "planted.txt", new TextEncoder().encode("planted"))
          expect(attempt.status, who).toBe(status)
        }
        expect(yield* storedFiles(taskId)).toEqual({ files: 1, contents: 1 })
      }))

    it.effect("a viewer downloads but cannot upload or remove; a read-only key cannot upload; nothing is stored", () =>
      Effect.gen(function*() {
        const { key, project, user } = yield* seedOwner("files-writers")
        const { taskId } = yield* createTask(key, project.id)
        const file = yield* uploaded(key, taskId, "a.txt", new TextEncoder().encode("a"), "text/plain")
        const viewer = yield* joinAs(project.id, "files-writers", "viewer")
        expect((yield* download(viewer.key, file.downloadUrl)).status).toBe(200)
        const refused = yield* upload(viewer.key, taskId, "b.txt", new TextEncoder().encode("b"))
        expect(refused.status).toBe(403)
        expect(refusal(refused.body).message).toContain("requires the project role member or admin; the caller is viewer")
        const readOnly = yield* createKey(user.id, null, { readOnly: true })
        const byReadOnly = yield* upload(readOnly.secret, taskId, "c.txt", new TextEncoder().encode("c"))
        expect(byReadOnly.status).toBe(403)
        expect(refusal(byReadOnly.body).message).toContain("read-only")
        expect((yield* download(readOnly.secret, file.downloadUrl)).status).toBe(200)

        const client = yield* HttpClient.HttpClient
        const remove = (caller: string) =>
          client.execute(HttpClientRequest.del(new URL(file.downloadUrl).pathname).pipe(HttpClientRequest.setHeaders(bearer(caller)))).pipe(
            Effect.map((response) => response.status),
            Effect.orDie
          )
        expect(yield* remove(viewer.key)).toBe(403)
        expect(yield* storedFiles(taskId)).toEqual({ files: 1, contents: 1 })
        expect(yield* remove(key)).toBe(204)
        expect(yield* storedFiles(taskId)).toEqual({ files: 0, contents: 0 })
        expect((yield* getTask(key, taskId)).files).toEqual([])
        expect((yield* download(key, file.downloadUrl)).status).toBe(404)
      }))

    it.effect("a soft-deleted task hides its files with it, and the purge removes their bytes", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("files-deleted")
        const { taskId } = yield* createTask(key, project.id, { name: "Parent" })
        const child = yield* createTask(key, project.id, { name: "Child", parentId: taskId })
        const file = yield* uploaded(key, child.taskId, "child.bin", binary(1000))
        const before = yield* allContents
        yield* ok(key, "delete_task", { taskId }, scopedTo(project.id))
        const got = yield* download(key, file.downloadUrl)
        expect(got.status).toBe(404)
        expect(refusal(JSON.parse(new TextDecoder().decode(got.bytes)))._tag).toBe("NotFound")
        expect((yield* upload(key, child.taskId, "late.bin", binary(10))).status).toBe(404)

        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE tasks SET deleted_at = now() - interval '31 days' WHERE id IN (${taskId}, ${child.taskId})`.pipe(Effect.orDie)
        yield* (yield* TaskTree).purgeDeleted()
        expect(yield* storedFiles(child.taskId)).toEqual({ files: 0, contents: 0 })
        expect(yield* allContents).toBe(before - 1)
      }))

    it.effect("an unknown task or file is a typed 404 naming the field; a blank or path-like name is 400 naming name", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("files-unknown")
        const { taskId } = yield* createTask(key, project.id)
        const missing = yield* upload(key, "task_0192aaaaaaaaaaaaaaaaaaaaaaaaaaaa", "a.bin", binary(3))
        expect(missing.status).toBe(404)
        expect(refusal(missing.body)).toMatchObject({ _tag: "NotFound", message: expect.stringMatching(/^taskId: /) })
        const noFile = yield* download(key, `http://127.0.0.1/api/tasks/${taskId}/files/file_0192aaaaaaaaaaaaaaaaaaaaaaaaaaaa`)
        expect(noFile.status).toBe(404)
        expect(refusal(JSON.parse(new TextDecoder().decode(noFile.bytes))).message).toMatch(/^fileId: /)
        for (const name of ["  ", "../etc/passwd", "a\u0000b"]) {
          const bad = yield* upload(key, taskId, name, binary(3))
          expect(bad.status, name).toBe(400)
          expect(refusal(bad.body), name).toMatchObject({ _tag: "InvalidArgument", message: expect.stringMatching(/^name: /) })
        }
        expect(yield* storedFiles(taskId)).toEqual({ files: 0, contents: 0 })
      }))

    it.effect("a type a browser would run is downloaded as application/octet-stream, an attachment, nosniff", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("files-html")
        const { taskId } = yield* createTask(key, project.id)
        const page = new TextEncoder().encode("<script>alert(1)</script>")
        const file = yield* uploaded(key, taskId, "page.html", page, "text/html; charset=utf-8")
        expect(file.contentType).toBe("text/html")
        const got = yield* download(key, file.downloadUrl)
        expect(got.headers["content-type"]).toBe("application/octet-stream")
        expect(got.headers["content-disposition"]).toMatch(/^attachment;/)
        expect(got.headers["x-content-type-options"]).toBe("nosniff")
        expect(Buffer.from(got.bytes).equals(Buffer.from(page))).toBe(true)
      }))

    it.effect("attaching and removing a file names its task on the project's changes stream", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("files-changes")
        const { taskId } = yield* createTask(key, project.id)
        const changes = yield* connect(key, `/api/projects/${project.id}/changes`)
        const namesTask = (frame: Frame) => JSON.stringify(Reflect.get(Object(frame.data), "taskIds") ?? []).includes(taskId)
        const untilNamed = changes.pipe(Stream.filter(namesTask), Stream.take(1), Stream.timeout("10 seconds"), Stream.runCollect)
        const file = yield* uploaded(key, taskId, "note.txt", new TextEncoder().encode("hello"), "text/plain")
        expect([...yield* untilNamed]).toHaveLength(1)
        const client = yield* HttpClient.HttpClient
        const removed = yield* client.execute(
          HttpClientRequest.del(new URL(file.downloadUrl).pathname).pipe(HttpClientRequest.setHeaders(bearer(key)))
        ).pipe(Effect.orDie)
        expect(removed.status).toBe(204)
        expect([...yield* untilNamed]).toHaveLength(1)
      }).pipe(Effect.scoped))
  })
})
