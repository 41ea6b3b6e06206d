import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Principal } from "../platform/auth/Principal.js"
import { LiveEvents } from "../platform/notifications/LiveEvents.js"
import { Conflict, InvalidArgument } from "../../catalog/domain/Errors.js"
import { ThreadRows } from "./ThreadRows.js"

/** What a thread's owner switches on their thread: done, pinned, shared, queue held, runtime session kept. */
export class ThreadControls extends Effect.Service<ThreadControls>()("trellis/ThreadControls", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* ThreadRows
    const live = yield* LiveEvents

    const setDone = Effect.fn("ThreadControls.setDone")(function*(principal: Principal, threadId: string, done: boolean) {
      const row = yield* rows.findOwn(principal, threadId, "threadId")
      yield* sql`UPDATE threads SET done_at = ${done ? sql`now()` : null} WHERE id = ${threadId}`.pipe(Effect.orDie)
      yield* live.threadChanged(threadId, row.profileId)
      return yield* rows.get(principal, threadId)
    })

    /** Pin or share a thread; a thread in a group pins and shares through its group. */
    const setFlag = Effect.fn("ThreadControls.setFlag")(function*(
      principal: Principal,
      threadId: string,
      flag: "pinned" | "shared",
      on: boolean
    ) {
      const row = yield* rows.findOwn(principal, threadId, "threadId")
      const targetId = row.parentThreadId ?? row.id
      const column = flag === "pinned" ? sql`pinned_at` : sql`shared_at`
      yield* sql`UPDATE threads SET ${column} = ${on ? sql`now()` : null} WHERE id = ${targetId}`.pipe(Effect.orDie)
      yield* live.threadChanged(targetId, null)
      return yield* rows.get(principal, targetId)
    })

    /** Holding the queue stops the CLI from claiming the thread; releasing makes waiting messages claimable again. */
    const setQueueHeld = Effect.fn("ThreadControls.setQueueHeld")(function*(principal: Principal, threadId: string, held: boolean) {
      const row = yield* rows.findOwn(principal, threadId, "threadId")
      if (row.kind !== "thread") return yield* new InvalidArgument({ message: `threadId: ${threadId} is not an ordinary thread` })
      yield* sql`UPDATE threads SET queue_held_at = ${held ? sql`COALESCE(queue_held_at, now())` : null} WHERE id = ${threadId}`.pipe(
        Effect.orDie
      )
      yield* live.threadChanged(threadId, row.profileId)
      return yield* rows.get(principal, threadId)
    })

    /**
     * Forgets the thread's runtime session and the machine holding it, so any machine of the
     * profile may run it next, in a new session told the conversation so far. Not while a batch
     * streams: the run in flight would name its session again when it ends.
     */
    const startFresh = Effect.fn("ThreadControls.startFresh")(function*(principal: Principal, threadId: string) {
      const row = yield* rows.findOwn(principal, threadId, "threadId")
      if (row.kind !== "thread") return yield* new InvalidArgument({ message: `threadId: ${threadId} is not an ordinary thread` })
      const updated = yield* sql`
        UPDATE threads SET runtime_session_id = NULL, runtime_machine_id = NULL
        WHERE id = ${threadId} AND processing_state <> 'streaming' RETURNING id`.pipe(Effect.orDie)
      if (updated.length === 0) {
        return yield* new Conflict({ message: `threadId: thread ${threadId} is running; start it fresh once the run has ended` })
      }
      yield* live.threadChanged(threadId, row.profileId)
      return yield* rows.get(principal, threadId)
    })

    return { setDone, setFlag, setQueueHeld, startFresh } as const
  }),
  dependencies: [ThreadRows.Default, LiveEvents.Default]
}) {}
