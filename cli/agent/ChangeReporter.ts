import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Duration, Effect, Option, Schedule } from "effect"
import type { ChangeRequest, ClaimedThread } from "../../catalog/bridge/AgentApi.js"
import {
  type ChangedFile,
  type ChangeReportBody,
  MAX_FILE_PATCH,
  MAX_REPORT_FILES,
  MAX_TOTAL_PATCH,
  type Summarized
} from "../../catalog/domain/ChangeReport.js"
import type { AgentSessionId } from "../../catalog/domain/Ids.js"
import type { AgentLog } from "./AgentLog.js"
import { type BridgeClient, isTransient } from "./BridgeClient.js"
import { Git, GitError } from "./Git.js"
import { diffHeader, type NameStatus, parseGeneratedAttribute, parseNameStatus, parseNumstat, splitPatch, summaryOf } from "./GitChanges.js"

/**
 * The change report of a working copy (issue 31 §1): its files against the base the thread
 * started from, committed or not, untracked ones included and ignored ones never (git decides
 * both: only what `git diff` and `git ls-files --exclude-standard` name is read, so nothing
 * outside the working copy is).
 */

/**
 * The report's JSON must fit the backend's 4 MiB request body: a patch's quotes, backslashes and
 * control characters grow when escaped, so what is counted is the encoded size, with room to spare.
 */
export const BODY_BUDGET = 3 * 1024 * 1024
/** Files whose patches one `git diff` reads together (their paths go on its command line). */
const PATCH_GROUP = 200
/** A group's diff is read up to this many bytes; a bigger one is read file by file instead. */
const GROUP_BYTES = 2 * MAX_TOTAL_PATCH
/** UTF-8 takes at most 4 bytes a character: past this, a file's patch is over its cap for sure. */
const FILE_BYTES = 4 * MAX_FILE_PATCH

const encodedSize = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8")

/**
 * Reads the working copy containing `directory` against the merge-base of HEAD with `baseRef`
 * (HEAD itself when there is none). None when it is not a git working tree or has no commit yet.
 * The real index is never touched: untracked files are marked intent-to-add in a copy of it.
 */
