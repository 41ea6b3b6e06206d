import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { isUniqueViolation } from "../platform/sql/SqlErrors.js"
import { Conflict, NotFound } from "../../catalog/domain/Errors.js"
import { OrganizationId } from "../../catalog/domain/Ids.js"

export const OrganizationRecord = Schema.Struct({
  id: OrganizationId,
  slug: Schema.String,
  name: Schema.String,
  createdAt: Schema.DateFromSelf
})
export type OrganizationRecord = typeof OrganizationRecord.Type

const decode = Schema.decodeUnknown(OrganizationRecord)

export class Organizations extends Effect.Service<Organizations>()("trellis/Organizations", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const create = Effect.fn("Organizations.create")(function*(input: { readonly slug: string; readonly name: string }) {
      const rows = yield* sql`
        INSERT INTO organizations (id, slug, name) VALUES (${OrganizationId.generate()}, ${input.slug}, ${input.name})
        RETURNING id, slug, name, created_at AS "createdAt"`.pipe(
        Effect.catchTag("SqlError", (error) =>
          isUniqueViolation(error)
            ? new Conflict({ message: `slug: an organization with slug "${input.slug}" already exists` })
            : Effect.die(error))
      )
      return yield* decode(rows[0]).pipe(Effect.orDie)
    })

    /** Finds an organization by its slug or its ID. */
    const find = Effect.fn("Organizations.find")(function*(slugOrId: string) {
      const rows = yield* sql`
        SELECT id, slug, name, created_at AS "createdAt" FROM organizations
        WHERE slug = ${slugOrId.toLowerCase()} OR id = ${slugOrId}`.pipe(Effect.orDie)
      if (rows[0] === undefined) return yield* new NotFound({ message: `organization "${slugOrId}" not found` })
      return yield* decode(rows[0]).pipe(Effect.orDie)
    })

    // Reads no column, so there is no row shape to decode: only whether a row came back.
    const isEmpty = sql`SELECT 1 FROM organizations LIMIT 1`.pipe(
      Effect.orDie,
      Effect.map((rows) => rows.length === 0)
    )

    return { create, find, isEmpty } as const
  })
}) {}
