import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { createThread } from "../support/FakeCli.js"
import { bridgeClient, claude, numbered, registerCli } from "../support/FakeCli.js"
import { rawRequest, TestServer, type Transport } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"
import { uploadBytes } from "../../cli/agent/GroupLines.js"
import { GROUP_LIMITS } from "../../cli/agent/ThreadRunner.js"
import { defaults } from "../../src/platform/TrellisConfig.js"

/**
 * `trellis serve` answers the CLI's per-thread calls on its own `node:http` fast path; embedders
 * get the HttpApi routes. Both must speak the contract the same way: the same statuses, bodies
 * and errors for the same requests. Each step below runs on both transports.
 */

class Owner extends Context.Tag("test/FastPath/Owner")<Owner, Effect.Effect.Success<ReturnType<typeof seedOwner>>>() {}

const env = (transport: Transport) => Layer.effect(Owner, seedOwner("fast")).pipe(Layer.provideMerge(TestServer({}, transport)))

const post = (path: string, key: string | undefined, body: unknown) =>
  rawRequest({
    path,
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: key === undefined ? {} : { authorization: `Bearer ${key}` }
  })

/** The fullest group the CLI sends: 1,000 lines of quotes and backslashes, as close to the group's byte limit as they go. */
const fullQuotedGroup = () => {
  const line = (n: number) => claude.text("\"\\\\".repeat(n))
  let n = 0
  while (uploadBytes(line(n + 1)) * 1_000 <= GROUP_LIMITS.bytes) n++
  return numbered(Array.from({ length: 1_000 }, () => line(n)))
}

const tagOf = (json: unknown): unknown => (typeof json === "object" && json !== null ? Reflect.get(json, "_tag") : undefined)

