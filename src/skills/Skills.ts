import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Either, Schema } from "effect"
import type { ScopeFields } from "../../catalog/ScopeArguments.js"
import type * as SkillCatalog from "../../catalog/Skills.js"
import type { InputOf, OutputOf } from "../../catalog/Tool.js"
import type { Principal, ProjectAccess } from "../platform/auth/Principal.js"
import { isUniqueViolation } from "../platform/sql/SqlErrors.js"
import { Conflict, InvalidArgument, NotFound } from "../../catalog/domain/Errors.js"
import { SkillId } from "../../catalog/domain/Ids.js"
import {
  applySkillEdits,
  checkSkillCaps,
  checkSkillMd,
  sameFiles,
  SKILL_MD,
  SKILL_NAME_PATTERN,
  SKILL_NAME_RULE,
  type SkillFiles,
  skillPathProblem
} from "../../catalog/domain/Skill.js"
import { describeScope, ownedBy, type ScopeAccess, scopeOwner, Scopes, StoredScope } from "../projects/Scopes.js"

export const SkillRecord = Schema.Struct({
  id: SkillId,
  ...StoredScope.fields,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  category: Schema.NullOr(Schema.String),
  version: Schema.Int,
  files: Schema.Record({ key: Schema.String, value: Schema.String })
})
export type SkillRecord = typeof SkillRecord.Type

/** A Skill with SKILL.md apart from its other files (sorted by path), as tools show it. */
export interface SkillContent {
  readonly record: SkillRecord
  readonly skillMd: string
  readonly files: ReadonlyArray<typeof SkillCatalog.SkillFile.Type>
}

export type CreateSkill = Omit<InputOf<typeof SkillCatalog.CreateSkill>, keyof typeof ScopeFields>
export type UpdateSkill = Omit<InputOf<typeof SkillCatalog.UpdateSkill>, "skillId">
/** Saved, or a `replace` that could not be placed (a result, not a tool error). */
export type SaveResult = OutputOf<typeof SkillCatalog.UpdateSkill>

const decodeRecords = Schema.decodeUnknown(Schema.Array(SkillRecord))
const decodeVersions = Schema.decodeUnknown(Schema.Array(SkillRecord.pick("version")))

const validateName = (name: string) =>
  SKILL_NAME_PATTERN.test(name)
    ? Effect.succeed(name)
    : new InvalidArgument({ message: `name: "${name}" must be ${SKILL_NAME_RULE}` })

const filesOf = (record: SkillRecord): SkillFiles => new Map(Object.entries(record.files))

/** A file's content, looking only at the Skill's own paths (never at what every object inherits). */
const fileAt = (record: SkillRecord, path: string): string | undefined => Object.hasOwn(record.files, path) ? record.files[path] : undefined

const contentOf = (record: SkillRecord): SkillContent => ({
  record,
  skillMd: fileAt(record, SKILL_MD) ?? "",
  files: Object.entries(record.files)
    .filter(([path]) => path !== SKILL_MD)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([path, content]) => ({ path, content }))
})

const otherPaths = (record: SkillRecord): ReadonlyArray<string> => contentOf(record).files.map((file) => file.path)

/**
 * Versioned SKILL.md bundles of a project or an organization. Every save holds the Skill's row
 * (`FOR UPDATE`) from the read of the stored files to the write, so concurrent saves queue up and
 * each applies its edits to the result of the one before.
 */
