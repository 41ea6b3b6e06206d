import * as Command from "@effect/platform/Command"
import * as CommandExecutor from "@effect/platform/CommandExecutor"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Chunk, Effect, Fiber, Schema, Stream } from "effect"

/** git could not be run, or failed in a way that is not "not a repository". */
export class GitError extends Schema.TaggedError<GitError>()("GitError", { message: Schema.String }) {}

export class NotAGitRepository extends Schema.TaggedError<NotAGitRepository>()("NotAGitRepository", {
  directory: Schema.String,
  message: Schema.String
}) {}

/** One entry of `git worktree list --porcelain`. The first entry is the main worktree. */
export interface Worktree {
  readonly path: string
  readonly head: string | null
  /** The checked-out branch without `refs/heads/`; null when detached or bare. */
  readonly branch: string | null
  readonly bare: boolean
  readonly detached: boolean
  readonly locked: boolean
  /** git considers the worktree stale (its directory is gone). */
  readonly prunable: boolean
}

const BRANCH_PREFIX = "refs/heads/"

/** Parses `git worktree list --porcelain`: records of `key value` lines separated by blank lines. */
export const parseWorktreeList = (porcelain: string): ReadonlyArray<Worktree> => {
  const records: Array<Worktree> = []
  for (const block of porcelain.split(/\r?\n\r?\n/)) {
    const lines = block.split(/\r?\n/).filter((line) => line !== "")
    const first = lines[0]
    if (first === undefined || !first.startsWith("worktree ")) continue
    let head: string | null = null
    let branch: string | null = null
    let bare = false
    let detached = false
    let locked = false
    let prunable = false
    for (const line of lines.slice(1)) {
      const space = line.indexOf(" ")
      const key = space === -1 ? line : line.slice(0, space)
      const value = space === -1 ? "" : line.slice(space + 1)
      switch (key) {
        case "HEAD":
          head = value
          break
        case "branch":
          branch = value.startsWith(BRANCH_PREFIX) ? value.slice(BRANCH_PREFIX.length) : value
          break
        case "bare":
          bare = true
          break
        case "detached":
          detached = true
          break
        case "locked":
          locked = true
          break
        case "prunable":
          prunable = true
          break
      }
    }
    records.push({ path: first.slice("worktree ".length), head, branch, bare, detached, locked, prunable })
  }
  return records
}

/**
 * A remote URL fit to show and send to the server: credentials embedded in an http(s) URL
 * (`https://user:token@host/…`) are dropped; every other form is kept as git prints it.
 */
export const publicRemoteUrl = (url: string): string => {
  if (!URL.canParse(url)) return url
  const parsed = new URL(url)
  if ((parsed.protocol !== "https:" && parsed.protocol !== "http:") || (parsed.username === "" && parsed.password === "")) {
    return url
  }
  parsed.username = ""
  parsed.password = ""
  return parsed.toString()
}

interface GitOutput {
  readonly exitCode: number
  readonly stdout: string
  readonly stderr: string
}

const firstLine = (text: string) => text.trim().split("\n")[0] ?? ""

export interface ExecOptions {
  /** Added to the environment (never a secret: the environment of a process is its owner's to read). */
  readonly env?: Readonly<Record<string, string>>
  readonly stdin?: string
  /** Stop reading (and end git) once stdout passes this many bytes: `exceeded` is then true. */
  readonly maxBytes?: number
}

export interface ExecOutput extends GitOutput {
  readonly exceeded: boolean
}

const concat = (chunks: Chunk.Chunk<Uint8Array>) => {
  const bytes = new Uint8Array(Chunk.reduce(chunks, 0, (sum, chunk) => sum + chunk.length))
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.length
  }
  return bytes
}