export const collectChanges = (directory: string, baseRef: string) =>
  Effect.gen(function*() {
    const git = yield* Git
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const top = yield* git.repoRoot(directory).pipe(
      Effect.map(Option.some),
      Effect.catchTag("NotAGitRepository", () => Effect.succeedNone)
    )
    if (Option.isNone(top)) return Option.none()
    const root = top.value
    const tempIndex = path.join(yield* fs.makeTempDirectoryScoped({ prefix: "trellis-changes-" }), "index")
    // Paths are names, never patterns: a file called `*` or `:(top)` means itself.
    const env = { GIT_INDEX_FILE: tempIndex, GIT_LITERAL_PATHSPECS: "1" }
    const run = (args: ReadonlyArray<string>, options: { readonly stdin?: string; readonly maxBytes?: number } = {}) =>
      git.exec(root, args, { ...options, env })
    const ok = (args: ReadonlyArray<string>, options: { readonly stdin?: string } = {}) =>
      Effect.flatMap(run(args, options), (output) =>
        output.exitCode === 0
          ? Effect.succeed(output.stdout)
          : Effect.fail(new GitError({ message: `git ${args.join(" ")} failed (exit ${output.exitCode}): ${output.stderr.trim()}` })))

    const headOutput = yield* git.exec(root, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])
    if (headOutput.exitCode !== 0) return Option.none()
    const headCommit = headOutput.stdout.trim()
    const mergeBase = yield* git.exec(root, ["merge-base", "HEAD", baseRef])
    const baseCommit = mergeBase.exitCode === 0 && mergeBase.stdout.trim() !== "" ? mergeBase.stdout.trim() : headCommit
    const branch = yield* git.currentBranch(root)

    const realIndex = path.resolve(root, (yield* git.output(root, ["rev-parse", "--git-path", "index"])).trim())
    yield* fs.copyFile(realIndex, tempIndex).pipe(Effect.orElse(() => ok(["read-tree", "HEAD"])))
    // More untracked files than a report lists (a dependency folder nobody ignored) are not all
    // read: git would count the lines of every one.
    const untracked = (yield* ok(["ls-files", "-z", "--others", "--exclude-standard"])).split("\0").filter((name) => name !== "")
    const marked = untracked.slice(0, MAX_REPORT_FILES)
    if (marked.length > 0) {
      yield* ok(["add", "--intent-to-add", "--pathspec-from-file=-", "--pathspec-file-nul"], {
        stdin: marked.map((name) => `${name}\0`).join("")
      })
    }

    // Whatever the user's configuration says of prefixes, colours, external tools or relative paths.
    const diff = (...args: ReadonlyArray<string>) => [
      "-c",
      "core.quotePath=false",
      "diff",
      "-M",
      "--no-ext-diff",
      "--no-color",
      "--no-relative",
      "--src-prefix=a/",
      "--dst-prefix=b/",
      ...args
    ]
    const all = parseNameStatus(yield* ok(diff("--name-status", "-z", baseCommit)))
    const counts = parseNumstat(yield* ok(diff("--numstat", "-z", baseCommit)))
    const entries = all.slice(0, MAX_REPORT_FILES)
    const generated = entries.length === 0
      ? new Set<string>()
      : parseGeneratedAttribute(
        yield* ok(["check-attr", "-z", "--stdin", "linguist-generated"], {
          stdin: entries.map((entry) => `${entry.path}\0`).join("")
        })
      )
    const summaries = new Map(entries.map((entry) => {
      const count = counts.get(entry.path)
      const summary = summaryOf(entry.path, count?.binary ?? false, generated.has(entry.path))
      // Every changed line takes at least two characters of patch: past this, it is over its cap unread.
      const surelyTooLarge = count !== undefined && 2 * (count.additions + count.deletions) > MAX_FILE_PATCH
      return [entry, summary ?? (surelyTooLarge ? "too_large" : undefined)] as const
    }))

    const pathsOf = (group: ReadonlyArray<NameStatus>) =>
      group.flatMap((entry) => entry.oldPath === undefined ? [entry.path] : [entry.oldPath, entry.path])
    // Patches in groups, until more than the report can hold has been read.
    const sections = new Map<string, string>()
    const inline = entries.filter((entry) => summaries.get(entry) === undefined)
    // The files whose group was read: past them the budget is spent, and a file is not read alone
    // only to be left out (2,000 changed files cost a git process each: 8.8 s instead of 0.3).
    const asked = new Set<NameStatus>()
    let read = 0
    for (let i = 0; i < inline.length && read <= MAX_TOTAL_PATCH; i += PATCH_GROUP) {
      const group = inline.slice(i, i + PATCH_GROUP)
      for (const entry of group) asked.add(entry)
      const output = yield* run(diff(baseCommit, "--", ...pathsOf(group)), { maxBytes: GROUP_BYTES })
      if (output.exceeded || output.exitCode !== 0) continue
      for (const [header, section] of splitPatch(output.stdout)) {
        sections.set(header, section)
        if (section.length <= MAX_FILE_PATCH) read += section.length
      }
    }
    /** A file its group did not give (its diff was too big, or git paired it otherwise), alone; undefined when over its cap. */
    const alone = (entry: NameStatus) =>
      Effect.map(run(diff(baseCommit, "--", ...pathsOf([entry])), { maxBytes: FILE_BYTES }), (output) =>
        output.exceeded ? undefined : (splitPatch(output.stdout).get(diffHeader(entry)) ?? output.stdout))

    let truncated = all.length > entries.length || untracked.length > marked.length
    let total = 0
    let body = encodedSize({ baseCommit, headCommit, branch, files: [], truncated: true, sessionId: "", epoch: 0 })
    const files: Array<ChangedFile> = []
    for (const entry of entries) {
      const count = counts.get(entry.path) ?? { additions: 0, deletions: 0, binary: false }
      let summarized: Summarized | undefined = summaries.get(entry)
      let patch: string | null = null
      if (summarized === undefined && (total >= MAX_TOTAL_PATCH || !asked.has(entry))) {
        summarized = "over_budget"
      }
      if (summarized === undefined) {
        const text = sections.get(diffHeader(entry)) ?? (yield* alone(entry))
        summarized = text === undefined || text.length > MAX_FILE_PATCH
          ? "too_large"
          : text.includes("\0")
          ? "binary"
          : total + text.length > MAX_TOTAL_PATCH
          ? "over_budget"
          : undefined
        if (summarized === undefined && text !== undefined) {
          patch = text
        }
      }
      const base = {
        path: entry.path,
        ...(entry.oldPath === undefined ? {} : { oldPath: entry.oldPath }),
        status: entry.status,
        additions: count.additions,
        deletions: count.deletions,
        binary: count.binary || summarized === "binary"
      }
      let file: ChangedFile = summarized === undefined ? { ...base, patch } : { ...base, patch: null, summarized }
      if (patch !== null && body + encodedSize(file) > BODY_BUDGET) {
        file = { ...base, patch: null, summarized: "over_budget" }
      }
      const size = encodedSize(file) + 1
      if (body + size > BODY_BUDGET) {
        truncated = true
        break
      }
      if (file.summarized === "over_budget") {
        truncated = true
      }
      body += size
      total += file.patch?.length ?? 0
      files.push(file)
    }
    return Option.some<ChangeReportBody>({ baseCommit, headCommit, branch, files, truncated })
  }).pipe(Effect.scoped)

