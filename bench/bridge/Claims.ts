/**
 * Claims: CLI sessions claiming pending threads (POST /api/agent/claim) until their queues are
 * empty, and a tally of which thread each claim returned, so "exactly once" is checked per thread
 * ID. The baseline is a bare `UPDATE … FOR UPDATE SKIP LOCKED` loop with the claim's own WHERE,
 * ORDER BY and SET, issued by as many fibers through a pool configured as the server's.
 */
import { SqlClient } from "@effect/sql"
import { Deferred, Effect } from "effect"
import { performance } from "node:perf_hooks"
import type { Principal } from "../../src/platform/auth/Principal.js"
import { ThreadClaims } from "../../src/bridge/ThreadClaims.js"
import { leanClaimer, openSse, type Cli, type SseStream } from "./Bridge.js"
import { startCpu, type CpuShare } from "./Cpu.js"
import { percentile } from "./Workload.js"

/** A claim setup: which CLIs claim, how many claims each has in flight, and the threads they should get. */
export interface ClaimSetup {
  readonly key: "spread" | "shared" | "warm-up"
  readonly title: string
  readonly queues: ReadonlyArray<{ readonly cli: Cli; readonly threadIds: ReadonlyArray<string> }>
  readonly claimersPerCli: number
}

export interface ClaimRun {
  /** Claims that returned a thread. */
  readonly claims: number
  /** Every claim request, the final empty ones included. */
  readonly requests: number
  readonly seconds: number
  readonly claimsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly exactlyOnce: ExactlyOnce
  readonly cpu: CpuShare | undefined
  /** `pending` frames the CLIs' queue streams received while claiming (none when not subscribed). */
  readonly pendingFrames: number | undefined
  /** Thread → the session that claimed it (the last one, if several did). */
  readonly claimedBy: ReadonlyMap<string, string>
}

export interface ExactlyOnce {
  readonly expected: number
  /** Expected threads claimed exactly once. */
  readonly once: number
  /** Expected threads claimed more than once. */
  readonly repeated: number
  readonly missing: number
  /** Claims of threads outside the setup. */
  readonly foreign: number
  readonly ok: boolean
}

const tallyOf = (setup: ClaimSetup, claimed: ReadonlyArray<string>): ExactlyOnce => {
  const counts = new Map<string, number>()
  for (const id of claimed) counts.set(id, (counts.get(id) ?? 0) + 1)
  const expected = setup.queues.flatMap((queue) => queue.threadIds)
  const expectedSet = new Set(expected)
  const once = expected.filter((id) => counts.get(id) === 1).length
  const repeated = expected.filter((id) => (counts.get(id) ?? 0) > 1).length
  const missing = expected.filter((id) => !counts.has(id)).length
  const foreign = [...counts.keys()].filter((id) => !expectedSet.has(id)).length
  return { expected: expected.length, once, repeated, missing, foreign, ok: once === expected.length && foreign === 0 }
}

/** Runs `claimersPerCli` loops per CLI, each claiming until it gets nothing, and times the whole. */
const claimLoops = <E, R>(
  setup: ClaimSetup,
  claimOnce: (cli: Cli) => Effect.Effect<string | undefined, E, R>,
  serverPid: number | undefined
) =>
  Effect.gen(function*() {
    const claimed: Array<string> = []
    const claimedBy = new Map<string, string>()
    const latencies: Array<number> = []
    const loops = setup.queues.flatMap((queue) => Array.from({ length: setup.claimersPerCli }, () => queue.cli))
    const cpu = startCpu(serverPid)
    const started = performance.now()
    yield* Effect.forEach(loops, (cli) =>
      Effect.suspend(() => {
        const sent = performance.now()
        return Effect.map(claimOnce(cli), (threadId) => {
          latencies.push(performance.now() - sent)
          if (threadId !== undefined) {
            claimed.push(threadId)
            claimedBy.set(threadId, cli.sessionId)
          }
          return threadId
        })
      }).pipe(Effect.repeat({ while: (threadId) => threadId !== undefined })), { concurrency: "unbounded", discard: true })
    const seconds = (performance.now() - started) / 1000
    return {
      claims: claimed.length,
      requests: latencies.length,
      seconds,
      claimsPerSecond: claimed.length / seconds,
      p50Ms: percentile(latencies, 0.5),
      p99Ms: percentile(latencies, 0.99),
      exactlyOnce: tallyOf(setup, claimed),
      cpu: cpu(),
      pendingFrames: undefined,
      claimedBy
    } satisfies ClaimRun
  })

/**
 * Over HTTP. With `pendingStreams`, each CLI first opens its queue's SSE stream
 * (GET /api/agent/sessions/:id/pending) as the real CLI does, and the stream's first frame has
 * arrived before the clock starts; the streams stay open while the CLIs claim.
 */