/** git facts of a directory, read with the `git` executable. */
export class Git extends Effect.Service<Git>()("trellis/cli/Git", {
  effect: Effect.gen(function*() {
    const executor = yield* CommandExecutor.CommandExecutor

    const run = (directory: string, args: ReadonlyArray<string>): Effect.Effect<GitOutput, GitError> =>
      Effect.scoped(Effect.gen(function*() {
        const process = yield* Command.start(
          Command.make("git", "-C", directory, ...args).pipe(
            Command.env({ GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" })
          )
        )
        const [stdout, stderr, exitCode] = yield* Effect.all(
          [
            Stream.mkString(Stream.decodeText(process.stdout)),
            Stream.mkString(Stream.decodeText(process.stderr)),
            process.exitCode
          ],
          { concurrency: "unbounded" }
        )
        return { exitCode, stdout, stderr }
      })).pipe(
        Effect.provideService(CommandExecutor.CommandExecutor, executor),
        Effect.mapError((error) => new GitError({ message: `cannot run git (is it installed?): ${error.message}` }))
      )

    /**
     * Runs git with an environment, input and an output cap: a diff of a huge file is cut off
     * rather than held whole. Whatever git still writes is dropped, and git ended, with the scope.
     */
    const exec = (directory: string, args: ReadonlyArray<string>, options: ExecOptions = {}): Effect.Effect<ExecOutput, GitError> =>
      Effect.scoped(Effect.gen(function*() {
        const base = Command.make("git", "-C", directory, ...args).pipe(
          Command.env({ GIT_TERMINAL_PROMPT: "0", LC_ALL: "C", ...options.env })
        )
        const process = yield* Command.start(options.stdin === undefined ? base : Command.feed(base, options.stdin))
        const stderr = yield* Effect.forkScoped(Stream.mkString(Stream.decodeText(process.stderr)))
        const limit = options.maxBytes ?? Number.POSITIVE_INFINITY
        let read = 0
        const chunks = yield* process.stdout.pipe(
          Stream.takeUntil((chunk) => (read += chunk.length) > limit),
          Stream.runCollect
        )
        if (read > limit) return { exitCode: -1, stdout: "", stderr: "", exceeded: true }
        const exitCode = yield* process.exitCode
        return { exitCode, stdout: new TextDecoder().decode(concat(chunks)), stderr: yield* Fiber.join(stderr), exceeded: false }
      })).pipe(
        Effect.provideService(CommandExecutor.CommandExecutor, executor),
        Effect.mapError((error) => new GitError({ message: `cannot run git (is it installed?): ${error.message}` }))
      )

    const failed = (args: ReadonlyArray<string>, output: GitOutput) =>
      new GitError({ message: `git ${args.join(" ")} failed (exit ${output.exitCode}): ${firstLine(output.stderr)}` })

    /** The top directory of the working tree containing `directory`. */
    const repoRoot = Effect.fn("Git.repoRoot")(function*(directory: string) {
      const output = yield* run(directory, ["rev-parse", "--show-toplevel"])
      if (output.exitCode !== 0) {
        return yield* new NotAGitRepository({
          directory,
          message: `${directory} is not inside a git working tree (${firstLine(output.stderr)})`
        })
      }
      return output.stdout.trim()
    })

    /** `git remote get-url origin` without embedded credentials; null when there is no `origin`. */
    const remoteUrl = Effect.fn("Git.remoteUrl")(function*(directory: string) {
      const args = ["remote", "get-url", "origin"]
      const output = yield* run(directory, args)
      if (output.exitCode === 0) {
        const url = output.stdout.trim()
        return url === "" ? null : publicRemoteUrl(url)
      }
      if (output.exitCode === 2 || /no such remote/i.test(output.stderr)) return null
      return yield* failed(args, output)
    })

    /** The checked-out branch; null when HEAD is detached. */
    const currentBranch = Effect.fn("Git.currentBranch")(function*(directory: string) {
      const args = ["symbolic-ref", "--quiet", "--short", "HEAD"]
      const output = yield* run(directory, args)
      if (output.exitCode === 0) return output.stdout.trim()
      if (output.exitCode === 1) return null
      return yield* failed(args, output)
    })

    /** Runs `git args` in `directory`: its stdout, trimmed; a failure names the command and git's error. */
    const output = Effect.fn("Git.output")(function*(directory: string, args: ReadonlyArray<string>) {
      const result = yield* run(directory, args)
      if (result.exitCode !== 0) return yield* failed(args, result)
      return result.stdout.trim()
    })

    /** Every worktree of the repository containing `directory`, the main one first. */
    const worktrees = Effect.fn("Git.worktrees")(function*(directory: string) {
      return parseWorktreeList(yield* output(directory, ["worktree", "list", "--porcelain"]))
    })

    return { repoRoot, remoteUrl, currentBranch, worktrees, output, exec } as const
  }),
  dependencies: [NodeContext.layer]
}) {}
