import { Effect, Either, Option, Schema } from "effect"
import * as PageCursor from "../../catalog/domain/PageCursor.js"
import type { ProjectRecord } from "../../catalog/domain/Project.js"
import { SKILL_MD } from "../../catalog/domain/Skill.js"
import { CurrentPrincipal, type DefaultProject } from "../platform/auth/Principal.js"
import { invalidParams, type McpError } from "../platform/mcp/McpError.js"
import { connectionProject } from "../projects/ConnectionProject.js"
import { Projects } from "../projects/Projects.js"
import { type ScopeAccess, Scopes } from "../projects/Scopes.js"
import {
  DIRECTORY_MIME_TYPE,
  fileResource,
  parseSkillUri,
  serveSkill,
  type ServedSkill,
  skillEntry,
  uriComponent
} from "./SkillManifest.js"
import { Skills } from "./Skills.js"

export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills"

/** How many entries one page of `skills/list`, `resources/list` or `resources/directory/read` holds. */
export const SKILLS_PAGE_SIZE = 50

/** Where a connection's Skills come from: the project's, and its organization's for a key that reaches them. */
interface Source {
  readonly authority: string
  readonly scope: ScopeAccess
}

/** Project refs are unique within their organization only, and an organization's own authority is its slug. */
const projectAuthority = (project: ProjectRecord): string => uriComponent(`${project.ref}.${project.organizationSlug}`.toLowerCase())

const organizationAuthority = (slug: string): string => uriComponent(slug.toLowerCase())

const listCursor = PageCursor.make("skills/list", Schema.String)
const resourcesCursor = PageCursor.make("resources/list", Schema.String)
const directoryCursor = PageCursor.make("resources/directory/read", Schema.String)

const byUri = <A extends { readonly uri: string }>(a: A, b: A): number => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0)

/** One page of `items`, in URI order, after the URI the cursor holds. */
const page = <A extends { readonly uri: string }>(
  cursors: PageCursor.PageCursor<string>,
  params: Record<string, unknown>,
  items: ReadonlyArray<A>
): Effect.Effect<{ readonly items: ReadonlyArray<A>; readonly next: { readonly nextCursor?: string } }, McpError> => {
  const given = params["cursor"]
  if (given !== undefined && given !== null && typeof given !== "string") return Effect.fail(invalidParams("cursor must be a string"))
  return Either.match(cursors.decode(given), {
    onLeft: (error) => Effect.fail(invalidParams(error.message)),
    onRight: (after) => {
      const rest = [...items].sort(byUri).filter((item) => after === null || item.uri > after)
      const taken = rest.slice(0, SKILLS_PAGE_SIZE)
      const last = taken[taken.length - 1]
      return Effect.succeed({
        items: taken,
        next: rest.length > taken.length && last !== undefined ? { nextCursor: cursors.encode(last.uri) } : {}
      })
    }
  })
}

const uriParam = (params: Record<string, unknown>): Effect.Effect<string, McpError> => {
  const uri = params["uri"]
  return typeof uri === "string" ? Effect.succeed(uri) : Effect.fail(invalidParams("uri must be a string"))
}

const directoryResource = (uri: string, name: string) => ({ uri, name, mimeType: DIRECTORY_MIME_TYPE })

/** A child in a directory listing: a file's resource or a subdirectory. */
type Child = ReturnType<typeof fileResource> | ReturnType<typeof directoryResource>

const resourceNotFound = (uri: string) => invalidParams("Resource not found", { uri })

/**
 * The server side of the MCP Skills extension (SEP-2640) for a connection with `?project=`: the
 * project's Skills, and its organization's for a key not narrowed to projects (the organization
 * check of `Scopes` decides), each under its own URI authority. A Skill is served when its SKILL.md
 * has frontmatter naming it (`SkillManifest.checkServable`); list_skills says why another is not.
 */
