import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import type { ProjectId } from "../../catalog/domain/Ids.js"
import { Memberships } from "../../src/orgs/Memberships.js"
import { Users } from "../../src/orgs/Users.js"
import {
  claude,
  complete,
  connectCli,
  createThread,
  type FakeCli,
  listMessages,
  numbered,
  sendMessage,
  threadRecord,
  upload
} from "../support/FakeCli.js"
import { concurrently } from "../support/TestDatabase.js"
import { TestServer } from "../support/TestServer.js"
import { createKey, seedOwner } from "../support/Seed.js"

/**
 * Claims racing each other (DESIGN §8: "20 competing CLIs … each thread claimed exactly once").
 *
 * A thread targets one profile and a profile has one live CLI session, so twenty CLIs never
 * compete for the *same* queue. What races in practice, and what these tests play:
 * - twenty CLIs (twenty profiles, of four users) draining their queues at the same time, each
 *   running several threads at once (parallel claim calls from one session on one queue), while
 *   users keep sending follow-up messages to threads mid-run;
 * - many parallel claim calls on one profile's queue, and many targeted claims of one thread.
 */

const noRateLimit = {
  rateLimit: Option.none(),
  // The fake CLIs do not heartbeat; on a slow machine the run may outlast SPEC's 60 s expiry.
  bridge: { heartbeatIntervalMs: 30_000, sessionTtlMs: 600_000, claimLeaseMs: 600_000, sweepIntervalMs: 5_000 }
}

const CLIS = 20
const WORKERS_PER_CLI = 5
/**
 * On PGlite the calls take turns on its one session: the race is PostgreSQL's to show, and the
 * embedded run checks the serialised outcome, where 200 threads (two per worker) say what 500 do
 * in under half the time (the whole database runs in the test's own thread, beside 100 clients).
 */
const THREADS_PER_CLI = process.env["DATABASE_URL"] ? 25 : 10

interface Owner {
  readonly key: string
}

const teammate = (projectId: ProjectId, slug: string, n: number) =>
  Effect.gen(function*() {
    const user = yield* (yield* Users).create({ name: `Member ${n}`, email: `member${n}@${slug}.test` })
    yield* (yield* Memberships).addToProject(projectId, user.id, "member")
    return { key: (yield* createKey(user.id, null)).secret }
  })

interface ClaimRecord {
  readonly threadId: string
  readonly epoch: number
  readonly profileId: string
}

interface BatchRecord {
  readonly threadId: string
  readonly epoch: number
  readonly assistantMessageId: string
  readonly userMessageIds: ReadonlyArray<string>
  readonly contents: ReadonlyArray<string>
}

const answerTo = (content: string) => `answer to <${content}>`

const UserRow = Schema.Struct({
  id: Schema.String,
  threadId: Schema.String,
  status: Schema.String,
  content: Schema.String,
  assistantId: Schema.NullOr(Schema.String),
  assistantStatus: Schema.NullOr(Schema.String),
  assistantText: Schema.NullOr(Schema.String)
})

const ThreadRow = Schema.Struct({
  id: Schema.String,
  claimEpoch: Schema.Number,
  processingState: Schema.String,
  status: Schema.String,
  claimedBySessionId: Schema.NullOr(Schema.String),
  activeAssistantMessageId: Schema.NullOr(Schema.String),
  hasPendingUserMessages: Schema.Boolean,
  assistants: Schema.Number
})

