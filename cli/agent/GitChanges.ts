import type { FileStatus, Summarized } from "../../catalog/domain/ChangeReport.js"

/**
 * Reading git's machine output for a change report: `--name-status -z` and `--numstat -z`
 * (NUL-separated, so any file name survives), and the per-file sections of a patch. Pure, so
 * every odd name is testable without a repository.
 */

export interface NameStatus {
  readonly path: string
  readonly oldPath?: string
  readonly status: FileStatus
}

export interface LineCounts {
  readonly additions: number
  readonly deletions: number
  /** git counts no lines in a file it takes for binary (`-\t-`). */
  readonly binary: boolean
}

const STATUSES: Readonly<Record<string, FileStatus>> = {
  A: "added",
  M: "modified",
  D: "deleted",
  R: "renamed",
  C: "copied",
  T: "typechange",
  // An unmerged path is a conflict in progress: its working copy is what changed.
  U: "modified"
}

/** `git diff -z --name-status`: `X\0path\0`, or `R100\0old\0new\0` for renames and copies. */
export const parseNameStatus = (output: string): ReadonlyArray<NameStatus> => {
  const fields = output.split("\0")
  const entries: Array<NameStatus> = []
  for (let i = 0; i < fields.length;) {
    const code = fields[i] ?? ""
    i += 1
    if (code === "") continue
    const letter = code[0] ?? ""
    const status = STATUSES[letter]
    if (letter === "R" || letter === "C") {
      const oldPath = fields[i] ?? ""
      const path = fields[i + 1] ?? ""
      i += 2
      if (status !== undefined) entries.push({ path, oldPath, status })
    } else {
      const path = fields[i] ?? ""
      i += 1
      if (status !== undefined) entries.push({ path, status })
    }
  }
  return entries
}

/**
 * `git diff -z --numstat`, by (new) path: `adds\tdels\tpath\0`, or `adds\tdels\t\0old\0new\0`
 * for renames and copies; binary files count `-`.
 */
export const parseNumstat = (output: string): ReadonlyMap<string, LineCounts> => {
  const fields = output.split("\0")
  const counts = new Map<string, LineCounts>()
  for (let i = 0; i < fields.length;) {
    const record = fields[i] ?? ""
    i += 1
    if (record === "") continue
    const [added = "", deleted = "", ...rest] = record.split("\t")
    let path = rest.join("\t")
    if (path === "") {
      path = fields[i + 1] ?? ""
      i += 2
    }
    const binary = added === "-" || deleted === "-"
    counts.set(path, { additions: binary ? 0 : Number(added), deletions: binary ? 0 : Number(deleted), binary })
  }
  return counts
}

/** `git check-attr -z --stdin linguist-generated`: `path\0attribute\0value\0`, the paths it marks. */
export const parseGeneratedAttribute = (output: string): ReadonlySet<string> => {
  const fields = output.split("\0")
  const marked = new Set<string>()
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const value = fields[i + 2]
    if (value === "set" || value === "true") marked.add(fields[i] ?? "")
  }
  return marked
}

/** Dependency lock files: long, machine-written, and read by nobody in a review. */
const LOCK_FILES = new Set([
  "package-lock.json",
  "npm-shrinkwrap.json",
  "yarn.lock",
  "pnpm-lock.yaml",
  "bun.lock",
  "bun.lockb",
  "deno.lock",
  "Cargo.lock",
  "Gemfile.lock",
  "poetry.lock",
  "Pipfile.lock",
  "uv.lock",
  "pdm.lock",
  "composer.lock",
  "go.sum",
  "flake.lock",
  "Podfile.lock",
  "Package.resolved",
  "mix.lock",
  "pubspec.lock",
  "packages.lock.json",
  "gradle.lockfile"
])

/** Generated files that are recognisable by name, for repositories that mark none in .gitattributes. */
const GENERATED = [/\.min\.(js|css)$/, /\.(js|css)\.map$/, /\.pb\.go$/, /_pb2(_grpc)?\.pyi?$/, /(^|\/)__generated__\//]

const basename = (path: string) => path.slice(path.lastIndexOf("/") + 1)

/** Why a file is counted rather than inlined, from its name and git's view of it; undefined to inline it. */
export const summaryOf = (path: string, binary: boolean, markedGenerated: boolean): Summarized | undefined =>
  LOCK_FILES.has(basename(path))
    ? "lockfile"
    : markedGenerated || GENERATED.some((pattern) => pattern.test(path))
    ? "generated"
    : binary
    ? "binary"
    : undefined

const ESCAPES: Readonly<Record<string, string>> = {
  "\u0007": "\\a",
  "\b": "\\b",
  "\t": "\\t",
  "\n": "\\n",
  "\u000b": "\\v",
  "\f": "\\f",
  "\r": "\\r",
  "\"": "\\\"",
  "\\": "\\\\"
}

/**
 * A name as a patch header prints it with `core.quotePath=false`: C-quoted when it holds a
 * quote, a backslash or a control character, else as is (spaces included).
 */
export const quotedName = (name: string): string => {
  if (!/["\\\u0000-\u001f\u007f]/.test(name)) return name
  const body = [...name].map((char) => {
    const escape = ESCAPES[char]
    if (escape !== undefined) return escape
    const code = char.charCodeAt(0)
    return code < 0x20 || code === 0x7f ? `\\${code.toString(8).padStart(3, "0")}` : char
  }).join("")
  return `"${body}"`
}

/** The first line of a file's section in `git diff` (prefixes `a/` and `b/`). */
export const diffHeader = (entry: NameStatus): string =>
  `diff --git ${quotedName(`a/${entry.oldPath ?? entry.path}`)} ${quotedName(`b/${entry.path}`)}`

/**
 * A patch cut into its files' sections, by header line. A patch's own lines start with a space,
 * `+`, `-`, `@` or `\`, so a line starting `diff --git ` always opens a section. A type change is
 * two sections under one header (the old file removed, the new one added): they go together.
 */
export const splitPatch = (patch: string): ReadonlyMap<string, string> => {
  const sections = new Map<string, string>()
  const starts: Array<number> = []
  if (patch.startsWith("diff --git ")) starts.push(0)
  for (let at = patch.indexOf("\ndiff --git "); at !== -1; at = patch.indexOf("\ndiff --git ", at + 1)) starts.push(at + 1)
  starts.forEach((start, i) => {
    const section = patch.slice(start, starts[i + 1] ?? patch.length)
    const headerEnd = section.indexOf("\n")
    const header = headerEnd === -1 ? section : section.slice(0, headerEnd)
    sections.set(header, (sections.get(header) ?? "") + section)
  })
  return sections
}
