import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Console, Effect, Option, Redacted } from "effect"
import { Profiles } from "./Profiles.js"
import { callTool } from "./TrellisTools.js"
import { Git } from "./Git.js"

/**
 * `trellis agent worktrees list|prune`: the worktrees this CLI made for threads. Pruning removes
 * only clean worktrees whose threads are done; uncommitted work is never deleted.
 */

interface WorktreeInfo {
  readonly threadId: string
  readonly path: string
  readonly branch: string | null
  readonly dirty: boolean
  readonly sizeBytes: number
  readonly threadDone: boolean | null
}

const profileOption = Options.text("profile").pipe(Options.withDescription("The profile whose worktrees to show"), Options.optional)
const json = Options.boolean("json").pipe(Options.withDescription("Print machine-readable JSON"))

const sizeOf = (root: string): Effect.Effect<number, never, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const info = yield* fs.stat(root).pipe(Effect.option)
    if (Option.isNone(info)) return 0
    if (info.value.type !== "Directory") return Number(info.value.size)
    const entries = yield* fs.readDirectory(root).pipe(Effect.orElseSucceed((): Array<string> => []))
    let total = 0
    for (const entry of entries) {
      if (entry === ".git") continue
      total += yield* sizeOf(path.join(root, entry))
    }
    return total
  })

const human = (bytes: number): string =>
  bytes < 1024 ? `${bytes} B` : bytes < 1024 ** 2 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 ** 2).toFixed(1)} MB`

/** Whether the thread is done, asked of the backend; null when it cannot say (offline, not found). */
const threadDone = (server: string, apiKey: string, threadId: string) =>
  callTool({ url: `${server}/api/mcp`, apiKey }, "get_thread", { threadId }).pipe(
    Effect.map((thread): boolean | null => thread.isDone),
    Effect.orElseSucceed(() => null)
  )

const inspect = (profileFlag: Option.Option<string>) =>
  Effect.gen(function*() {
    const profiles = yield* Profiles
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const { output: git } = yield* Git
    const { profile } = yield* profiles.resolve(profileFlag, process.cwd())
    const root = path.join(path.dirname(profiles.file), "worktrees")
    const names = yield* fs.readDirectory(root).pipe(Effect.orElseSucceed((): Array<string> => []))
    const worktrees: Array<WorktreeInfo> = []
    for (const threadId of names.sort()) {
      const dir = path.join(root, threadId)
      const branch = yield* git(dir, ["rev-parse", "--abbrev-ref", "HEAD"]).pipe(Effect.option)
      const status = yield* git(dir, ["status", "--porcelain"]).pipe(Effect.option)
      worktrees.push({
        threadId,
        path: dir,
        branch: Option.getOrNull(branch),
        // A worktree git cannot read is treated as dirty: nothing is removed on a guess.
        dirty: Option.match(status, { onNone: () => true, onSome: (out) => out !== "" }),
        sizeBytes: yield* sizeOf(dir),
        threadDone: yield* threadDone(profile.server, Redacted.value(profile.apiKey), threadId)
      })
    }
    return worktrees
  })

const list = Command.make("list", { profile: profileOption, json }, (args) =>
  Effect.gen(function*() {
    const worktrees = yield* inspect(args.profile)
    if (args.json) return yield* Console.log(JSON.stringify({ worktrees }, null, 2))
    if (worktrees.length === 0) return yield* Console.log("no worktrees")
    for (const w of worktrees) {
      const done = w.threadDone === null ? "thread unknown" : w.threadDone ? "thread done" : "thread active"
      yield* Console.log(
        `${w.threadId}  ${w.branch ?? "(detached)"}  ${human(w.sizeBytes)}  ${w.dirty ? "dirty" : "clean"}  ${done}  ${w.path}`
      )
    }
  }).pipe(
    Effect.catchAll((error) =>
      Effect.zipRight(
        Console.error(`error: ${error.message}`),
        Effect.sync(() => {
          process.exitCode = 1
        })
      )
    ),
    Effect.provide([Profiles.Default, Git.Default, NodeHttpClient.layerUndici])
  )).pipe(Command.withDescription("Show each thread worktree: its thread, branch, size and whether it has uncommitted changes"))

const prune = Command.make("prune", { profile: profileOption, json }, (args) =>
  Effect.gen(function*() {
    const git = yield* Git
    const worktrees = yield* inspect(args.profile)
    const removed: Array<string> = []
    const kept: Array<{ readonly threadId: string; readonly reason: string }> = []
    for (const w of worktrees) {
      if (w.dirty) {
        kept.push({ threadId: w.threadId, reason: "uncommitted changes" })
        continue
      }
      if (w.threadDone !== true) {
        kept.push({ threadId: w.threadId, reason: w.threadDone === null ? "thread state unknown" : "thread not done" })
        continue
      }
      // Without --force, git itself refuses to remove a worktree with changes: a second guard.
      const result = yield* git.output(w.path, ["worktree", "remove", w.path]).pipe(Effect.either)
      if (result._tag === "Right") removed.push(w.threadId)
      else kept.push({ threadId: w.threadId, reason: result.left.message })
    }
    if (args.json) return yield* Console.log(JSON.stringify({ removed, kept }, null, 2))
    for (const threadId of removed) yield* Console.log(`removed ${threadId}`)
    for (const k of kept) yield* Console.log(`kept ${k.threadId}: ${k.reason}`)
  }).pipe(
    Effect.catchAll((error) =>
      Effect.zipRight(
        Console.error(`error: ${error.message}`),
        Effect.sync(() => {
          process.exitCode = 1
        })
      )
    ),
    Effect.provide([Profiles.Default, Git.Default, NodeHttpClient.layerUndici])
  )).pipe(Command.withDescription("Remove the worktrees of done threads that have no uncommitted changes"))

export const worktreesCommand = Command.make("worktrees").pipe(
  Command.withDescription("The git worktrees made for threads"),
  Command.withSubcommands([list, prune])
)
