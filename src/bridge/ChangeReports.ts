import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Principal } from "../platform/auth/Principal.js"
import { type ChangeReportBody, KEPT_REPORTS_PER_THREAD } from "../../catalog/domain/ChangeReport.js"
import { type AgentSessionId, ChangeReportId } from "../../catalog/domain/Ids.js"
import { ClaimFence } from "./ClaimFence.js"
import { LiveEvents } from "../platform/notifications/LiveEvents.js"

/**
 * Stores the change reports a CLI sends after each turn (issue 31 §1), under its claim: a CLI
 * that lost the thread cannot overwrite what the new holder reports. The caps are the payload
 * Schema's, checked before this runs.
 */
export class ChangeReports extends Effect.Service<ChangeReports>()("trellis/ChangeReports", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const fences = yield* ClaimFence
    const live = yield* LiveEvents

    const report = Effect.fn("ChangeReports.report")(function*(
      principal: Principal,
      sessionId: AgentSessionId,
      threadId: string,
      epoch: number,
      body: ChangeReportBody
    ) {
      const id = ChangeReportId.generate()
      const additions = body.files.reduce((sum, file) => sum + file.additions, 0)
      const deletions = body.files.reduce((sum, file) => sum + file.deletions, 0)
      yield* fences.underClaim(principal, sessionId, threadId, epoch, () =>
        Effect.gen(function*() {
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
        }))
      // An open thread page learns that its changes are new.
      yield* live.threadChanged(threadId, null)
      return id
    })

    return { report } as const
  }),
  dependencies: [ClaimFence.Default, LiveEvents.Default]
}) {}
