import * as FileSystem from "@effect/platform/FileSystem"
import { Effect, Schema } from "effect"
import { Git } from "./Git.js"

/**
 * The fresh git worktree a thread asked for, created when the CLI claims it. A worktree is
 * never removed here: `trellis agent worktrees prune` removes only clean ones of done threads.
 */

export const WorktreeRequest = Schema.Struct({
  parentPathId: Schema.String,
  branch: Schema.String,
  baseRef: Schema.optional(Schema.String),
  startFromOrigin: Schema.optional(Schema.Boolean),
  /** Set once the CLI created it and reported it. */
  path: Schema.optional(Schema.String)
})
export type WorktreeRequest = typeof WorktreeRequest.Type

/**
 * Creates the worktree at `target` on `branch`: from `baseRef` (default the repository's HEAD),
 * or from the remote's copy with `startFromOrigin`. An existing branch is checked out as is.
 */
export const createWorktree = (repo: string, target: string, request: WorktreeRequest) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const { output: git } = yield* Git
    if (yield* fs.exists(target).pipe(Effect.orElseSucceed(() => false))) return target
    const branchExists = yield* git(repo, ["rev-parse", "--verify", "--quiet", `refs/heads/${request.branch}`]).pipe(
      Effect.as(true),
      Effect.orElseSucceed(() => false)
    )
    if (branchExists) {
      yield* git(repo, ["worktree", "add", target, request.branch])
      return target
    }
    let base = request.baseRef ?? "HEAD"
    if (request.startFromOrigin === true) {
      const remoteBranch = request.baseRef ?? (yield* git(repo, ["symbolic-ref", "--short", "refs/remotes/origin/HEAD"]).pipe(
        Effect.map((ref) => ref.replace(/^origin\//, "")),
        Effect.orElseSucceed(() => "main")
      ))
      yield* git(repo, ["fetch", "origin", remoteBranch])
      base = `origin/${remoteBranch}`
    }
    yield* git(repo, ["worktree", "add", "-b", request.branch, target, base])
    return target
  })
