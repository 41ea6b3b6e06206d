import { HttpClient, HttpClientRequest } from "@effect/platform"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { TestServer } from "../support/TestServer.js"
import { createKey, seedOwner } from "../support/Seed.js"
import { createTask, joinAs, listTasks, noRateLimit, refsOf } from "./TaskFixtures.js"

const ErrorBody = Schema.Struct({ _tag: Schema.String, message: Schema.String })

/** POST /api/tasks/:taskId/place with `body` (sent as JSON as it is, so a wrong shape reaches the server). */
const place = (key: string | undefined, taskId: string, body: unknown) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(
      HttpClientRequest.post(`/api/tasks/${encodeURIComponent(taskId)}/place`).pipe(
        HttpClientRequest.setHeaders(key === undefined ? {} : { authorization: `Bearer ${key}` }),
        HttpClientRequest.bodyText(JSON.stringify(body), "application/json")
      )
    )
    return { status: response.status, body: yield* response.json }
  }).pipe(Effect.orDie)

const refusal = (body: unknown) => Schema.decodeUnknownSync(ErrorBody)(body)

/** A project with three tasks, their IDs and refs. */
const seed = (slug: string) =>
  Effect.gen(function*() {
    const owner = yield* seedOwner(slug)
    const tasks = []
    for (const name of ["one", "two", "three"]) tasks.push(yield* createTask(owner.key, owner.project.id, { name }))
    const order = Effect.map(listTasks(owner.key, owner.project.id), refsOf)
    return { ...owner, ids: tasks.map((task) => task.taskId), order }
  })

describe("POST /api/tasks/:taskId/place", () => {
  layer(TestServer(noRateLimit))((it) => {
    it.effect("places the task between the neighbours named by ID or ref; list_tasks reads the new order", () =>
      Effect.gen(function*() {
        const { ids, key, order } = yield* seed("route-place")
        const moved = yield* place(key, ids[2] ?? "", { after: null, before: ids[0] })
        expect(moved).toEqual({ status: 200, body: { taskId: ids[2] } })
        expect(yield* order).toEqual(["MAIN-3", "MAIN-1", "MAIN-2"])
        // The path takes an ID or a scoped ref; a neighbour's bare ref is read in the task's project.
        expect((yield* place(key, "route-place/MAIN-3", { after: "MAIN-2" })).status).toBe(200)
        expect(yield* order).toEqual(["MAIN-1", "MAIN-2", "MAIN-3"])
      }))

    it.effect("without a key: 401; a read-only key or a viewer: 403; outside the project: 404; nothing moves", () =>
      Effect.gen(function*() {
        const { ids, order, project, user } = yield* seed("route-guards")
        const body = { before: ids[0] }
        expect((yield* place(undefined, ids[2] ?? "", body)).status).toBe(401)
        const readOnly = yield* createKey(user.id, null, { readOnly: true })
        const byReadOnly = yield* place(readOnly.secret, ids[2] ?? "", body)
        expect(byReadOnly.status).toBe(403)
        const viewer = yield* joinAs(project.id, "route-guards", "viewer")
        const byViewer = yield* place(viewer.key, ids[2] ?? "", body)
        expect(byViewer.status).toBe(403)
        expect(refusal(byViewer.body).message).toMatch(/requires the project role member or admin; the caller is viewer/)
        const stranger = yield* seedOwner("route-stranger")
        const byStranger = yield* place(stranger.key, ids[2] ?? "", body)
        expect(byStranger.status).toBe(404)
        expect(yield* order).toEqual(["MAIN-1", "MAIN-2", "MAIN-3"])
      }))

    it.effect("a neighbour that does not exist is 404 naming its field; a wrong shape or no neighbour is 400", () =>
      Effect.gen(function*() {
        const { ids, key, order } = yield* seed("route-refusals")
        const missing = yield* place(key, ids[0] ?? "", { after: "MAIN-99" })
        expect(missing.status).toBe(404)
        expect(refusal(missing.body).message).toBe("after: task MAIN-99 not found")
        const wrongShape = yield* place(key, ids[0] ?? "", { after: 5 })
        expect(wrongShape.status).toBe(400)
        expect(refusal(wrongShape.body).message).toMatch(/after/)
        const none = yield* place(key, ids[0] ?? "", {})
        expect(none.status).toBe(400)
        expect(refusal(none.body).message).toMatch(/^after, before: /)
        const stale = yield* place(key, ids[0] ?? "", { after: ids[2], before: ids[1] })
        expect(stale.status).toBe(409)
        expect(yield* order).toEqual(["MAIN-1", "MAIN-2", "MAIN-3"])
      }))
  })
})
