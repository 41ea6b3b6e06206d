import { NodeContext } from "@effect/platform-node"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Option, Schema } from "effect"
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ChangeReportBody, MAX_FILE_PATCH, MAX_TOTAL_PATCH } from "../../../catalog/domain/ChangeReport.js"
import { collectChanges } from "../../../cli/agent/ChangeReporter.js"
import { Git } from "../../../cli/agent/Git.js"

/**
 * The git side of a change report (issue 31 §1), on real repositories: what `collectChanges`
 * reads from a working copy against its base, and what it must leave out or only count.
 */

const git = (dir: string, ...args: ReadonlyArray<string>) =>
  execFileSync("git", ["-C", dir, ...args], { encoding: "utf8", env: { ...process.env, LC_ALL: "C" } }).trim()

const repo = () => {
  const dir = mkdtempSync(join(tmpdir(), "trellis-changes-test-"))
  git(dir, "init", "-q", "-b", "main")
  git(dir, "config", "user.email", "dev@example.com")
  git(dir, "config", "user.name", "Dev")
  git(dir, "config", "commit.gpgsign", "false")
  return dir
}

const lines = (n: number, word = "line") => Array.from({ length: n }, (_, i) => `${word} ${i + 1}`).join("\n") + "\n"

const collect = (dir: string, base: string) =>
  Effect.flatMap(collectChanges(dir, base), (report) =>
    Option.isNone(report)
      ? Effect.dieMessage("expected a report")
      // What the CLI sends must pass the contract's Schema, caps included.
      : Schema.decodeUnknown(ChangeReportBody)(report.value).pipe(Effect.orDie))

const ODD_NAME = "we \"ird\"\nname .txt"

