import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import {
  claimThread,
  claude,
  complete,
  connectCli,
  createThread,
  type FakeCli,
  getThread,
  listMessages,
  numbered,
  outcome,
  sendMessage,
  startBatch,
  threadRecord,
  upload
} from "../support/FakeCli.js"
import { ageLease, sweepOnce } from "../support/Expiry.js"
import { TestServer } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"

/**
 * DESIGN §6: claims are thread-level leases fenced by an epoch that grows at every claim; every
 * CLI write names its epoch and is refused, changing nothing, once a newer claim exists. Chunks
 * are idempotent on (message, seq). Expired leases are released by the sweeper.
 */

const noRateLimit = { rateLimit: Option.none() }

/** Normal leases; the background sweeper stays out of the way and each test sweeps when its lease is aged. */
const manualSweep = {
  ...noRateLimit,
  bridge: { heartbeatIntervalMs: 30_000, sessionTtlMs: 60_000, claimLeaseMs: 60_000, sweepIntervalMs: 3_600_000 }
}

const leaseExpired = "The claim lease expired: the CLI stopped renewing it"

const setup = (slug: string, content = "Refactor the parser") =>
  Effect.gen(function*() {
    const owner = yield* seedOwner(slug)
    const cli = yield* connectCli(owner.key, owner.project.id)
    const thread = yield* createThread(owner.key, cli.target, content)
    return { ...owner, cli, thread }
  })

const chunkCount = (messageId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql`SELECT count(*)::int AS n FROM thread_chunks WHERE message_id = ${messageId}`
    const [row] = yield* Schema.decodeUnknown(Schema.Array(Schema.Struct({ n: Schema.Number })))(rows)
    return row?.n ?? -1
  }).pipe(Effect.orDie)

const StoredChunk = Schema.Struct({ seq: Schema.Number, data: Schema.String })
const storedChunks = (messageId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql`SELECT seq, data FROM thread_chunks WHERE message_id = ${messageId} ORDER BY seq`
    return yield* Schema.decodeUnknown(Schema.Array(StoredChunk))(rows)
  }).pipe(Effect.orDie)

/** Everything a client can see of a thread, plus its bridge record: compared before and after refused writes. */
/** What a refused write must not change. The lease expiry is left out: the live holder renews it meanwhile. */
const snapshot = (key: string, threadId: string) =>
  Effect.all({
    thread: getThread(key, threadId),
    messages: listMessages(key, threadId),
    record: Effect.map(threadRecord(threadId), ({ claimLeaseExpiresAt: _, ...record }) => record)
  })

/** Every write a CLI makes under one claim, each naming `messageId` where it needs one. */
const allWrites = (cli: FakeCli, threadId: string, epoch: number, messageId: string, seq: number) => {
  const path = { threadId }
  const ref = { sessionId: cli.sessionId, epoch }
  return {
    renew: cli.client.agent.renew({ path, payload: ref }),
    startBatch: cli.client.agent.startBatch({ path, payload: ref }),
    uploadChunks: cli.client.agent.uploadChunks({
      path,
      payload: { ...ref, messageId, chunks: numbered([claude.text("STALE-WRITE text")], seq) }
    }),
    complete: cli.client.agent.complete({ path, payload: { ...ref, messageId } }),
    fail: cli.client.agent.fail({ path, payload: { ...ref, messageId, errorMessage: "STALE-WRITE failure" } }),
    release: cli.client.agent.release({ path, payload: ref })
  }
}

const writeOutcomes = (writes: ReturnType<typeof allWrites>) =>
  Effect.all({
    renew: outcome(writes.renew),
    startBatch: outcome(writes.startBatch),
    uploadChunks: outcome(writes.uploadChunks),
    complete: outcome(writes.complete),
    fail: outcome(writes.fail),
    release: outcome(writes.release)
  })

