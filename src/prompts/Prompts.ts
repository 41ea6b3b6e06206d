import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Schema } from "effect"
import type * as PromptCatalog from "../../catalog/Prompts.js"
import type { ScopeFields } from "../../catalog/ScopeArguments.js"
import type { InputOf } from "../../catalog/Tool.js"
import type { Principal } from "../platform/auth/Principal.js"
import { isUniqueViolation } from "../platform/sql/SqlErrors.js"
import { Conflict, InvalidArgument, NotFound } from "../../catalog/domain/Errors.js"
import { PromptId } from "../../catalog/domain/Ids.js"
import { PROMPT_KEY_PATTERN, PROMPT_KEY_RULE } from "../../catalog/domain/Prompt.js"
import { describeScope, ownedBy, type ScopeAccess, scopeOwner, Scopes, StoredScope } from "../projects/Scopes.js"

export const PromptRecord = Schema.Struct({
  id: PromptId,
  ...StoredScope.fields,
  key: Schema.String,
  description: Schema.NullOr(Schema.String),
  category: Schema.NullOr(Schema.String),
  content: Schema.String,
  autoExpand: Schema.Boolean,
  autoSubmit: Schema.Boolean
})
export type PromptRecord = typeof PromptRecord.Type

export type CreatePrompt = Omit<InputOf<typeof PromptCatalog.CreatePrompt>, keyof typeof ScopeFields>

/** Omitted fields are kept; null clears description and category. */
export type UpdatePrompt = Omit<InputOf<typeof PromptCatalog.UpdatePrompt>, "promptId">

const decodeRecords = Schema.decodeUnknown(Schema.Array(PromptRecord))

const validateKey = (key: string) =>
  PROMPT_KEY_PATTERN.test(key)
    ? Effect.succeed(key)
    : new InvalidArgument({
      message: key.startsWith("/") ? `key: "${key}" must not start with a slash` : `key: "${key}" must be ${PROMPT_KEY_RULE}`
    })

const validateContent = (content: string) =>
  content === "" ? new InvalidArgument({ message: "content: must not be empty" }) : Effect.succeed(content)

/** Slash commands of a project or an organization. Deleting one is the web app's alone (src/prompts/PromptsHttp.ts). */
export class Prompts extends Effect.Service<Prompts>()("trellis/Prompts", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const scopes = yield* Scopes

    const columns = sql`id, scope, organization_id AS "organizationId", project_id AS "projectId", key, description,
      category, content, auto_expand AS "autoExpand", auto_submit AS "autoSubmit"`

    const keyConflict = (where: string, key: string) => (error: SqlError) =>
      isUniqueViolation(error)
        ? new Conflict({ message: `key: ${where} already has a prompt /${key}` })
        : Effect.die(error)

    /** The prompts of one scope owner, by key. */
    const list = Effect.fn("Prompts.list")(function*(scope: ScopeAccess) {
      const rows = yield* sql`SELECT ${columns} FROM prompts WHERE ${ownedBy(sql, scope)} ORDER BY key, id`.pipe(Effect.orDie)
      return yield* Effect.orDie(decodeRecords(rows))
    })

    const create = Effect.fn("Prompts.create")(function*(scope: ScopeAccess, input: CreatePrompt) {
      yield* scopes.requireWriter(scope, "prompts")
      const key = yield* validateKey(input.key)
      const content = yield* validateContent(input.content)
      const owner = scopeOwner(scope)
      const id = PromptId.generate()
      yield* sql`INSERT INTO prompts (id, scope, organization_id, project_id, key, description, category, content, auto_expand, auto_submit)
        VALUES (${id}, ${owner.scope}, ${owner.organizationId}, ${owner.projectId}, ${key}, ${input.description ?? null},
          ${input.category ?? null}, ${content}, ${input.autoExpand ?? false}, ${input.autoSubmit ?? false})`.pipe(
        Effect.catchTag("SqlError", keyConflict(describeScope(scope), key))
      )
      return id
    })

    /** Changes the fields given; the prompt stays in its own scope, which decides who may change it. */
    const update = Effect.fn("Prompts.update")(function*(principal: Principal, promptId: PromptId, patch: UpdatePrompt) {
      const notFound = new NotFound({ message: `promptId: prompt ${promptId} not found` })
      const [stored] = yield* sql`SELECT ${columns} FROM prompts WHERE id = ${promptId}`.pipe(
        Effect.orDie,
        Effect.flatMap((rows) => Effect.orDie(decodeRecords(rows)))
      )
      if (stored === undefined) return yield* notFound
      const scope = yield* scopes.ofStored(principal, stored, notFound)
      yield* scopes.requireWriter(scope, "prompts")
      const key = patch.key === undefined ? undefined : yield* validateKey(patch.key)
      const content = patch.content === undefined ? undefined : yield* validateContent(patch.content)
      const sets = [
        key === undefined ? undefined : sql`key = ${key}`,
        content === undefined ? undefined : sql`content = ${content}`,
        patch.description === undefined ? undefined : sql`description = ${patch.description}`,
        patch.category === undefined ? undefined : sql`category = ${patch.category}`,
        patch.autoExpand === undefined ? undefined : sql`auto_expand = ${patch.autoExpand}`,
        patch.autoSubmit === undefined ? undefined : sql`auto_submit = ${patch.autoSubmit}`
      ].filter((set) => set !== undefined)
      yield* sql`UPDATE prompts SET ${sql.csv([...sets, sql`updated_at = now()`])} WHERE id = ${promptId}`.pipe(
        Effect.catchTag("SqlError", keyConflict(describeScope(scope), key ?? stored.key))
      )
    })

    /** Removes a prompt for good; who may is decided by its scope, as for `update`. */
    const remove = Effect.fn("Prompts.remove")(function*(principal: Principal, promptId: PromptId) {
      const notFound = new NotFound({ message: `promptId: prompt ${promptId} not found` })
      const [stored] = yield* sql`SELECT ${columns} FROM prompts WHERE id = ${promptId}`.pipe(
        Effect.orDie,
        Effect.flatMap((rows) => Effect.orDie(decodeRecords(rows)))
      )
      if (stored === undefined) return yield* notFound
      yield* scopes.requireWriter(yield* scopes.ofStored(principal, stored, notFound), "prompts")
      yield* sql`DELETE FROM prompts WHERE id = ${promptId}`.pipe(Effect.orDie)
    })

    return { list, create, update, remove } as const
  }),
  dependencies: [Scopes.Default]
}) {}