export const httpClaims = (
  setup: ClaimSetup,
  options: { readonly baseUrl: string; readonly apiKey: string; readonly pendingStreams: boolean },
  serverPid: number | undefined
) =>
  Effect.gen(function*() {
    const streams: Array<SseStream> = []
    if (options.pendingStreams) {
      // Open, then wait for each stream's first frame (the queue as it stands), outside the timing.
      yield* Effect.forEach(setup.queues, ({ cli }) =>
        Effect.gen(function*() {
          const first = yield* Deferred.make<void>()
          const stream = yield* Effect.acquireRelease(
            Effect.sync(() =>
              openSse(`${options.baseUrl}/api/agent/sessions/${cli.sessionId}/pending`, options.apiKey, () => {
                Deferred.unsafeDone(first, Effect.void)
              })
            ),
            (stream) => Effect.sync(stream.close)
          )
          yield* Effect.promise(() => stream.ready)
          yield* Deferred.await(first).pipe(
            Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error(`no pending frame for ${cli.name}`) }),
            Effect.orDie
          )
          streams.push(stream)
        }), { concurrency: "unbounded", discard: true })
    }
    const before = streams.reduce((n, stream) => n + stream.frameCount(), 0)
    const claimers = yield* Effect.acquireRelease(
      Effect.sync(() =>
        new Map(setup.queues.map(({ cli }) => [cli.sessionId, leanClaimer(options.baseUrl, options.apiKey, setup.claimersPerCli)]))
      ),
      (claimers) => Effect.sync(() => claimers.forEach((claimer) => claimer.close()))
    )
    const run = yield* claimLoops(setup, (cli) =>
      Effect.promise(() =>
        claimers.get(cli.sessionId)?.claim(cli.sessionId) ?? Promise.reject(new Error(`no claimer for ${cli.name}`))
      ), serverPid)
    const pendingFrames = options.pendingStreams
      ? streams.reduce((n, stream) =>
        n + stream.frameCount(), 0) - before
      : undefined
    return { ...run, pendingFrames } satisfies ClaimRun
  }).pipe(Effect.scoped)

/** Through the service the endpoint calls (ThreadClaims.claim: session check, UPDATE, NOTIFY), in process: no HTTP. */
export const serviceClaims = (principal: Principal, setup: ClaimSetup) =>
  Effect.gen(function*() {
    const claims = yield* ThreadClaims
    return yield* claimLoops(setup, (cli) =>
      claims.claim(principal, cli.sessionId).pipe(Effect.orDie, Effect.map((thread) => thread?.threadId)), undefined)
  })

const LEASE_SECONDS = 60

/** The baseline: the claim's UPDATE alone (returning only the ID), no session check, no NOTIFY, no HTTP. */
export const bareClaims = (setup: ClaimSetup) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return yield* claimLoops(setup, (cli) =>
      sql<{ id: string }>`
        UPDATE threads t SET processing_state = 'claimed', status = 'running', claimed_by_session_id = ${cli.sessionId},
          claimed_at = now(), claim_lease_expires_at = now() + make_interval(secs => ${LEASE_SECONDS}),
          claim_epoch = t.claim_epoch + 1
        FROM (
          SELECT id FROM threads
          WHERE profile_id = ${cli.profileId} AND processing_state = 'pending' AND claimed_by_session_id IS NULL
            AND queue_held_at IS NULL AND deleted_at IS NULL AND kind = 'thread'
          ORDER BY last_activity_at, id LIMIT 1
          FOR UPDATE SKIP LOCKED
        ) next
        WHERE t.id = next.id
        RETURNING t.id`.pipe(Effect.orDie, Effect.map((rows) => rows[0]?.id)), undefined)
  })

const threadIdsOf = (setup: ClaimSetup) => setup.queues.flatMap((queue) => queue.threadIds)

/**
 * What the database says after a run: how many of the setup's threads have `claim_epoch` =
 * `epoch` and are held by the session the tally saw claim them.
 */
export const checkStored = (setup: ClaimSetup, run: ClaimRun, epoch: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ id: string; epoch: number; sessionId: string | null }>`
      SELECT id, claim_epoch::int AS epoch, claimed_by_session_id AS "sessionId" FROM threads
      WHERE ${sql.in("id", threadIdsOf(setup))}`
    return rows.filter((row) => row.epoch === epoch && row.sessionId !== null && row.sessionId === run.claimedBy.get(row.id)).length
  })

/** A heartbeat for the sessions, straight in the table (the server that would take one is stopped). */
export const refreshSessions = (sessionIds: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE agent_sessions SET last_heartbeat_at = now() WHERE ${sql.in("id", sessionIds)}`)

/**
 * Makes the setup's threads pending and unclaimed again (epochs stay) and its sessions live (a
 * fresh heartbeat), then VACUUM ANALYZE, so the next level claims the same queue as HTTP did.
 */
export const resetClaims = (setup: ClaimSetup) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* refreshSessions(setup.queues.map((queue) => queue.cli.sessionId))
    yield* sql`
      UPDATE threads SET processing_state = 'pending', status = 'pending', claimed_by_session_id = NULL, claimed_at = NULL,
        claim_lease_expires_at = NULL
      WHERE ${sql.in("id", threadIdsOf(setup))}`
    yield* sql`VACUUM ANALYZE threads`
  })
