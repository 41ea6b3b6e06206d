import { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Schema } from "effect"
import type { Principal } from "../platform/auth/Principal.js"
import { type ChangeReportBody, KEPT_REPORTS_PER_THREAD } from "../../catalog/domain/ChangeReport.js"
import { Conflict } from "../../catalog/domain/Errors.js"
import { type AgentSessionId, ChangeReportId } from "../../catalog/domain/Ids.js"
import { LiveSessions } from "../machines/LiveSessions.js"
import { requestedAtOf } from "../threads/ChangeRequests.js"
import { threadNotFound, threadReadableBy } from "../threads/ThreadVisibility.js"
import { ClaimFence } from "./ClaimFence.js"
import { LiveEvents } from "../platform/notifications/LiveEvents.js"

const decodeHolder = Schema.decodeUnknown(Schema.Array(Schema.Struct({
  profileId: Schema.NullOr(Schema.String),
  requested: Schema.Boolean
})))

/**
 * Stores the change reports a CLI sends (issue 31 §1): after each turn under its claim, so a CLI
 * that lost the thread cannot overwrite what the new holder reports; or between turns, answering a
 * change request (ChangeRequests), from a session of the thread's machine (only one is live at a
 * time). Any report answers a pending request. The caps are the payload Schema's, checked
 * before this runs.
 */
export class ChangeReports extends Effect.Service<ChangeReports>()("trellis/ChangeReports", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const fences = yield* ClaimFence
    const sessions = yield* LiveSessions
    const live = yield* LiveEvents

    /** Writes the report, keeps the newest few, and marks the thread's request answered when `answers` holds. */
    const store = (threadId: string, body: ChangeReportBody, answers: Fragment) =>
      Effect.gen(function*() {
        const id = ChangeReportId.generate()
        const additions = body.files.reduce((sum, file) => sum + file.additions, 0)
        const deletions = body.files.reduce((sum, file) => sum + file.deletions, 0)
        // clock_timestamp, not now(): the transaction may have waited on the thread's lock, and
        // the newest report must sort last.
        yield* sql`
          INSERT INTO thread_change_reports
            (id, thread_id, created_at, base_commit, head_commit, branch, file_count, additions, deletions, truncated, files)
          VALUES (${id}, ${threadId}, clock_timestamp(), ${body.baseCommit}, ${body.headCommit}, ${body.branch},
            ${body.files.length}, ${additions}, ${deletions}, ${body.truncated}, ${JSON.stringify(body.files)}::jsonb)`
        yield* sql`
          DELETE FROM thread_change_reports WHERE thread_id = ${threadId} AND id NOT IN (
            SELECT id FROM thread_change_reports WHERE thread_id = ${threadId}
            ORDER BY created_at DESC, id DESC LIMIT ${KEPT_REPORTS_PER_THREAD})`
        yield* sql`UPDATE threads t SET changes_requested_at = NULL
          WHERE t.id = ${threadId} AND t.changes_requested_at IS NOT NULL AND ${answers}`
        return id
      })

    const report = Effect.fn("ChangeReports.report")(function*(
      principal: Principal,
      sessionId: AgentSessionId,
      threadId: string,
      epoch: number,
      body: ChangeReportBody
    ) {
      // A turn's report answers whatever was asked before it: the working copy is read just before.
      const id = yield* fences.underClaim(principal, sessionId, threadId, epoch, () => store(threadId, body, sql`true`))
      // An open thread page learns that its changes are new.
      yield* live.threadChanged(threadId, null)
      return id
    })

    const reportRequested = Effect.fn("ChangeReports.reportRequested")(function*(
      principal: Principal,
      sessionId: AgentSessionId,
      threadId: string,
      requestedAt: string,
      body: ChangeReportBody
    ) {
      const session = yield* sessions.live(principal, sessionId)
      const id = yield* fences.transaction(Effect.gen(function*() {
        const [thread] = yield* sql`
          SELECT t.profile_id AS "profileId", t.changes_requested_at IS NOT NULL AS requested
          FROM threads t
          WHERE t.id = ${threadId} AND t.kind = 'thread' AND t.deleted_at IS NULL AND ${threadReadableBy(sql, principal)}
          FOR UPDATE OF t`.pipe(Effect.flatMap(decodeHolder), Effect.orDie)
        if (thread === undefined) return yield* threadNotFound
        if (thread.profileId !== session.profileId) {
          return yield* new Conflict({ message: `threadId: thread ${threadId} does not run on this session's machine` })
        }
        if (!thread.requested) return yield* new Conflict({ message: `threadId: no change report is asked of thread ${threadId}` })
        // Asked again since the CLI read the request: that one stays asked, and the stream says so.
        return yield* store(threadId, body, sql`${requestedAtOf(sql)} = ${requestedAt}`)
      }))
      // The page learns that its changes are new; the machine's queue, that the request is answered.
      yield* live.threadChanged(threadId, session.profileId)
      return id
    })

    return { report, reportRequested } as const
  }),
  dependencies: [ClaimFence.Default, LiveSessions.Default, LiveEvents.Default]
}) {}
