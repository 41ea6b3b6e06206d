import { SqlClient, type Statement } from "@effect/sql"
import { Array as Arr, Cache, Duration, Effect, Exit, Option, Schema } from "effect"
import type { Principal } from "../platform/auth/Principal.js"
import type { AgentSessionId } from "../../catalog/domain/Ids.js"
import * as GroupCommit from "../platform/sql/GroupCommit.js"
import { TrellisConfig } from "../platform/TrellisConfig.js"
import { ClaimedThread } from "../../catalog/bridge/AgentApi.js"
import { ClaimFence } from "./ClaimFence.js"
import { IsoTimestamp } from "./IsoTimestamp.js"
import { LiveSessions, reachSession } from "../machines/LiveSessions.js"

/** The claimed thread's row is the contract's record; only the lease arrives as a timestamp. */
const ClaimedRow = Schema.Struct({ ...ClaimedThread.fields, leaseExpiresAt: IsoTimestamp })
const decodeClaimed = Schema.decodeUnknown(Schema.Array(ClaimedRow))
const decodeOrderedClaimed = Schema.decodeUnknown(Schema.Array(Schema.Struct({ ...ClaimedRow.fields, ord: Schema.Number })))

interface ClaimRequest {
  readonly sessionId: string
  readonly profileId: string
  readonly machineId: string | null
}

/**
 * Claims: a pending thread leased to one session under a new epoch. Claims come in bursts (every
 * CLI asks when its queue changes), so concurrent ones share statements.
 */
