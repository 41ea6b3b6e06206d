import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { assistantText } from "./AssistantText.js"
import { Batches } from "./Batches.js"
import { ChunkUploads } from "./ChunkUploads.js"
import { ClaimFence } from "./ClaimFence.js"
import { ClaimLeases } from "./ClaimLeases.js"
import { touchGroup } from "./GroupActivity.js"
import { ThreadClaims } from "./ThreadClaims.js"
import { WorktreeReports } from "./WorktreeReports.js"

/**
 * The claim queue of SPEC's "Thread and message lifecycle in the CLI bridge", as the bridge's
 * routes, the sweeper and the thread services call it. Each part lives in its own module:
 * claims (ThreadClaims), fencing (ClaimFence), leases and releases (ClaimLeases), batches
 * (Batches), uploads (ChunkUploads) and worktree reports (WorktreeReports).
 */
export class ThreadQueue extends Effect.Service<ThreadQueue>()("trellis/ThreadQueue", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const claims = yield* ThreadClaims
    const fences = yield* ClaimFence
    const leases = yield* ClaimLeases
    const batches = yield* Batches
    const uploads = yield* ChunkUploads
    const worktrees = yield* WorktreeReports

    return {
      claim: claims.claim,
      renew: leases.renew,
      startBatch: batches.startBatch,
      uploadChunks: uploads.uploadChunks,
      finishBatch: batches.finishBatch,
      release: leases.release,
      releaseSessionClaims: leases.releaseSessionClaims,
      releaseStaleClaims: leases.releaseStaleClaims,
      underClaim: fences.underClaim,
      reportWorktree: worktrees.reportWorktree,
      touchGroup: (threadId: string) => touchGroup(sql, threadId),
      assistantText: (messageId: string) => assistantText(sql, messageId)
    } as const
  }),
  dependencies: [
    ThreadClaims.Default,
    ClaimFence.Default,
    ClaimLeases.Default,
    Batches.Default,
    ChunkUploads.Default,
    WorktreeReports.Default
  ]
}) {}