const allClaimLost = {
  renew: "ClaimLost",
  startBatch: "ClaimLost",
  uploadChunks: "ClaimLost",
  complete: "ClaimLost",
  fail: "ClaimLost",
  release: "ClaimLost"
}

/** The lease runs out and the sweeper passes once: exactly this claim is released. */
const expireAndSweep = (threadId: string) =>
  Effect.gen(function*() {
    yield* ageLease(threadId)
    expect(yield* sweepOnce).toEqual({ sessionClaims: 0, staleClaims: 1 })
  })

const allSessionExpired = {
  renew: "SessionExpired",
  startBatch: "SessionExpired",
  uploadChunks: "SessionExpired",
  complete: "SessionExpired",
  fail: "SessionExpired",
  release: "SessionExpired"
}

describe("fencing: claim epochs, idempotent chunks", () => {
  layer(TestServer(noRateLimit, "node"))((it) => {
    it.effect("every CLI write under an old epoch after a newer claim is refused with ClaimLost and changes nothing", () =>
      Effect.gen(function*() {
        const { key, cli, thread } = yield* setup("fence-old-epoch")
        const old = yield* claimThread(cli)
        yield* cli.client.agent.release({ path: { threadId: thread.threadId }, payload: { sessionId: cli.sessionId, epoch: old.epoch } })
        const current = yield* claimThread(cli, thread.threadId)
        expect(current.epoch).toBeGreaterThan(old.epoch)
        const batch = yield* startBatch(cli, current)
        yield* upload(cli, current, batch.assistantMessageId, numbered([claude.text("Fresh work.")]))
        const before = yield* snapshot(key, thread.threadId)

        expect(yield* writeOutcomes(allWrites(cli, thread.threadId, old.epoch, batch.assistantMessageId, 1))).toEqual(allClaimLost)
        // An epoch the thread was never claimed under is no better.
        expect(yield* writeOutcomes(allWrites(cli, thread.threadId, current.epoch + 1, batch.assistantMessageId, 1))).toEqual(allClaimLost)

        const refused = yield* Effect.flip(cli.client.agent.renew({
          path: { threadId: thread.threadId },
          payload: { sessionId: cli.sessionId, epoch: old.epoch }
        }))
        expect(refused).toMatchObject({ _tag: "ClaimLost", threadId: thread.threadId, currentEpoch: current.epoch })

        expect(yield* snapshot(key, thread.threadId)).toEqual(before)
        expect(yield* chunkCount(batch.assistantMessageId)).toBe(1)

        // The current claim is untouched and finishes normally.
        yield* complete(cli, current, batch.assistantMessageId)
        const answer = (yield* listMessages(key, thread.threadId)).at(-1)
        expect(answer).toMatchObject({ messageId: batch.assistantMessageId, status: "completed", text: "Fresh work." })
        expect(answer?.errorMessage).toBeUndefined()
      }))

    it.effect("a write naming another session's claim is refused, even with the right epoch", () =>
      Effect.gen(function*() {
        const { key, project, cli, thread } = yield* setup("fence-other-session")
        const claim = yield* claimThread(cli)
        const batch = yield* startBatch(cli, claim)
        // A second profile of the same user: a live session, but not the one holding the claim.
        const other = yield* connectCli(key, project.id, { name: "desktop", path: "/home/dev/other" })
        const before = yield* snapshot(key, thread.threadId)
        const outcomes = yield* writeOutcomes(allWrites(other, thread.threadId, claim.epoch, batch.assistantMessageId, 0))
        for (const [write, tag] of Object.entries(outcomes)) {
          expect({ write, tag }).toEqual({ write, tag: expect.stringMatching(/^(ClaimLost|NotFound)$/) })
        }
        expect(yield* snapshot(key, thread.threadId)).toEqual(before)
      }))

    it.effect("duplicate chunk uploads (same message and seq) are stored once and the text is not doubled", () =>
      Effect.gen(function*() {
        const { key, cli, thread } = yield* setup("fence-dupes")
        const claim = yield* claimThread(cli)
        const batch = yield* startBatch(cli, claim)
        const id = batch.assistantMessageId
        const first = numbered([claude.text("alpha"), claude.text("bravo")])
        expect(yield* upload(cli, claim, id, first)).toEqual({ accepted: 2, duplicates: 0 })
        // The CLI resends after a network fault: the same chunks again, then an overlap with new data.
        expect(yield* upload(cli, claim, id, first)).toEqual({ accepted: 0, duplicates: 2 })
        const overlap = [
          { seq: 1, type: "assistant", data: claude.text("BRAVO-RESENT-DIFFERENTLY").data },
          ...numbered([claude.text("charlie")], 2)
        ]
        expect(yield* upload(cli, claim, id, overlap)).toEqual({ accepted: 1, duplicates: 1 })
        // Several copies of one upload racing each other: still stored once.
        const racing = numbered([claude.text("delta")], 3)
        const raced = yield* Effect.all(Array.from({ length: 6 }, () => upload(cli, claim, id, racing)), { concurrency: "unbounded" })
        expect(raced.reduce((sum, r) => sum + r.accepted, 0)).toBe(1)
        expect(raced.reduce((sum, r) => sum + r.duplicates, 0)).toBe(5)

        const stored = yield* storedChunks(id)
        expect(stored.map((c) => c.seq)).toEqual([0, 1, 2, 3])
        expect(stored[1]?.data).toBe(first[1]?.data)

        yield* complete(cli, claim, id)
        const text = (yield* listMessages(key, thread.threadId)).at(-1)?.text ?? ""
        for (const word of ["alpha", "bravo", "charlie", "delta"]) expect(text.split(word)).toHaveLength(2)
        expect(text).not.toContain("BRAVO-RESENT")
      }))

    it.effect("chunks for a message that is not the streaming one are refused with InvalidArgument", () =>
      Effect.gen(function*() {
        const { key, cli, thread } = yield* setup("fence-wrong-message")
        const claim = yield* claimThread(cli)
        const first = yield* startBatch(cli, claim)
        yield* sendMessage(key, thread.threadId, "queued for the next batch")
        yield* upload(cli, claim, first.assistantMessageId, numbered([claude.text("first answer")]))
        yield* complete(cli, claim, first.assistantMessageId)

        // Between batches nothing streams: no message takes chunks.
        const between = yield* Effect.flip(upload(cli, claim, first.assistantMessageId, numbered([claude.text("LATE")], 1)))
        expect(between._tag).toBe("InvalidArgument")

        const userMessageId = first.messages[0]?.messageId ?? ""
        const wrongIds = [first.assistantMessageId, userMessageId, "msg_does_not_exist"]
        // Completing the finished message again is a retried request: accepted, nothing changes.
        yield* complete(cli, claim, first.assistantMessageId)
        const refusedComplete = yield* Effect.flip(complete(cli, claim, userMessageId))
        expect(refusedComplete._tag).toBe("InvalidArgument")

        const second = yield* startBatch(cli, claim)
        for (const messageId of wrongIds) {
          const error = yield* Effect.flip(upload(cli, claim, messageId, numbered([claude.text("MISDIRECTED")], 5)))
          expect([messageId, error._tag]).toEqual([messageId, "InvalidArgument"])
        }
        const wrongFinish = yield* Effect.flip(complete(cli, claim, "msg_does_not_exist"))
        expect(wrongFinish._tag).toBe("InvalidArgument")

        expect(yield* chunkCount(first.assistantMessageId)).toBe(1)
        expect(yield* chunkCount(userMessageId)).toBe(0)
        expect(yield* chunkCount(second.assistantMessageId)).toBe(0)
        const messages = yield* listMessages(key, thread.threadId)
        expect(messages.map((m) => m.text).join(" ")).not.toContain("MISDIRECTED")
        expect(messages.find((m) => m.messageId === first.assistantMessageId)).toMatchObject({ status: "completed", text: "first answer" })
        expect(messages.find((m) => m.messageId === second.assistantMessageId)).toMatchObject({ status: "streaming", text: "" })
      }))
  })

  // Leases are aged in the database and swept by the test: no second-long timer to race.
  layer(TestServer(manualSweep, "node"), { excludeTestServices: true })((it) => {
    it.effect("a CLI that dies mid-stream loses its lease to the sweeper; its answer fails, retry requeues, a new session claims under a higher epoch and the dead CLI's late writes change nothing", () =>
      Effect.gen(function*() {
        const { key, project, cli: dead, thread } = yield* setup("fence-dead-cli", "Long running job")
        const claim = yield* claimThread(dead)
        const batch = yield* startBatch(dead, claim)
        yield* upload(dead, claim, batch.assistantMessageId, numbered([claude.init(), claude.text("partial answer")]))
        // The CLI dies here: no more renewals, chunks or heartbeats.

        yield* expireAndSweep(thread.threadId)
        const record = yield* threadRecord(thread.threadId)
        expect(record).toMatchObject({ claimedBySessionId: null, activeAssistantMessageId: null, claimLeaseExpiresAt: null })
        const afterSweep = yield* listMessages(key, thread.threadId)
        expect(afterSweep.map((m) => [m.role, m.status])).toEqual([["user", "failed"], ["assistant", "failed"]])
        expect(afterSweep[1]).toMatchObject({ messageId: batch.assistantMessageId, text: "partial answer", errorMessage: leaseExpired })
        // The batch's user message failed with it, so nothing waits: the thread rests idle, its run failed.
        expect(yield* getThread(key, thread.threadId)).toMatchObject({
          status: "failed",
          processingState: "idle",
          hasPendingUserMessages: false
        })

        // A new CLI process takes over the profile, and the user retries the failed run.
        const next = yield* connectCli(key, project.id, { profileId: dead.profile.profileId, force: true })
        const retried = yield* next.client.threads.retry({ path: { threadId: thread.threadId } })
        expect(retried).toMatchObject({ status: "pending", hasPendingUserMessages: true })
        expect((yield* listMessages(key, thread.threadId)).map((m) => m.messageId)).toEqual([batch.messages[0]?.messageId])

        const claim2 = yield* claimThread(next)
        expect(claim2).toMatchObject({ threadId: thread.threadId })
        expect(claim2.epoch).toBeGreaterThan(claim.epoch)
        const batch2 = yield* startBatch(next, claim2)
        expect(batch2.messages.map((m) => m.messageId)).toEqual(batch.messages.map((m) => m.messageId))
        yield* upload(next, claim2, batch2.assistantMessageId, numbered([claude.text("second attempt")]))
        const before = yield* snapshot(key, thread.threadId)

        // The dead CLI wakes up and keeps writing under its old claim: its session was replaced, so every write
        // is refused before the epoch is even looked at.
        for (const messageId of [batch.assistantMessageId, batch2.assistantMessageId]) {
          expect(yield* writeOutcomes(allWrites(dead, thread.threadId, claim.epoch, messageId, 1))).toEqual(allSessionExpired)
        }
        expect(yield* snapshot(key, thread.threadId)).toEqual(before)

        yield* complete(next, claim2, batch2.assistantMessageId)
        const final = yield* listMessages(key, thread.threadId)
        expect(final.map((m) => [m.role, m.text])).toEqual([["user", "Long running job"], ["assistant", "second attempt"]])
        expect(final[1]?.status).toBe("completed")
        expect(final.map((m) => m.text).join(" ")).not.toContain("STALE-WRITE")
      }))

    it.effect("a session stays online while one of its claims goes stale; the sweeper releases it and writes under the stale epoch are ClaimLost", () =>
      Effect.gen(function*() {
        const { key, cli, thread } = yield* setup("fence-stale-online")
        const claim = yield* claimThread(cli)
        const batch = yield* startBatch(cli, claim)
        yield* upload(cli, claim, batch.assistantMessageId, numbered([claude.text("partial")]))

        // The process keeps heartbeating while this thread's worker hangs past its lease.
        yield* expireAndSweep(thread.threadId)
        expect(yield* cli.client.agent.heartbeat({ payload: { sessionId: cli.sessionId } })).toMatchObject({ sessionTtlMs: 60_000 })
        expect((yield* threadRecord(thread.threadId)).claimedBySessionId).toBeNull()
        expect((yield* getThread(key, thread.threadId)).targetOnline).toBe(true)
        expect((yield* listMessages(key, thread.threadId)).at(-1)).toMatchObject({
          status: "failed",
          text: "partial",
          errorMessage: leaseExpired
        })

        // New work arrives and the same (online) session claims the thread again.
        yield* sendMessage(key, thread.threadId, "Are you still there?")
        const fresh = yield* claimThread(cli, thread.threadId)
        expect(fresh.epoch).toBeGreaterThan(claim.epoch)
        const before = yield* snapshot(key, thread.threadId)

        // The hung worker resumes under the stale epoch.
        const outcomes = yield* writeOutcomes(allWrites(cli, thread.threadId, claim.epoch, batch.assistantMessageId, 1))
        expect(outcomes).toEqual(allClaimLost)
        expect(yield* snapshot(key, thread.threadId)).toEqual(before)
        expect(yield* chunkCount(batch.assistantMessageId)).toBe(1)

        const next = yield* startBatch(cli, fresh)
        expect(next.messages.map((m) => m.content)).toEqual(["Are you still there?"])
      }))

    it.effect("a stale claim between batches is released with its waiting messages kept, and is claimable again at once", () =>
      Effect.gen(function*() {
        const { key, cli, thread } = yield* setup("fence-stale-idle", "Waiting work")
        const claim = yield* claimThread(cli)
        yield* expireAndSweep(thread.threadId)
        expect(yield* getThread(key, thread.threadId)).toMatchObject({
          status: "pending",
          processingState: "pending",
          hasPendingUserMessages: true
        })
        const again = yield* claimThread(cli)
        expect(again.threadId).toBe(thread.threadId)
        expect(again.epoch).toBeGreaterThan(claim.epoch)
        const stale = yield* Effect.flip(cli.client.agent.startBatch({
          path: { threadId: thread.threadId },
          payload: { sessionId: cli.sessionId, epoch: claim.epoch }
        }))
        expect(stale._tag).toBe("ClaimLost")
        const batch = yield* startBatch(cli, again)
        expect(batch.messages.map((m) => m.content)).toEqual(["Waiting work"])
      }))

    it.effect("renewing the lease keeps a claim past claimLeaseMs; once renewals stop the sweeper releases it", () =>
      Effect.gen(function*() {
        const { cli, thread } = yield* setup("fence-renew")
        const claim = yield* claimThread(cli)
        const renew = cli.client.agent.renew({
          path: { threadId: thread.threadId },
          payload: { sessionId: cli.sessionId, epoch: claim.epoch }
        })

        // The lease ran out, but a renewal lands before the sweeper passes: the claim stays.
        yield* ageLease(thread.threadId)
        const renewed = yield* renew
        expect(Date.parse(renewed.leaseExpiresAt)).toBeGreaterThanOrEqual(Date.parse(claim.leaseExpiresAt))
        expect(yield* sweepOnce).toEqual({ sessionClaims: 0, staleClaims: 0 })
        expect(yield* threadRecord(thread.threadId)).toMatchObject({ claimedBySessionId: cli.sessionId, claimEpoch: claim.epoch })

        // Renewals stop: the next sweep past the lease releases it.
        yield* expireAndSweep(thread.threadId)
        const lost = yield* Effect.flip(renew)
        expect(lost._tag).toBe("ClaimLost")
      }))
  })
})