export class ThreadClaims extends Effect.Service<ThreadClaims>()("trellis/ThreadClaims", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* TrellisConfig
    const sessions = yield* LiveSessions
    const fences = yield* ClaimFence
    const ttlSeconds = config.bridge.sessionTtlMs / 1000

    /**
     * Which profile, project and user a session serves never changes, so it is looked up once per
     * session; only its liveness is read with each claim. A miss or a failed read is not kept.
     */
    const sessionOwners = yield* Cache.makeWith({
      capacity: 10_000,
      lookup: sessions.owner,
      timeToLive: (exit) => Exit.isSuccess(exit) && Option.isSome(exit.value) ? Duration.minutes(10) : Duration.zero
    })

    /** The claimed thread's target, as the CLI needs it to run. */
    const claimedColumns = sql`
      c.id AS "threadId", c.title, c.claim_epoch::float8 AS epoch, c.claim_lease_expires_at AS "leaseExpiresAt",
      c.cli_type AS "cliType", c.cli_model AS "cliModel", c.cli_effort AS "cliEffort", c.cli_mode AS "cliMode",
      c.path_id AS "pathId", (SELECT path FROM cli_paths WHERE id = c.path_id) AS path, c.worktree,
      c.runtime_session_id AS "runtimeSessionId", c.agent_prompt AS "agentPrompt"`
    const claimSet = (sessionId: Statement.Fragment) =>
      sql`processing_state = 'claimed', status = 'running', claimed_by_session_id = ${sessionId}, claimed_at = now(),
        claim_lease_expires_at = ${fences.renewedLease}, claim_epoch = t.claim_epoch + 1`
    const claimable = sql`t.processing_state = 'pending' AND t.deleted_at IS NULL AND t.claimed_by_session_id IS NULL
      AND t.queue_held_at IS NULL AND t.kind = 'thread'`
    /** A thread whose runtime session is on another machine waits for that machine (or a fresh start). */
    const runsOn = (machineId: Statement.Fragment) => sql`(t.runtime_machine_id IS NULL OR t.runtime_machine_id = ${machineId})`
    const sessionLive = (sessionId: Statement.Fragment) =>
      sql`EXISTS (SELECT 1 FROM agent_sessions s WHERE s.id = ${sessionId} AND s.ended_at IS NULL
        AND s.last_heartbeat_at > now() - make_interval(secs => ${ttlSeconds}))`

    /** A named thread for one session: the pick and the claim in one statement. */
    const claimNamed = (request: ClaimRequest, threadId: string) =>
      sql`
        WITH next AS (
          SELECT t.id FROM threads t
          WHERE t.id = ${threadId} AND t.profile_id = ${request.profileId} AND ${claimable}
            AND ${runsOn(sql`${request.machineId}`)} AND ${sessionLive(sql`${request.sessionId}`)}
          FOR UPDATE OF t SKIP LOCKED
        ), claimed AS (
          UPDATE threads t SET ${claimSet(sql`${request.sessionId}`)} FROM next WHERE t.id = next.id RETURNING t.*
        )
        SELECT ${claimedColumns} FROM claimed c`.pipe(
        Effect.flatMap(decodeClaimed),
        Effect.map((rows) => rows[0]),
        Effect.orDie
      )

    /**
     * The longest-waiting threads for a group of sessions, one each, in one statement: each
     * profile's queue is read once per machine, in index order, taking as many unlocked rows as
     * it has requests (a row another transaction holds is skipped), and the k-th request of a
     * profile and machine gets its k-th row. A request whose session is no longer live gets nothing.
     */
    const claimGroup = (requests: Arr.NonEmptyReadonlyArray<ClaimRequest>) =>
      sql`
        WITH request AS (
          SELECT r.ord, r.session_id, r.profile_id, coalesce(r.machine_id, '') AS machine,
            row_number() OVER (PARTITION BY r.profile_id, r.machine_id ORDER BY r.ord) AS k
          FROM (VALUES ${
        sql.csv(
          requests.map((request, ord) =>
            sql`(${ord}::int, ${request.sessionId}::text, ${request.profileId}::text, ${request.machineId}::text)`
          )
        )
      })
            AS r (ord, session_id, profile_id, machine_id)
          WHERE ${sessionLive(sql`r.session_id`)}
        ), wanted AS (
          SELECT profile_id, machine, count(*) AS n FROM request GROUP BY profile_id, machine
        ), next AS (
          SELECT w.profile_id, w.machine, x.id,
            row_number() OVER (PARTITION BY w.profile_id, w.machine ORDER BY x.last_activity_at, x.id) AS k
          FROM wanted w CROSS JOIN LATERAL (
            SELECT t.id, t.last_activity_at FROM threads t
            WHERE t.profile_id = w.profile_id AND ${claimable} AND ${runsOn(sql`w.machine`)}
            ORDER BY t.last_activity_at, t.id LIMIT w.n
            FOR UPDATE OF t SKIP LOCKED
          ) x
        ), claimed AS (
          UPDATE threads t SET ${claimSet(sql`request.session_id`)}
          FROM next JOIN request ON request.profile_id = next.profile_id AND request.machine = next.machine AND request.k = next.k
          WHERE t.id = next.id
          RETURNING request.ord, t.*
        )
        SELECT c.ord, ${claimedColumns} FROM claimed c`.pipe(
        Effect.flatMap(decodeOrderedClaimed),
        Effect.map((rows) => {
          const byOrd = new Map(rows.map(({ ord, ...thread }) => [ord, thread]))
          return requests.map((_, ord) => byOrd.get(ord))
        }),
        Effect.orDie
      )

    const claims = yield* GroupCommit.make({
      run: claimGroup,
      maxSize: 64,
      workers: 2
    })

    /**
     * Claims the given pending thread, or the profile's longest-waiting one; none when nothing waits.
     * The session's owner is checked here; its liveness, the pick and the claim go to the database
     * as one statement, shared with other sessions' claims arriving at the same time. Only when
     * nothing was claimed is the session looked at again, to tell "nothing waits" from an expired session.
     */
    const claim = Effect.fn("ThreadClaims.claim")(function*(
      principal: Principal,
      sessionId: AgentSessionId,
      threadId?: string
    ) {
      const owner = Option.getOrUndefined(yield* sessionOwners.get(sessionId))
      yield* reachSession(principal, sessionId, owner)
      const { machineId, profileId } = yield* Effect.fromNullable(owner).pipe(Effect.orDie)
      const thread: ClaimedThread | undefined = threadId === undefined
        ? yield* claims.submit({ sessionId, profileId, machineId })
        : yield* claimNamed({ sessionId, profileId, machineId }, threadId)
      if (thread === undefined) yield* sessions.live(principal, sessionId)
      return thread
    })

    return { claim } as const
  }),
  dependencies: [LiveSessions.Default, ClaimFence.Default]
}) {}