/**
 * What a thread's changes are measured against, as a ref its working copy knows: a worktree's
 * base ref (its remote copy with `startFromOrigin`), or the commit its checkout had checked out
 * when the worktree was made or, for a thread in the checkout itself, when it was claimed.
 * Null when the directory is not a git working tree: such a thread reports nothing.
 */
export const changeBase = (
  claim: ClaimedThread,
  directory: string,
  worktree: { readonly baseRef?: string | undefined; readonly startFromOrigin?: boolean | undefined } | null
) =>
  Effect.gen(function*() {
    const git = yield* Git
    if (worktree !== null && worktree.baseRef !== undefined) {
      return worktree.startFromOrigin === true ? `origin/${worktree.baseRef}` : worktree.baseRef
    }
    const from = worktree !== null && claim.path !== null ? claim.path : directory
    const head = yield* git.exec(from, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])
    return head.exitCode === 0 ? head.stdout.trim() : null
  }).pipe(Effect.orElseSucceed(() => null))

/** How long a report may take, git and upload together, before the next turn goes on without it. */
const REPORT_TIMEOUT = Duration.seconds(60)

/** A report's work with a deadline, its failure a warning: a report never fails what asked for it. */
const safely = (threadId: string, log: AgentLog) => <A, E extends { readonly _tag: string }, R>(report: Effect.Effect<A, E, R>) =>
  report.pipe(
    Effect.asVoid,
    Effect.timeoutFail({
      duration: REPORT_TIMEOUT,
      onTimeout: () => new GitError({ message: `not done within ${Duration.format(REPORT_TIMEOUT)}` })
    }),
    Effect.catchAll((error) =>
      log.warn(`thread ${threadId}: changes not reported (${error._tag}${"message" in error ? `: ${String(error.message)}` : ""})`)
    ),
    Effect.catchAllDefect((defect) => log.warn(`thread ${threadId}: changes not reported (${String(defect)})`))
  )

const retryTransient = <A, E extends { readonly _tag: string }, R>(call: Effect.Effect<A, E, R>) =>
  Effect.retry(call, {
    schedule: Schedule.exponential(Duration.millis(500)).pipe(Schedule.upTo(Duration.seconds(10))),
    while: isTransient
  })

/** Reports the working copy under the claim; a failure is logged and never fails the turn. */
export const sendChangeReport = (
  client: BridgeClient,
  claim: { readonly threadId: string; readonly sessionId: AgentSessionId; readonly epoch: number },
  directory: string,
  baseRef: string,
  log: AgentLog
) =>
  Effect.gen(function*() {
    const report = yield* collectChanges(directory, baseRef)
    if (Option.isNone(report)) return
    const sent = yield* client.agent.reportChanges({
      path: { threadId: claim.threadId },
      payload: { sessionId: claim.sessionId, epoch: claim.epoch, ...report.value }
    }).pipe(retryTransient)
    yield* log.info(`thread ${claim.threadId}: changes reported (${report.value.files.length} file(s))`, { reportId: sent.reportId })
  }).pipe(safely(claim.threadId, log))

/**
 * Answers a change report asked between turns (`refresh_thread_changes`): the working copy the
 * backend names, against the base of the thread's last report. A failure is logged; the request
 * stays asked, and the next cue (a reconnect, the request asked again) tries again.
 */
export const answerChangeRequest = (client: BridgeClient, sessionId: AgentSessionId, request: ChangeRequest, log: AgentLog) =>
  Effect.gen(function*() {
    const report = yield* collectChanges(request.directory, request.baseCommit)
    if (Option.isNone(report)) return yield* log.warn(`thread ${request.threadId}: ${request.directory} is not a git working tree`)
    const sent = yield* client.agent.reportRequestedChanges({
      path: { threadId: request.threadId },
      payload: { sessionId, requestedAt: request.requestedAt, ...report.value }
    }).pipe(retryTransient)
    yield* log.info(`thread ${request.threadId}: changes reported on request (${report.value.files.length} file(s))`, {
      reportId: sent.reportId
    })
  }).pipe(safely(request.threadId, log))
