import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import type { Principal } from "../platform/auth/Principal.js"
import { InvalidArgument } from "../../catalog/domain/Errors.js"
import type { AgentSessionId } from "../../catalog/domain/Ids.js"
import type { AgentPayload } from "./AgentPayload.js"
import { CliProfiles } from "../machines/CliProfiles.js"
import { ClaimFence } from "./ClaimFence.js"
import { LiveEvents } from "../platform/notifications/LiveEvents.js"

/** The report as the queue takes it: the contract's payload without the claim it is fenced by. */
export type WorktreeReport = Pick<AgentPayload<"reportWorktree">, "path" | "branch">

const CheckoutRow = Schema.Struct({ profileId: Schema.String, pathId: Schema.NullOr(Schema.String) })

/** The CLI made the thread's worktree: it becomes a `worktree` path under the thread's checkout. */
export class WorktreeReports extends Effect.Service<WorktreeReports>()("trellis/WorktreeReports", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const profiles = yield* CliProfiles
    const fences = yield* ClaimFence
    const live = yield* LiveEvents

    const checkoutOf = SqlSchema.findOne({
      Request: Schema.String,
      Result: CheckoutRow,
      execute: (threadId) => sql`SELECT profile_id AS "profileId", path_id AS "pathId" FROM threads WHERE id = ${threadId}`
    })

    const reportWorktree = Effect.fn("WorktreeReports.reportWorktree")(function*(
      principal: Principal,
      sessionId: AgentSessionId,
      threadId: string,
      epoch: number,
      input: WorktreeReport
    ) {
      const worktreePathId = yield* fences.underClaim(principal, sessionId, threadId, epoch, () =>
        Effect.gen(function*() {
          const thread = Option.getOrUndefined(yield* checkoutOf(threadId).pipe(Effect.orDie))
          if (thread === undefined || thread.pathId === null) {
            return yield* new InvalidArgument({ message: `threadId: thread ${threadId} has no checkout to put a worktree under` })
          }
          const worktreePathId = yield* profiles.addWorktree(thread.profileId, {
            path: input.path,
            branch: input.branch,
            parentPathId: thread.pathId
          })
          yield* sql`
            UPDATE threads SET worktree = COALESCE(worktree, '{}'::jsonb) || ${
            JSON.stringify({ pathId: worktreePathId, path: input.path })
          }::jsonb
            WHERE id = ${threadId}`
          return worktreePathId
        }))
      // The thread page shows where it runs.
      yield* live.threadChanged(threadId, null)
      return worktreePathId
    })

    return { reportWorktree } as const
  }),
  dependencies: [CliProfiles.Default, ClaimFence.Default, LiveEvents.Default]
}) {}