export class Skills extends Effect.Service<Skills>()("trellis/Skills", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const scopes = yield* Scopes

    const columns = sql`id, scope, organization_id AS "organizationId", project_id AS "projectId", name, description,
      category, version, files`

    const nameConflict = (where: string, name: string) => (error: SqlError) =>
      isUniqueViolation(error)
        ? new Conflict({ message: `name: ${where} already has a Skill named ${name}` })
        : Effect.die(error)

    const decodeFirst = (rows: ReadonlyArray<unknown>) => Effect.map(Effect.orDie(decodeRecords(rows)), (records) => records[0])

    /** A stored Skill the caller may reach, with its scope; `forUpdate` holds its row until the transaction ends. */
    const reach = (principal: Principal, skillId: SkillId, forUpdate: boolean) =>
      Effect.gen(function*() {
        const notFound = new NotFound({ message: `skillId: Skill ${skillId} not found` })
        const record = yield* sql`SELECT ${columns} FROM skills WHERE id = ${skillId} ${forUpdate ? sql`FOR UPDATE` : sql``}`.pipe(
          Effect.orDie,
          Effect.flatMap(decodeFirst)
        )
        if (record === undefined) return yield* notFound
        const scope = yield* scopes.ofStored(principal, record, notFound)
        return { record, scope }
      })

    /** The Skills of one scope owner, by name. */
    const list = Effect.fn("Skills.list")(function*(scope: ScopeAccess) {
      const rows = yield* sql`SELECT ${columns} FROM skills WHERE ${ownedBy(sql, scope)} ORDER BY name, id`.pipe(Effect.orDie)
      return yield* Effect.orDie(decodeRecords(rows))
    })

    const create = Effect.fn("Skills.create")(function*(principal: Principal, scope: ScopeAccess, input: CreateSkill) {
      yield* scopes.requireWriter(scope, "Skills")
      const name = yield* validateName(input.name)
      const skillMd = yield* checkSkillMd("content", input.content)
      const files = yield* checkSkillCaps(new Map([[SKILL_MD, skillMd]]))
      const owner = scopeOwner(scope)
      const id = SkillId.generate()
      yield* sql`INSERT INTO skills (id, scope, organization_id, project_id, name, description, category, files, created_by)
        VALUES (${id}, ${owner.scope}, ${owner.organizationId}, ${owner.projectId}, ${name}, ${input.description ?? null},
          ${input.category ?? null}, ${JSON.stringify(Object.fromEntries(files))}::jsonb, ${principal.userId})`.pipe(
        Effect.catchTag("SqlError", nameConflict(describeScope(scope), name))
      )
      return id
    })

    const get = Effect.fn("Skills.get")(function*(principal: Principal, skillId: SkillId) {
      const { record } = yield* reach(principal, skillId, false)
      return contentOf(record)
    })

    /**
     * One save: `content`, then the edits in order, then the columns. Nothing is written unless
     * all of it succeeds; an unplaceable `replace` is returned rather than failed, and a save that
     * changes nothing keeps the version.
     */
    const update = Effect.fn("Skills.update")(function*(principal: Principal, skillId: SkillId, patch: UpdateSkill) {
      const name = patch.name === undefined ? undefined : yield* validateName(patch.name)
      return yield* sql.withTransaction(Effect.gen(function*() {
        const { record, scope } = yield* reach(principal, skillId, true)
        yield* scopes.requireWriter(scope, "Skills")
        const stored = filesOf(record)
        const applied = applySkillEdits(stored, patch.content, patch.edits ?? [])
        if (Either.isLeft(applied)) {
          const failure = applied.left
          return "ok" in failure ? failure : yield* failure
        }
        const next = {
          name: name ?? record.name,
          description: patch.description === undefined ? record.description : patch.description,
          category: patch.category === undefined ? record.category : patch.category
        }
        const unchanged = sameFiles(stored, applied.right) && next.name === record.name &&
          next.description === record.description && next.category === record.category
        if (unchanged) return { ok: true, version: record.version } satisfies SaveResult
        const [saved] = yield* sql`UPDATE skills SET name = ${next.name}, description = ${next.description},
            category = ${next.category}, files = ${JSON.stringify(Object.fromEntries(applied.right))}::jsonb,
            version = version + 1, updated_at = now()
          WHERE id = ${skillId} RETURNING version`.pipe(
          Effect.catchTag("SqlError", nameConflict(describeScope(scope), next.name)),
          Effect.flatMap((rows) => Effect.orDie(decodeVersions(rows)))
        )
        return { ok: true, version: saved?.version ?? record.version + 1 } satisfies SaveResult
      })).pipe(Effect.catchTag("SqlError", Effect.die))
    })

    const remove = Effect.fn("Skills.remove")(function*(principal: Principal, skillId: SkillId) {
      yield* sql.withTransaction(Effect.gen(function*() {
        const { scope } = yield* reach(principal, skillId, true)
        yield* scopes.requireWriter(scope, "Skills")
        yield* sql`DELETE FROM skills WHERE id = ${skillId}`
      })).pipe(Effect.catchTag("SqlError", Effect.die))
    })

    /** A project Skill by name; an impossible name finds nothing, like an unknown one. */
    const findInProject = (access: ProjectAccess, name: string) =>
      SKILL_NAME_PATTERN.test(name)
        ? sql`SELECT ${columns} FROM skills WHERE scope = 'project' AND project_id = ${access.project.id} AND name = ${name}`.pipe(
          Effect.orDie,
          Effect.flatMap(decodeFirst)
        )
        : Effect.succeed(undefined)

    /** What an agent loads: SKILL.md and the paths of the other files; null when there is no such project Skill. */
    const load = Effect.fn("Skills.load")(function*(access: ProjectAccess, name: string) {
      const record = yield* findInProject(access, name)
      if (record === undefined) return null
      return { name: record.name, description: record.description, skillMd: fileAt(record, SKILL_MD) ?? "", paths: otherPaths(record) }
    })

    /** One file of a project Skill; null for a missing Skill or path, and for a path no file could have. */
    const readFile = Effect.fn("Skills.readFile")(function*(access: ProjectAccess, name: string, path: string) {
      if (skillPathProblem(path) !== undefined) return null
      const record = yield* findInProject(access, name)
      const content = record === undefined ? undefined : fileAt(record, path)
      return content === undefined ? null : { path, content }
    })

    return { list, create, get, update, remove, load, readFile } as const
  }),
  dependencies: [Scopes.Default]
}) {}
