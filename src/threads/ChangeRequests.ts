import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { Conflict, InvalidArgument } from "../../catalog/domain/Errors.js"
import type { Principal } from "../platform/auth/Principal.js"
import { LiveEvents } from "../platform/notifications/LiveEvents.js"
import { ThreadRows } from "./ThreadRows.js"

/** When the change report of thread `t` was asked, as the pending stream names the request (UTC, microseconds). */
export const requestedAtOf = (sql: SqlClient.SqlClient) =>
  sql`to_char(t.changes_requested_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`

const decodeRequested = Schema.decodeUnknown(Schema.Array(Schema.Struct({ requestedAt: Schema.String })))

/**
 * `refresh_thread_changes` (issue 31 §1): asks the thread's CLI for a fresh change report. The
 * request is kept on the thread (migration 0018) and shows on its machine's pending stream; the
 * next report of the thread, requested or after a turn, answers it.
 */
export class ChangeRequests extends Effect.Service<ChangeRequests>()("trellis/ChangeRequests", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* ThreadRows
    const live = yield* LiveEvents

    const request = Effect.fn("ChangeRequests.request")(function*(principal: Principal, threadId: string) {
      const thread = yield* rows.findOwn(principal, threadId, "threadId")
      if (thread.kind !== "thread") {
        return yield* new InvalidArgument({ message: `threadId: ${thread.id} is a thread group or workflow run, which has no changes` })
      }
      // Only a thread that reported once knows where its working copy is and what it is measured
      // against. Asked again, the request is new: a CLI that missed or failed the last one is told again.
      const [requested] = yield* sql`
        UPDATE threads t SET changes_requested_at = now()
        WHERE t.id = ${thread.id} AND EXISTS (SELECT 1 FROM thread_change_reports r WHERE r.thread_id = t.id)
        RETURNING ${requestedAtOf(sql)} AS "requestedAt"`.pipe(Effect.flatMap(decodeRequested), Effect.orDie)
      if (requested === undefined) {
        return yield* new Conflict({ message: `threadId: thread ${thread.id} has no change report yet; its first turn makes one` })
      }
      yield* live.threadChanged(thread.id, thread.profileId)
      return { threadId: thread.id, requestedAt: requested.requestedAt, machineOnline: thread.targetOnline }
    })

    return { request } as const
  }),
  dependencies: [ThreadRows.Default, LiveEvents.Default]
}) {}
