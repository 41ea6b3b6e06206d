import { Either } from "effect"
import { createHash } from "node:crypto"
import { isDeepStrictEqual } from "node:util"
import { parseDocument } from "yaml"
import { SKILL_MD } from "../../catalog/domain/Skill.js"

/**
 * How a stored Skill looks through the MCP Skills extension (SEP-2640): its SKILL.md frontmatter,
 * its files as `skill://` resources with their digests. Nothing here is stored: SKILL.md is saved
 * verbatim and only parsed when it is served.
 */

export const SKILL_SCHEME = "skill://"
export const DIRECTORY_MIME_TYPE = "inode/directory"

/** A SKILL.md's frontmatter as a host reads it: `name` and `description`, and whatever else the author wrote. */
export type Frontmatter = { readonly name: string; readonly description: string } & Readonly<Record<string, unknown>>

export interface ServedFile {
  /** The file's path in the Skill, SKILL.md included. */
  readonly path: string
  readonly uri: string
  readonly text: string
  readonly mimeType: string
  /** `sha256:<hex>` of the UTF-8 bytes of `text`, the bytes `resources/read` sends. */
  readonly digest: string
  readonly size: number
}

export interface ServedSkill {
  readonly name: string
  /** The URI of its SKILL.md: what `skills/get` takes. */
  readonly uri: string
  /** Its directory: the SKILL.md URI without `/SKILL.md`. */
  readonly root: string
  readonly frontmatter: Frontmatter
  /** SKILL.md first, then the other files by path. */
  readonly files: ReadonlyArray<ServedFile>
}

/** What the extension needs of a stored Skill. */
export interface StoredSkill {
  readonly name: string
  readonly files: Readonly<Record<string, string>>
}

