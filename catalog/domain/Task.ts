import { Schema } from "effect"

export const Priority = Schema.Literal("None", "Low", "Medium", "High", "Critical")
export type Priority = typeof Priority.Type

/** Every project starts with these statuses, in board order; the first is the default. */
export const DEFAULT_STATUSES: ReadonlyArray<string> = ["To Do", "In Progress", "In Review", "Done", "Canceled"]

export const MAX_TASK_NAME_LENGTH = 500
export const MAX_EXTERNAL_LINKS = 20
export const MAX_IDENTIFIERS_PER_CALL = 25
export const MAX_COMMENTS_ON_GET = 50
export const SOFT_DELETE_RETENTION_DAYS = 30

const HttpUrl = Schema.String.pipe(
  Schema.filter((value) => {
    if (!URL.canParse(value)) return false
    const { protocol } = new URL(value)
    return protocol === "http:" || protocol === "https:"
  }, {
    message: () => "must be an http(s) URL",
    // Random strings almost never parse as URLs: property tests would filter forever.
    arbitrary: () => (fc) => fc.webUrl()
  })
)

const Text = (max: number) => Schema.String.pipe(Schema.maxLength(max, { message: () => `must be at most ${max} characters` }))

export const LinkId = Schema.String.pipe(
  Schema.pattern(/^[a-zA-Z0-9._:-]{1,160}$/, { message: () => "must be 1–160 characters of a-z, A-Z, 0-9, ., _, : or -" })
).annotations({ description: "Caller-chosen ID of the link, 1–160 characters of a-zA-Z0-9._:-" })

/** An external link on a task, by kind (SPEC's Link table). */
export const Link = Schema.Union(
  Schema.Struct({
    kind: Schema.Literal("commit"),
    sha: Schema.String.pipe(Schema.pattern(/^[0-9a-fA-F]{7,64}$/, { message: () => "must be 7–64 hexadecimal digits" })),
    title: Schema.optional(Text(500)),
    repo: Schema.optional(Text(500)),
    branch: Schema.optional(Text(500)),
    url: Schema.optional(HttpUrl)
  }),
  Schema.Struct({
    kind: Schema.Literal("branch"),
    name: Text(500).pipe(Schema.minLength(1, { message: () => "must not be empty" })),
    repo: Schema.optional(Text(500)),
    url: Schema.optional(HttpUrl)
  }),
  Schema.Struct({
    kind: Schema.Literal("pull_request"),
    url: HttpUrl,
    title: Schema.optional(Text(500)),
    identifier: Schema.optional(Text(200)),
    repo: Schema.optional(Text(500)),
    branch: Schema.optional(Text(500))
  }),
  Schema.Struct({
    kind: Schema.Literal("url"),
    url: HttpUrl,
    title: Schema.optional(Text(500))
  })
).annotations({ identifier: "Link" })
export type Link = typeof Link.Type

/** A link as stored and returned: its ID, the kind's fields and timestamps. */
export const ExternalLink = Schema.extend(
  Schema.Struct({ id: Schema.String, createdAt: Schema.String, updatedAt: Schema.String }),
  Link
).annotations({ identifier: "ExternalLink" })
export type ExternalLink = typeof ExternalLink.Type

/** `DEMO-12`: a bare task ref (project ref, number). */
const BARE_REF = /^([A-Za-z][A-Za-z0-9]{1,9})-(\d{1,9})$/
/** `acme/DEMO-12`: a ref scoped by the organization's slug. */
const SCOPED_REF = /^([a-z0-9][a-z0-9-]{1,38}[a-z0-9])\/([A-Za-z][A-Za-z0-9]{1,9})-(\d{1,9})$/i
const TASK_ID = /^task_[0-9a-f]{32}$/

export type TaskAddress =
  | { readonly _tag: "Id"; readonly id: string }
  | { readonly _tag: "BareRef"; readonly projectRef: string; readonly number: number }
  | { readonly _tag: "ScopedRef"; readonly organizationSlug: string; readonly projectRef: string; readonly number: number }

/** How a caller named a task: its ID, a bare ref or a scoped ref (refs are case-insensitive). */
export const parseTaskAddress = (input: string): TaskAddress | undefined => {
  const value = input.trim()
  if (TASK_ID.test(value)) return { _tag: "Id", id: value }
  const bare = BARE_REF.exec(value)
  if (bare !== null) return { _tag: "BareRef", projectRef: bare[1]!.toUpperCase(), number: Number(bare[2]) }
  const scoped = SCOPED_REF.exec(value)
  if (scoped !== null) {
    return {
      _tag: "ScopedRef",
      organizationSlug: scoped[1]!.toLowerCase(),
      projectRef: scoped[2]!.toUpperCase(),
      number: Number(scoped[3])
    }
  }
  return undefined
}

export const TASK_ADDRESS_RULE = "a task ID (task_…), a ref such as DEMO-12, or a scoped ref such as acme/DEMO-12"