export class SkillsExtension extends Effect.Service<SkillsExtension>()("trellis/SkillsExtension", {
  effect: Effect.gen(function*() {
    const projects = yield* Projects
    const scopes = yield* Scopes
    const skills = yield* Skills

    const project = connectionProject(projects)

    const sources: Effect.Effect<ReadonlyArray<Source>, never, CurrentPrincipal | DefaultProject> = Effect.gen(function*() {
      const access = yield* project
      if (Option.isNone(access)) return []
      const own: Source = { authority: projectAuthority(access.value.project), scope: { kind: "project", project: access.value } }
      const organization = yield* scopes.organization(yield* CurrentPrincipal, access.value.project.organizationId, "organization").pipe(
        Effect.option
      )
      return Option.match(organization, {
        onNone: () => [own],
        onSome: (org) => [own, { authority: organizationAuthority(org.slug), scope: { kind: "organization", organization: org } }]
      })
    })

    const servedIn = (source: Source) =>
      Effect.map(
        skills.list(source.scope),
        (records) =>
          records.flatMap((record) => Either.match(serveSkill(source.authority, record), { onLeft: () => [], onRight: (skill) => [skill] }))
      )

    const allServed = Effect.flatMap(sources, (all) => Effect.map(Effect.forEach(all, servedIn), (lists) => lists.flat()))

    /** The source a URI's authority names, with the URI's decoded path segments. */
    const locate = (uri: string) =>
      Effect.map(sources, (all) => {
        const parsed = parseSkillUri(uri)
        const source = parsed === undefined ? undefined : all.find((candidate) => candidate.authority === parsed.authority)
        return parsed === undefined || source === undefined ? undefined : { source, segments: parsed.segments }
      })

    /** The served Skill of that name in `source`, or why there is none. */
    const skillNamed = (source: Source, name: string) =>
      Effect.map(skills.list(source.scope), (records): Either.Either<ServedSkill, string> => {
        const record = records.find((candidate) => candidate.name === name)
        return record === undefined ? Either.left("no such Skill") : serveSkill(source.authority, record)
      })

    /** Whether the connection is served the extension: its `?project=` names a project the key reaches. */
    const served = Effect.map(project, Option.isSome)

    /** `skills/list`: one entry per served Skill, whole, by URI. */
    const list = Effect.fn("SkillsExtension.list")(function*(params: Record<string, unknown>) {
      const all = yield* allServed
      const { items, next } = yield* page(listCursor, params, all.map(skillEntry))
      return { skills: items, ...next }
    })

    /** `skills/get { uri }`: the entry of the Skill whose SKILL.md is at `uri`. */
    const get = Effect.fn("SkillsExtension.get")(function*(params: Record<string, unknown>) {
      const uri = yield* uriParam(params)
      const located = yield* locate(uri)
      const segments = located?.segments ?? []
      const name = segments[0]
      if (located === undefined || name === undefined || segments.length !== 2 || segments[1] !== SKILL_MD) {
        return yield* invalidParams(`No skill is served at ${uri}`, { uri })
      }
      const skill = yield* skillNamed(located.source, name)
      if (Either.isLeft(skill)) return yield* invalidParams(`No skill is served at ${uri}: ${skill.left}`, { uri })
      return { skill: skillEntry(skill.right) }
    })

    /** `resources/list`: every file of every served Skill. */
    const listResources = Effect.fn("SkillsExtension.listResources")(function*(params: Record<string, unknown>) {
      const all = yield* allServed
      const { items, next } = yield* page(
        resourcesCursor,
        params,
        all.flatMap((skill) => skill.files.map((file) => fileResource(skill, file)))
      )
      return { resources: items, ...next }
    })

    /** `resources/templates/list`: every Skill file has a listed URI, so there is nothing to fill in. */
    const listResourceTemplates = Effect.succeed({ resourceTemplates: [] })

    /** `resources/read { uri }`: one file of a served Skill, as text. */
    const read = Effect.fn("SkillsExtension.read")(function*(params: Record<string, unknown>) {
      const uri = yield* uriParam(params)
      const located = yield* locate(uri)
      const [name, ...path] = located?.segments ?? []
      if (located === undefined || name === undefined || path.length === 0) return yield* resourceNotFound(uri)
      const skill = yield* skillNamed(located.source, name)
      const file = Either.isRight(skill) ? skill.right.files.find((candidate) => candidate.path === path.join("/")) : undefined
      if (file === undefined) return yield* resourceNotFound(uri)
      return { contents: [{ uri: file.uri, mimeType: file.mimeType, text: file.text }] }
    })

    /**
     * `resources/directory/read { uri, cursor? }`: the direct children of a directory — an
     * authority's Skills, a Skill's root, or a folder of its files; subdirectories are
     * `inode/directory` resources.
     */
    const readDirectory = Effect.fn("SkillsExtension.readDirectory")(function*(params: Record<string, unknown>) {
      const uri = yield* uriParam(params)
      const located = yield* locate(uri)
      const notDirectory = invalidParams(`${uri} is not a directory resource`, { uri })
      if (located === undefined) return yield* notDirectory
      const [name, ...folder] = located.segments
      if (name === undefined) {
        const all = yield* servedIn(located.source)
        const { items, next } = yield* page(directoryCursor, params, all.map((skill): Child => directoryResource(skill.root, skill.name)))
        return { resources: items, ...next }
      }
      const skill = yield* skillNamed(located.source, name)
      if (Either.isLeft(skill)) return yield* notDirectory
      const prefix = folder.length === 0 ? "" : `${folder.join("/")}/`
      const inside = skill.right.files.filter((file) => file.path.startsWith(prefix))
      if (inside.length === 0) return yield* notDirectory
      const children = new Map<string, Child>()
      for (const file of inside) {
        const [child = "", ...deeper] = file.path.slice(prefix.length).split("/")
        const childUri = `${uri}/${uriComponent(child)}`
        if (deeper.length === 0) children.set(childUri, fileResource(skill.right, file))
        else if (!children.has(childUri)) children.set(childUri, directoryResource(childUri, child))
      }
      const { items, next } = yield* page(directoryCursor, params, [...children.values()])
      return { resources: items, ...next }
    })

    return { served, list, get, listResources, listResourceTemplates, read, readDirectory } as const
  }),
  dependencies: [Projects.Default, Scopes.Default, Skills.Default]
}) {}