// The conformance suite's reading of a SKILL.md (a leading BOM, then a `---` fenced block), so that
// what the server accepts is what a host parses back.
const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/
// Agent Skills naming rules; Trellis names are looser (they allow leading, trailing and double hyphens).
const AGENT_SKILL_NAME = /^(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$/

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

/** Characters as a person counts them (code points, not UTF-16 units). */
const characters = (text: string): number => [...text].length

const nonEmptyString = (value: unknown): value is string => typeof value === "string" && value !== ""

/** The frontmatter of a SKILL.md, or why a host could not read one from it. */
export const parseFrontmatter = (skillMd: string): Either.Either<Frontmatter, string> => {
  const text = skillMd.charCodeAt(0) === 0xfeff ? skillMd.slice(1) : skillMd
  const block = FRONTMATTER.exec(text)?.[1]
  if (block === undefined) {
    return Either.left("SKILL.md does not begin with YAML frontmatter (a line `---`, the YAML, then a line `---`)")
  }
  const document = parseDocument(block)
  const error = document.errors[0]
  if (error !== undefined) {
    const reason = error.message.split(/ at line \d+|\n/)[0] ?? error.code
    // The block starts on the line after the opening `---`.
    const line = error.linePos === undefined ? "" : ` (SKILL.md line ${error.linePos[0].line + 1})`
    return Either.left(`SKILL.md's frontmatter is not valid YAML: ${reason}${line}`)
  }
  const parsed = Either.try((): unknown => document.toJS())
  if (Either.isLeft(parsed)) return Either.left(`SKILL.md's frontmatter cannot be read: ${String(parsed.left)}`)
  const value = parsed.right
  if (!isRecord(value)) return Either.left("SKILL.md's frontmatter is not a YAML mapping of fields")
  // Entries carry it as JSON, and a host compares it with its own parse of the file: both must agree.
  const carried = Either.try((): unknown => JSON.parse(JSON.stringify(value)))
  if (Either.isLeft(carried) || !isDeepStrictEqual(carried.right, value)) {
    return Either.left("SKILL.md's frontmatter holds a value JSON cannot carry exactly (such as .inf, .nan, -0 or an alias inside itself)")
  }
  const { compatibility, description, metadata, name } = value
  if (!nonEmptyString(name)) return Either.left("SKILL.md's frontmatter has no `name` (a non-empty string)")
  if (!nonEmptyString(description)) return Either.left("SKILL.md's frontmatter has no `description` (a non-empty string)")
  // The Agent Skills rules hosts check each entry against (the SDK's Skills client refuses the rest).
  if (characters(description) > 1024) return Either.left("SKILL.md's frontmatter `description` is longer than 1024 characters")
  if (compatibility !== undefined && !(nonEmptyString(compatibility) && characters(compatibility) <= 500)) {
    return Either.left("SKILL.md's frontmatter `compatibility` must be a string of 1 to 500 characters")
  }
  if (metadata !== undefined && !(isRecord(metadata) && Object.values(metadata).every((item) => typeof item === "string"))) {
    return Either.left("SKILL.md's frontmatter `metadata` must map names to strings (quote numbers and booleans)")
  }
  return Either.right({ ...value, name, description })
}

/** A path that is a file and also the directory of other files cannot be laid out as a skill directory. */
const fileUsedAsDirectory = (paths: ReadonlyArray<string>): string | undefined => {
  const files = new Set(paths)
  for (const path of paths) {
    const segments = path.split("/")
    for (let depth = 1; depth < segments.length; depth++) {
      const directory = segments.slice(0, depth).join("/")
      if (files.has(directory)) return `${directory} is a file and also the directory of ${path}`
    }
  }
  return undefined
}

/** Author-written text inside a server message: one JSON string, cut short, so it cannot pass for the message's own words. */
const quoted = (text: string): string => JSON.stringify(text.length > 80 ? `${text.slice(0, 79)}…` : text)

/** Why the extension does not serve this Skill, or its frontmatter when it does. */
export const checkServable = (skill: StoredSkill): Either.Either<Frontmatter, string> =>
  Either.gen(function*() {
    const frontmatter = yield* parseFrontmatter(Object.hasOwn(skill.files, SKILL_MD) ? skill.files[SKILL_MD] ?? "" : "")
    if (frontmatter.name !== skill.name) {
      return yield* Either.left(`SKILL.md's frontmatter names ${quoted(frontmatter.name)}, not the Skill's name "${skill.name}"`)
    }
    if (!AGENT_SKILL_NAME.test(skill.name)) {
      return yield* Either.left(
        `the name "${skill.name}" breaks the Agent Skills naming rules (no leading or trailing hyphen, no "--")`
      )
    }
    const clash = fileUsedAsDirectory(Object.keys(skill.files))
    if (clash !== undefined) return yield* Either.left(clash)
    return frontmatter
  })

/** The `extensionProblem` of list_skills and get_skill: null when the extension serves the Skill. */
export const extensionProblem = (skill: StoredSkill): string | null =>
  Either.match(checkServable(skill), { onLeft: (problem) => problem, onRight: () => null })

/** Text as one URI component: what is not unreserved is percent-encoded (UTF-8), so it is also a valid reg-name. */
export const uriComponent = (text: string): string => encodeURIComponent(text)

export const skillRoot = (authority: string, name: string): string => `${SKILL_SCHEME}${authority}/${uriComponent(name)}`

export const fileUri = (authority: string, name: string, path: string): string =>
  `${skillRoot(authority, name)}/${path.split("/").map(uriComponent).join("/")}`

/**
 * A `skill://` URI in the form this server writes: its authority as written and its path
 * segments decoded. Any other spelling (a trailing slash, another encoding, a query) is none,
 * so each resource has exactly one URI.
 */
export const parseSkillUri = (
  uri: string
): { readonly authority: string; readonly segments: ReadonlyArray<string> } | undefined => {
  if (!uri.startsWith(SKILL_SCHEME)) return undefined
  const [authority = "", ...raw] = uri.slice(SKILL_SCHEME.length).split("/")
  if (authority === "") return undefined
  const segments: Array<string> = []
  for (const part of raw) {
    const decoded = Either.try(() => decodeURIComponent(part))
    if (Either.isLeft(decoded) || decoded.right === "" || uriComponent(decoded.right) !== part) return undefined
    segments.push(decoded.right)
  }
  return { authority, segments }
}

const MIME_TYPES: Readonly<Record<string, string>> = {
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  toml: "application/toml",
  xml: "application/xml",
  html: "text/html",
  htm: "text/html",
  css: "text/css",
  csv: "text/csv",
  svg: "image/svg+xml",
  js: "text/javascript",
  mjs: "text/javascript",
  cjs: "text/javascript",
  ts: "text/x-typescript",
  py: "text/x-python",
  sh: "text/x-shellscript",
  bash: "text/x-shellscript",
  sql: "application/sql"
}

/** Every Skill file is text; its extension picks the kind of text, plain text otherwise. */
export const mimeTypeOf = (path: string): string => {
  const name = path.slice(path.lastIndexOf("/") + 1)
  const dot = name.lastIndexOf(".")
  return (dot > 0 ? MIME_TYPES[name.slice(dot + 1).toLowerCase()] : undefined) ?? "text/plain"
}

export const digestOf = (text: string): string => `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`

const byPath = (a: string, b: string): number => (a === SKILL_MD ? -1 : b === SKILL_MD ? 1 : a < b ? -1 : a > b ? 1 : 0)

/** The Skill as the extension serves it under `authority`, or why it is not served. */
export const serveSkill = (authority: string, skill: StoredSkill): Either.Either<ServedSkill, string> =>
  Either.map(checkServable(skill), (frontmatter) => ({
    name: skill.name,
    uri: fileUri(authority, skill.name, SKILL_MD),
    root: skillRoot(authority, skill.name),
    frontmatter,
    files: Object.keys(skill.files).sort(byPath).map((path) => {
      const text = skill.files[path] ?? ""
      return {
        path,
        uri: fileUri(authority, skill.name, path),
        text,
        mimeType: mimeTypeOf(path),
        digest: digestOf(text),
        size: Buffer.byteLength(text, "utf8")
      }
    })
  }))

/** The `skills/list` and `skills/get` entry. */
export const skillEntry = (skill: ServedSkill) => ({
  uri: skill.uri,
  frontmatter: skill.frontmatter,
  resources: skill.files.map((file) => ({ uri: file.uri, digest: file.digest, size: file.size }))
})

/** A file as an MCP resource; SKILL.md is named and described by its frontmatter. */
export const fileResource = (skill: ServedSkill, file: ServedFile) => ({
  uri: file.uri,
  ...(file.path === SKILL_MD
    ? { name: skill.frontmatter.name, description: skill.frontmatter.description }
    : { name: file.path }),
  mimeType: file.mimeType,
  size: file.size
})