describe("change reports: the working copy against its base", () => {
  layer(Layer.mergeAll(Git.Default, NodeContext.layer), { timeout: 60_000 })((it) => {
    it.effect("every kind of change is reported; ignored files and the real index are left alone", () =>
      Effect.gen(function*() {
        const dir = repo()
        writeFileSync(join(dir, "modified.txt"), "one\ntwo\n")
        writeFileSync(join(dir, "deleted.txt"), "gone soon\n")
        writeFileSync(join(dir, "moved.txt"), lines(50))
        writeFileSync(join(dir, "package-lock.json"), lines(10, "\"dep\":"))
        writeFileSync(join(dir, ".gitignore"), "ignored.log\nbuild/\n")
        writeFileSync(join(dir, ".gitattributes"), "gen/** linguist-generated\n")
        git(dir, "add", "-A")
        git(dir, "commit", "-qm", "base")
        const base = git(dir, "rev-parse", "HEAD")

        // A commit made during the turn counts as much as what is left uncommitted.
        writeFileSync(join(dir, "committed.txt"), "committed in the turn\n")
        git(dir, "add", "committed.txt")
        git(dir, "commit", "-qm", "turn")
        writeFileSync(join(dir, "modified.txt"), "one\ntwo\nthree\n")
        rmSync(join(dir, "deleted.txt"))
        git(dir, "mv", "moved.txt", "renamed.txt")
        writeFileSync(join(dir, "untracked.txt"), "new\nfile\n")
        writeFileSync(join(dir, ODD_NAME), "odd\n")
        writeFileSync(join(dir, "ignored.log"), "secret log\n")
        mkdirSync(join(dir, "build"))
        writeFileSync(join(dir, "build", "out.js"), "ignored too\n")
        writeFileSync(join(dir, "image.bin"), Buffer.from([0, 1, 2, 3, 0, 255, 0]))
        writeFileSync(join(dir, "package-lock.json"), lines(2000, "\"dep\":"))
        mkdirSync(join(dir, "gen"))
        writeFileSync(join(dir, "gen", "api.ts"), lines(30, "export const x"))
        writeFileSync(join(dir, "bundle.min.js"), "var a=1;\n")
        writeFileSync(join(dir, "huge.txt"), lines(40_000, "a rather long line of text"))
        // So many changed lines that its patch is over the cap before it is read.
        writeFileSync(join(dir, "many-lines.txt"), "x\n".repeat(MAX_FILE_PATCH))
        // A link pointing out of the working copy is reported as the link (its target's name), never followed.
        symlinkSync("/etc/hostname", join(dir, "outside"))
        const indexBefore = git(dir, "diff", "--cached", "--name-status")

        const report = yield* collect(dir, base)
        const byPath = new Map(report.files.map((file) => [file.path, file]))

        expect(report.baseCommit).toBe(base)
        expect(report.headCommit).toBe(git(dir, "rev-parse", "HEAD"))
        expect(report.branch).toBe("main")
        expect(report.truncated).toBe(false)
        expect([...byPath.keys()].sort()).toEqual(
          [
            "bundle.min.js",
            "committed.txt",
            "deleted.txt",
            "gen/api.ts",
            "huge.txt",
            "image.bin",
            "many-lines.txt",
            "modified.txt",
            ODD_NAME,
            "outside",
            "package-lock.json",
            "renamed.txt",
            "untracked.txt"
          ].sort()
        )
        expect(byPath.has("ignored.log") || byPath.has("build/out.js")).toBe(false)

        expect(byPath.get("modified.txt")).toMatchObject({ status: "modified", additions: 1, deletions: 0, binary: false })
        expect(byPath.get("modified.txt")?.patch).toContain("\n+three\n")
        expect(byPath.get("committed.txt")).toMatchObject({ status: "added", additions: 1 })
        expect(byPath.get("deleted.txt")).toMatchObject({ status: "deleted", additions: 0, deletions: 1 })
        expect(byPath.get("deleted.txt")?.patch).toContain("-gone soon")
        expect(byPath.get("renamed.txt")).toMatchObject({ status: "renamed", oldPath: "moved.txt", additions: 0, deletions: 0 })
        expect(byPath.get("renamed.txt")?.patch).toContain("rename from moved.txt")
        expect(byPath.get("untracked.txt")).toMatchObject({ status: "added", additions: 2, deletions: 0 })
        expect(byPath.get("untracked.txt")?.patch).toContain("+new\n+file")
        expect(byPath.get(ODD_NAME)).toMatchObject({ status: "added", additions: 1 })
        expect(byPath.get(ODD_NAME)?.patch).toContain("+odd")
        expect(byPath.get("image.bin")).toMatchObject({ status: "added", binary: true, patch: null, summarized: "binary" })
        expect(byPath.get("package-lock.json")).toMatchObject({
          status: "modified",
          additions: 1990,
          deletions: 0,
          patch: null,
          summarized: "lockfile"
        })
        expect(byPath.get("gen/api.ts")).toMatchObject({ additions: 30, patch: null, summarized: "generated" })
        expect(byPath.get("bundle.min.js")).toMatchObject({ patch: null, summarized: "generated" })
        expect(byPath.get("huge.txt")).toMatchObject({ additions: 40_000, patch: null, summarized: "too_large" })
        expect(byPath.get("many-lines.txt")).toMatchObject({ additions: MAX_FILE_PATCH, patch: null, summarized: "too_large" })
        expect(byPath.get("outside")?.patch).toContain("+/etc/hostname")

        // The user's staging area is as it was: untracked files were marked in a copy of the index.
        expect(git(dir, "diff", "--cached", "--name-status")).toBe(indexBefore)
        expect(git(dir, "status", "--porcelain", "--", "untracked.txt")).toBe("?? untracked.txt")
      }))

    it.effect("patches past the report's total are omitted and the report says truncated", () =>
      Effect.gen(function*() {
        const dir = repo()
        writeFileSync(join(dir, "README"), "base\n")
        git(dir, "add", "-A")
        git(dir, "commit", "-qm", "base")
        // Each patch under the per-file cap, twelve of them well over the total.
        const perFile = Math.floor(MAX_FILE_PATCH * 0.9)
        for (let i = 0; i < 12; i++) {
          writeFileSync(join(dir, `part-${String(i).padStart(2, "0")}.txt`), "x".repeat(59).concat("\n").repeat(Math.floor(perFile / 62)))
        }

        const report = yield* collect(dir, "HEAD")
        expect(report.files).toHaveLength(12)
        expect(report.truncated).toBe(true)
        const inlined = report.files.filter((file) => file.patch !== null)
        const omitted = report.files.filter((file) => file.summarized === "over_budget")
        expect(inlined.length).toBeGreaterThan(0)
        expect(omitted.length).toBeGreaterThan(0)
        expect(inlined.length + omitted.length).toBe(12)
        expect(inlined.reduce((sum, file) => sum + (file.patch?.length ?? 0), 0)).toBeLessThanOrEqual(MAX_TOTAL_PATCH)
        // Every file is still counted.
        expect(omitted.every((file) => file.additions > 0)).toBe(true)
      }))

    it.effect("files past the read patches are omitted unread: a sweeping change costs a few git processes, not one per file", () =>
      Effect.gen(function*() {
        const dir = repo()
        const files = 450
        for (let i = 0; i < files; i++) writeFileSync(join(dir, `file-${i}.txt`), lines(4))
        git(dir, "add", "-A")
        git(dir, "commit", "-qm", "base")
        // About 12 K characters of patch each: the first group of files read is already over the total.
        for (let i = 0; i < files; i++) writeFileSync(join(dir, `file-${i}.txt`), lines(200, `a rewritten line of file ${i}`))

        const real = yield* Git
        let diffs = 0
        const counting = Git.make({
          ...real,
          exec: (directory, args, options) => {
            if (args.includes("diff")) diffs++
            return real.exec(directory, args, options)
          }
        })
        const report = yield* collect(dir, "HEAD").pipe(Effect.provideService(Git, counting))
        expect(report.files).toHaveLength(files)
        expect(report.truncated).toBe(true)
        expect(report.files.reduce((sum, file) => sum + (file.patch?.length ?? 0), 0)).toBeLessThanOrEqual(MAX_TOTAL_PATCH)
        expect(report.files.filter((file) => file.summarized === "over_budget").length).toBeGreaterThan(0)
        // --name-status, --numstat and the patches of the groups read: never a file alone.
        expect(diffs).toBeLessThanOrEqual(5)
      }))

    it.effect("in a worktree, the base is the merge-base with the branch it started from, however far that branch moved", () =>
      Effect.gen(function*() {
        const dir = repo()
        writeFileSync(join(dir, "shared.txt"), "shared\n")
        git(dir, "add", "-A")
        git(dir, "commit", "-qm", "base")
        const forkPoint = git(dir, "rev-parse", "HEAD")
        const worktree = join(mkdtempSync(join(tmpdir(), "trellis-worktree-")), "wt")
        git(dir, "worktree", "add", "-q", "-b", "feature", worktree, "main")
        // main moves on after the worktree was made: its changes are not the thread's.
        writeFileSync(join(dir, "on-main.txt"), "main only\n")
        git(dir, "add", "on-main.txt")
        git(dir, "commit", "-qm", "main moves")
        writeFileSync(join(worktree, "feature.txt"), "the thread's work\n")

        const report = yield* collect(worktree, "main")
        expect(report.baseCommit).toBe(forkPoint)
        expect(report.branch).toBe("feature")
        expect(report.files.map((file) => [file.path, file.status])).toEqual([["feature.txt", "added"]])
        expect(git(worktree, "status", "--porcelain")).toBe("?? feature.txt")
      }))

    it.effect("a directory that is not a git working tree reports nothing", () =>
      Effect.gen(function*() {
        const dir = mkdtempSync(join(tmpdir(), "trellis-not-git-"))
        writeFileSync(join(dir, "file.txt"), "text\n")
        expect(Option.isNone(yield* collectChanges(dir, "HEAD"))).toBe(true)
      }))

    it.effect("a repository without a commit reports nothing", () =>
      Effect.gen(function*() {
        const dir = repo()
        writeFileSync(join(dir, "file.txt"), "text\n")
        expect(Option.isNone(yield* collectChanges(dir, "HEAD"))).toBe(true)
      }))
  })
})
