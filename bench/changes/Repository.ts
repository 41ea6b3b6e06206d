/**
 * The benchmark's working copy: a git repository whose working tree changes `files` files against
 * its commit, for about `patchBytes` of unified diff in all, with two files over the per-file cap
 * and a lock file among them, as an agent's sweeping refactor leaves a checkout.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

const git = (dir: string, ...args: ReadonlyArray<string>) =>
  execFileSync("git", ["-C", dir, ...args], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024, env: { ...process.env, LC_ALL: "C" } })

const lines = (count: number, word: string) =>
  Array.from({ length: count }, (_, n) => `export const ${word}${n} = "${word} line ${n}"`).join("\n") + "\n"

export interface Repository {
  readonly dir: string
  /** The size of `git diff HEAD`, in characters. */
  readonly diffChars: number
}

/** Over the per-file cap (256 K characters) by themselves. */
const HUGE_FILES = 2
const HUGE_LINES = 6_000

export const makeRepository = (dir: string, files: number, patchBytes: number): Repository => {
  fs.mkdirSync(dir, { recursive: true })
  git(dir, "init", "-q", "-b", "main")
  git(dir, "config", "user.email", "bench@example.com")
  git(dir, "config", "user.name", "bench")
  const ordinary = files - HUGE_FILES - 1
  // Each ordinary file's diff: its changed lines twice (removed, added) at ~40 characters, plus headers.
  const changed = Math.max(1, Math.round((patchBytes - HUGE_FILES * HUGE_LINES * 80) / ordinary / 90))
  const name = (n: number) => path.join("src", `module${Math.floor(n / 100)}`, `file${n}.ts`)
  for (let n = 0; n < ordinary; n++) {
    fs.mkdirSync(path.join(dir, path.dirname(name(n))), { recursive: true })
    fs.writeFileSync(path.join(dir, name(n)), lines(changed + 4, "old"))
  }
  for (let n = 0; n < HUGE_FILES; n++) fs.writeFileSync(path.join(dir, `huge${n}.ts`), lines(HUGE_LINES, "old"))
  fs.writeFileSync(path.join(dir, "package-lock.json"), JSON.stringify({ lockfileVersion: 3, packages: {} }, null, 2))
  git(dir, "add", "-A")
  git(dir, "commit", "-q", "-m", "before the refactor")
  for (let n = 0; n < ordinary; n++) {
    fs.writeFileSync(path.join(dir, name(n)), lines(changed, "renamed") + lines(changed + 4, "old").split("\n").slice(changed).join("\n"))
  }
  for (let n = 0; n < HUGE_FILES; n++) fs.writeFileSync(path.join(dir, `huge${n}.ts`), lines(HUGE_LINES, "renamed"))
  fs.writeFileSync(
    path.join(dir, "package-lock.json"),
    JSON.stringify(
      {
        lockfileVersion: 3,
        packages: Object.fromEntries(Array.from({ length: 500 }, (_, n) => [`node_modules/p${n}`, { version: "1.0.0" }]))
      },
      null,
      2
    )
  )
  return { dir, diffChars: git(dir, "diff", "HEAD").length }
}

/** The floor of reading the changes: `git diff HEAD` with its numstat, the two reads a report cannot do without. */
export const bareGitDiff = (dir: string): number => git(dir, "diff", "--numstat", "HEAD").length + git(dir, "diff", "HEAD").length