describe("concurrent CLIs and claims", () => {
  layer(TestServer(noRateLimit, "node"))((it) => {
    it.effect(
      concurrently(
        `${CLIS} CLIs drain ${
          CLIS * THREADS_PER_CLI
        } pending threads: each thread claimed exactly once, every user message answered exactly once, none left pending`
      ),
      () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const { key, project } = yield* seedOwner("conc-drain")
          const owners: ReadonlyArray<Owner> = [
            { key },
            ...(yield* Effect.all([1, 2, 3].map((n) => teammate(project.id, "conc-drain", n))))
          ]
          // Twenty profiles, five per user, registered together.
          const clis = yield* Effect.all(
            Array.from({ length: CLIS }, (_, i) => {
              const owner = owners[i % owners.length] ?? { key }
              return Effect.map(
                connectCli(owner.key, project.id, { name: `cli-${i}`, path: `/home/dev/cli-${i}` }),
                (cli) => ({ cli, owner })
              )
            }),
            { concurrency: CLIS }
          )

          // The pending threads; every fifth has a second message waiting before any CLI runs.
          const threads = yield* Effect.all(
            Array.from({ length: CLIS * THREADS_PER_CLI }, (_, n) => {
              const { cli, owner } = clis[n % CLIS] ?? { cli: undefined, owner: { key } }
              if (cli === undefined) return Effect.dieMessage("no CLI")
              return Effect.gen(function*() {
                const thread = yield* createThread(owner.key, cli.target, `t${n} first`)
                if (n % 5 === 0) yield* sendMessage(owner.key, thread.threadId, `t${n} second`)
                return { threadId: thread.threadId, n, owner, profileId: cli.profile.profileId }
              })
            }),
            { concurrency: 20 }
          )
          const byId = new Map(threads.map((t) => [t.threadId, t]))

          const claims: Array<ClaimRecord> = []
          const batches: Array<BatchRecord> = []
          const followUpsSent: Array<string> = []

          /** One of a CLI's parallel workers: claim, run batches until drained, claim the next. */
          const worker = (cli: FakeCli) =>
            Effect.gen(function*() {
              for (;;) {
                const { thread } = yield* cli.client.agent.claim({ payload: { sessionId: cli.sessionId } })
                if (thread === null) return
                const claim = { threadId: thread.threadId, epoch: thread.epoch }
                claims.push({ ...claim, profileId: cli.profile.profileId })
                const info = byId.get(thread.threadId)
                for (let round = 0;; round++) {
                  const batch = yield* cli.client.agent.startBatch({
                    path: { threadId: claim.threadId },
                    payload: { sessionId: cli.sessionId, epoch: claim.epoch }
                  })
                  if (batch.drained) break
                  batches.push({
                    threadId: claim.threadId,
                    epoch: claim.epoch,
                    assistantMessageId: batch.assistantMessageId,
                    userMessageIds: batch.messages.map((m) => m.messageId),
                    contents: batch.messages.map((m) => m.content)
                  })
                  yield* upload(
                    cli,
                    claim,
                    batch.assistantMessageId,
                    numbered([claude.init(), ...batch.messages.map((m) => claude.text(answerTo(m.content)))])
                  )
                  // Every tenth thread's user writes again while the first answer streams.
                  if (round === 0 && info !== undefined && info.n % 10 === 3) {
                    const content = `t${info.n} follow-up`
                    yield* sendMessage(info.owner.key, claim.threadId, content)
                    followUpsSent.push(content)
                  }
                  yield* complete(cli, claim, batch.assistantMessageId)
                }
              }
            })

          yield* Effect.all(
            clis.map(({ cli }) => Effect.all(Array.from({ length: WORKERS_PER_CLI }, () => worker(cli)), { concurrency: WORKERS_PER_CLI })),
            { concurrency: CLIS }
          )

          // Each thread claimed exactly once, by its own profile's CLI, under the first epoch.
          expect(claims).toHaveLength(threads.length)
          expect(new Set(claims.map((c) => c.threadId)).size).toBe(threads.length)
          for (const c of claims) {
            expect({ threadId: c.threadId, epoch: c.epoch, profileId: c.profileId }).toEqual({
              threadId: c.threadId,
              epoch: 1,
              profileId: byId.get(c.threadId)?.profileId
            })
          }

          // Every user message went out in exactly one batch.
          expect(followUpsSent).toHaveLength(threads.filter((t) => t.n % 10 === 3).length)
          const batchedIds = batches.flatMap((b) => b.userMessageIds)
          const expectedUserMessages = threads.length + threads.filter((t) => t.n % 5 === 0).length + followUpsSent.length
          expect(batchedIds).toHaveLength(expectedUserMessages)
          expect(new Set(batchedIds).size).toBe(expectedUserMessages)
          for (const t of threads.filter((t) => t.n % 5 === 0)) {
            expect(batches.find((b) => b.threadId === t.threadId)?.contents).toEqual([`t${t.n} first`, `t${t.n} second`])
          }
          for (const content of followUpsSent) {
            const batch = batches.find((b) => b.contents.includes(content))
            expect(batch?.contents).toEqual([content])
          }

          // The database agrees: nothing pending or claimed, one completed answer per batch.
          const threadIds = threads.map((t) => t.threadId)
          const threadRows = yield* sql`
          SELECT t.id, t.claim_epoch::float8 AS "claimEpoch", t.processing_state AS "processingState", t.status,
            t.claimed_by_session_id AS "claimedBySessionId", t.active_assistant_message_id AS "activeAssistantMessageId",
            t.has_pending_user_messages AS "hasPendingUserMessages",
            (SELECT count(*)::int FROM thread_messages a WHERE a.thread_id = t.id AND a.role = 'assistant') AS assistants
          FROM threads t WHERE ${sql.in("t.id", threadIds)}`.pipe(
            Effect.flatMap(Schema.decodeUnknown(Schema.Array(ThreadRow))),
            Effect.orDie
          )
          expect(threadRows).toHaveLength(threads.length)
          const batchesPerThread = new Map<string, number>()
          for (const b of batches) batchesPerThread.set(b.threadId, (batchesPerThread.get(b.threadId) ?? 0) + 1)
          for (const row of threadRows) {
            expect(row).toEqual({
              id: row.id,
              claimEpoch: 1,
              processingState: "idle",
              status: "idle",
              claimedBySessionId: null,
              activeAssistantMessageId: null,
              hasPendingUserMessages: false,
              assistants: batchesPerThread.get(row.id)
            })
          }

          const userRows = yield* sql`
          SELECT m.id, m.thread_id AS "threadId", m.status, m.content, a.id AS "assistantId", a.status AS "assistantStatus",
            a.text AS "assistantText"
          FROM thread_messages m LEFT JOIN thread_messages a ON a.id = m.batch_message_id
          WHERE m.role = 'user' AND ${sql.in("m.thread_id", threadIds)}`.pipe(
            Effect.flatMap(Schema.decodeUnknown(Schema.Array(UserRow))),
            Effect.orDie
          )
          expect(userRows).toHaveLength(expectedUserMessages)
          const batchOf = new Map(batches.flatMap((b) => b.userMessageIds.map((id) => [id, b.assistantMessageId] as const)))
          for (const row of userRows) {
            expect({ id: row.id, status: row.status, assistantId: row.assistantId, assistantStatus: row.assistantStatus }).toEqual({
              id: row.id,
              status: "completed",
              assistantId: batchOf.get(row.id),
              assistantStatus: "completed"
            })
            expect(row.assistantText?.split(answerTo(row.content))).toHaveLength(2)
          }

          // And so does the thread view: every thread that had more than one message, and a tenth of the rest.
          const timelines = yield* Effect.all(
            threads.filter((t) => t.n % 5 === 0 || t.n % 10 === 3 || t.n % 10 === 1).map((t) =>
              Effect.map(listMessages(t.owner.key, t.threadId), (messages) => ({ t, messages }))
            ),
            { concurrency: 20 }
          )
          for (const { t, messages } of timelines) {
            const users = messages.filter((m) => m.role === "user").map((m) => m.text)
            const answers = messages.filter((m) => m.role === "assistant")
            expect(answers.every((m) => m.status === "completed")).toBe(true)
            expect(answers).toHaveLength(batchesPerThread.get(t.threadId) ?? -1)
            const answered = answers.map((m) => m.text).join("\n\n")
            for (const content of users) expect(answered.split(answerTo(content))).toHaveLength(2)
          }
        }),
      { timeout: 300_000 }
    )

    it.effect(
      concurrently("parallel claims on one profile's queue take distinct threads, and racing claims of one thread give it to exactly one"),
      () =>
        Effect.gen(function*() {
          const { key, project } = yield* seedOwner("conc-one-queue")
          const cli = yield* connectCli(key, project.id)
          const threads = yield* Effect.all(
            Array.from({ length: 60 }, (_, n) => createThread(key, cli.target, `queued ${n}`)),
            { concurrency: 10 }
          )
          const claimOnce = cli.client.agent.claim({ payload: { sessionId: cli.sessionId } })
          const results = yield* Effect.all(Array.from({ length: 80 }, () => claimOnce), { concurrency: "unbounded" })
          const claimed = results.flatMap((r) => (r.thread === null ? [] : [r.thread]))
          expect(claimed).toHaveLength(60)
          expect(results.filter((r) => r.thread === null)).toHaveLength(20)
          expect(new Set(claimed.map((t) => t.threadId))).toEqual(new Set(threads.map((t) => t.threadId)))
          expect(claimed.every((t) => t.epoch === 1)).toBe(true)

          const contested = yield* createThread(key, cli.target, "everyone wants this one")
          const racing = yield* Effect.all(
            Array.from(
              { length: 20 },
              () => cli.client.agent.claim({ payload: { sessionId: cli.sessionId, threadId: contested.threadId } })
            ),
            { concurrency: "unbounded" }
          )
          const winners = racing.flatMap((r) => (r.thread === null ? [] : [r.thread]))
          expect(winners).toHaveLength(1)
          expect(winners[0]).toMatchObject({ threadId: contested.threadId, epoch: 1 })
          expect(yield* threadRecord(contested.threadId)).toMatchObject({ claimEpoch: 1, claimedBySessionId: cli.sessionId })
          // Nothing is left to claim.
          expect((yield* cli.client.agent.claim({ payload: { sessionId: cli.sessionId } })).thread).toBeNull()
        }),
      { timeout: 60_000 }
    )
  })
})
