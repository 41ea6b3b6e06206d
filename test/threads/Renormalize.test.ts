import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { renormalize } from "../../src/threads/Renormalize.js"
import { bridgeClient, registerCli } from "../support/FakeCli.js"
import { callTool, TestServer } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"

const textLine = (uuid: string, text: string) => JSON.stringify({ type: "assistant", uuid, message: { content: [{ type: "text", text }] } })

describe("re-normalizing stored chunks", () => {
  it.layer(TestServer())("renormalize", (it) => {
    it.effect("recomputes events from the raw chunks in batches, rewriting only those that changed, with progress", () =>
      Effect.gen(function*() {
        const owner = yield* seedOwner("renorm")
        const cli = yield* bridgeClient(owner.key)
        const { profile, sessionId } = yield* registerCli(cli, owner.project.id)
        yield* callTool(owner.key, "create_thread", {
          content: "go",
          profileId: profile.profileId,
          pathId: profile.paths[0]?.pathId,
          cliType: "claude"
        })
        const claim = yield* cli.agent.claim({ payload: { sessionId } })
        const thread = claim.thread
        if (thread === null) return yield* Effect.dieMessage("nothing claimed")
        const batch = yield* cli.agent.startBatch({ path: { threadId: thread.threadId }, payload: { sessionId, epoch: thread.epoch } })
        if (batch.drained) return yield* Effect.dieMessage("drained")
        const chunks = Array.from({ length: 5 }, (_, seq) => ({ seq, type: "assistant", data: textLine(`u${seq}`, `line ${seq}`) }))
        yield* cli.agent.uploadChunks({
          path: { threadId: thread.threadId },
          payload: { sessionId, epoch: thread.epoch, messageId: batch.assistantMessageId, chunks }
        })
        const sql = yield* SqlClient.SqlClient
        // What an older normalizer might have stored for two of them.
        yield* sql`UPDATE thread_chunks SET normalized_event = '{"kind":"unknown","reason":"unrecognized-type","rawType":"assistant","rawData":""}'::jsonb
          WHERE seq IN (1, 3)`
        const progress: Array<number> = []
        const result = yield* renormalize({
          threadId: thread.threadId,
          batchSize: 2,
          onProgress: (p) => Effect.sync(() => progress.push(p.done))
        })
        expect(result).toEqual({ done: 5, total: 5, changed: 2 })
        expect(progress).toEqual([2, 4, 5])
        const stored = yield* sql<{ event: { kind: string; text: string } }>`
          SELECT normalized_event AS event FROM thread_chunks WHERE thread_id = ${thread.threadId} ORDER BY seq`
        expect(stored.map((r) => r.event.text)).toEqual(["line 0", "line 1", "line 2", "line 3", "line 4"])
        const again = yield* renormalize({ batchSize: 100, onProgress: () => Effect.void })
        expect(again.changed).toBe(0)
      }))
  })
})