describe.each<Transport>(["platform", "node"])("the CLI's hot endpoints on the %s transport", (transport) => {
  layer(env(transport))((it) => {
    it.effect("a missing or wrong API key is 401 on every hot endpoint", () =>
      Effect.gen(function*() {
        const session = `session_${"0".repeat(32)}`
        const thread = `thread_${"0".repeat(32)}`
        for (
          const path of [
            "/api/agent/heartbeat",
            "/api/agent/claim",
            `/api/agent/threads/${thread}/renew`,
            `/api/agent/threads/${thread}/chunks`
          ]
        ) {
          expect((yield* post(path, undefined, { sessionId: session })).status, path).toBe(401)
          expect((yield* post(path, "trellis_wrong", { sessionId: session })).status, path).toBe(401)
        }
      }))

    it.effect("a payload that breaks the contract is 400 HttpApiDecodeError naming the field; a body that is not JSON is 400", () =>
      Effect.gen(function*() {
        const { key } = yield* Owner
        const badId = yield* post("/api/agent/heartbeat", key, { sessionId: "nope" })
        expect(badId.status).toBe(400)
        expect(tagOf(badId.json)).toBe("HttpApiDecodeError")
        expect(badId.text).toContain("sessionId")
        // The platform answers a body that is not JSON with a bare 400; the fast path says why (decisions.md).
        const notJson = yield* post("/api/agent/claim", key, "{not json")
        expect(notJson.status).toBe(400)
        if (transport === "node") {
          expect(tagOf(notJson.json)).toBe("HttpApiDecodeError")
          expect(notJson.text).toMatch(/JSON/)
        } else {
          expect(notJson.text).toBe("")
        }
      }))

    it.effect("a session that does not exist is 404 NotFound (a group error)", () =>
      Effect.gen(function*() {
        const { key } = yield* Owner
        const response = yield* post("/api/agent/claim", key, { sessionId: `session_${"f".repeat(32)}` })
        expect(response.status).toBe(404)
        expect(tagOf(response.json)).toBe("NotFound")
      }))

    it.effect("a run through the hot endpoints: claim, renew, batch, chunks (up to 1,000 per upload, a full group of quote-heavy lines under the body cap; 1,001 is 400), complete, drained; a stale epoch is 409 ClaimLost", () =>
      Effect.gen(function*() {
        const { key, project } = yield* Owner
        const cli = yield* bridgeClient(key)
        const { profile, sessionId } = yield* registerCli(cli, project.id, { name: `fast-${transport}` })
        const target = { profileId: profile.profileId, pathId: profile.paths[0]?.pathId ?? "" }

        const heartbeat = yield* post("/api/agent/heartbeat", key, { sessionId })
        expect(heartbeat.status).toBe(200)
        expect(Object.keys(Object(heartbeat.json)).sort()).toEqual(["claimLeaseMs", "heartbeatIntervalMs", "sessionTtlMs"])

        const empty = yield* post("/api/agent/claim", key, { sessionId })
        expect([empty.status, empty.json]).toEqual([200, { thread: null }])

        const created = yield* createThread(key, target, "hello")
        const claimed = yield* post("/api/agent/claim", key, { sessionId })
        expect(claimed.status).toBe(200)
        const thread = Object(Reflect.get(Object(claimed.json), "thread"))
        expect(thread.threadId).toBe(created.threadId)
        const epoch: number = thread.epoch
        const base = `/api/agent/threads/${created.threadId}`

        expect((yield* post(`${base}/renew`, key, { sessionId, epoch })).status).toBe(200)
        const stale = yield* post(`${base}/renew`, key, { sessionId, epoch: epoch - 1 })
        expect(stale.status).toBe(409)
        expect(tagOf(stale.json)).toBe("ClaimLost")

        const batch = yield* post(`${base}/batch`, key, { sessionId, epoch })
        expect(batch.status).toBe(200)
        const messageId: string = Object(batch.json).assistantMessageId
        expect(Object(batch.json).drained).toBe(false)

        const chunks = numbered([claude.init(), claude.text("hi"), claude.result("hi")])
        const uploaded = yield* post(`${base}/chunks`, key, { sessionId, epoch, messageId, chunks })
        expect([uploaded.status, uploaded.json]).toEqual([200, { accepted: 3, duplicates: 0 }])
        const again = yield* post(`${base}/chunks`, key, { sessionId, epoch, messageId, chunks })
        expect([again.status, again.json]).toEqual([200, { accepted: 0, duplicates: 3 }])

        const full = fullQuotedGroup()
        const tooMany = numbered([...full, claude.text("one too many")].map(({ type, data }) => ({ type, data })), 3)
        const refused = yield* post(`${base}/chunks`, key, { sessionId, epoch, messageId, chunks: tooMany })
        expect(refused.status).toBe(400)
        expect(tagOf(refused.json)).toBe("HttpApiDecodeError")
        expect(refused.text).toContain("chunks")
        const body = JSON.stringify({ sessionId, epoch, messageId, chunks: numbered(full, 3) })
        expect(full.reduce((sum, chunk) => sum + uploadBytes(chunk), 0)).toBeGreaterThan(0.95 * GROUP_LIMITS.bytes)
        expect(Buffer.byteLength(body)).toBeLessThan(defaults.maxBodyBytes)
        const fullUpload = yield* post(`${base}/chunks`, key, body)
        // Nothing of the refused upload was kept: all 1,000 are new.
        expect([fullUpload.status, fullUpload.json]).toEqual([200, { accepted: 1_000, duplicates: 0 }])

        const completed = yield* post(`${base}/complete`, key, { sessionId, epoch, messageId })
        expect([completed.status, completed.text]).toEqual([204, ""])
        const drained = yield* post(`${base}/batch`, key, { sessionId, epoch })
        expect([drained.status, drained.json]).toEqual([200, { drained: true }])
        const afterDrain = yield* post(`${base}/release`, key, { sessionId, epoch })
        expect(afterDrain.status).toBe(409)
        expect(tagOf(afterDrain.json)).toBe("ClaimLost")
      }))
  })
})
