import { SqlClient } from "@effect/sql"
import { Duration, Effect, Option, Stream } from "effect"
import type { Principal } from "../platform/auth/Principal.js"
import { LiveEvents } from "../platform/notifications/LiveEvents.js"
import { InvalidArgument, NotFound } from "../../catalog/domain/Errors.js"
import { ThreadRows } from "./ThreadRows.js"

/** The CLI's wait for a stop is capped like its wait for an answer. */
export const MAX_STOP_WAIT = Duration.seconds(25)

/**
 * Stopping a running turn (docs/decisions.md, "Stop"): the owner's request is stored on the
 * streaming assistant message, and the CLI running it long-polls for it the way it waits for an
 * answer; the CLI interrupts the runtime and ends the turn as stopped. Asking to stop a thread that
 * runs nothing changes nothing: the turn may have ended while the person pressed the button.
 */
export class TurnStops extends Effect.Service<TurnStops>()("trellis/TurnStops", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* ThreadRows
    const live = yield* LiveEvents

    const request = Effect.fn("TurnStops.request")(function*(principal: Principal, threadId: string) {
      const row = yield* rows.findOwn(principal, threadId, "threadId")
      if (row.kind !== "thread") return yield* new InvalidArgument({ message: `threadId: ${threadId} is not an ordinary thread` })
      const stopped = yield* sql<{ readonly id: string }>`
        UPDATE thread_messages SET stop_requested_at = COALESCE(stop_requested_at, now())
        WHERE thread_id = ${threadId} AND role = 'assistant' AND status = 'streaming' RETURNING id`.pipe(Effect.orDie)
      const [first] = stopped
      if (first === undefined) return { stopRequested: false, messageId: null }
      yield* live.threadChanged(threadId, row.profileId)
      return { stopRequested: true, messageId: first.id }
    })

    /** The CLI's long poll: true once a stop is asked for the turn, false when `wait` passes or the turn has ended. */
    const await_ = Effect.fn("TurnStops.await")(
      function*(principal: Principal, threadId: string, messageId: string, wait: Duration.Duration) {
        const find = sql<{ readonly stopRequested: boolean; readonly streaming: boolean }>`
        SELECT m.stop_requested_at IS NOT NULL AS "stopRequested", m.status = 'streaming' AS streaming
        FROM thread_messages m JOIN threads t ON t.id = m.thread_id
        WHERE m.id = ${messageId} AND m.thread_id = ${threadId} AND m.role = 'assistant' AND t.created_by = ${principal.userId}`.pipe(
          Effect.orDie,
          Effect.map((found) => found[0])
        )
        const first = yield* find
        if (first === undefined) return yield* new NotFound({ message: `messageId: message ${messageId} not found` })
        if (first.stopRequested || !first.streaming) return { stopRequested: first.stopRequested }
        const settled = yield* Effect.scoped(Effect.gen(function*() {
          const signals = yield* live.threadSignals(threadId)
          return yield* Stream.concat(Stream.make(undefined), signals).pipe(
            Stream.mapEffect(() => find),
            Stream.filter((row) => row !== undefined && (row.stopRequested || !row.streaming)),
            Stream.runHead,
            Effect.timeoutTo({ duration: Duration.min(wait, MAX_STOP_WAIT), onTimeout: () => Option.none(), onSuccess: (row) => row })
          )
        }))
        return { stopRequested: Option.match(settled, { onNone: () => false, onSome: (row) => row?.stopRequested === true }) }
      }
    )

    return { request, await: await_ } as const
  }),
  dependencies: [ThreadRows.Default, LiveEvents.Default]
}) {}
