import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { isUniqueViolation } from "../platform/sql/SqlErrors.js"
import { Conflict, NotFound } from "../../catalog/domain/Errors.js"
import { UserId } from "../../catalog/domain/Ids.js"

export const UserRecord = Schema.Struct({
  id: UserId,
  name: Schema.String,
  email: Schema.String,
  createdAt: Schema.DateFromSelf
})
export type UserRecord = typeof UserRecord.Type

const decode = Schema.decodeUnknown(UserRecord)

export class Users extends Effect.Service<Users>()("trellis/Users", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const create = Effect.fn("Users.create")(function*(input: { readonly name: string; readonly email: string }) {
      const rows = yield* sql`
        INSERT INTO users (id, name, email) VALUES (${UserId.generate()}, ${input.name}, ${input.email})
        RETURNING id, name, email, created_at AS "createdAt"`.pipe(
        Effect.catchTag("SqlError", (error) =>
          isUniqueViolation(error)
            ? new Conflict({ message: `email: a user with email "${input.email}" already exists` })
            : Effect.die(error))
      )
      return yield* decode(rows[0]).pipe(Effect.orDie)
    })

    /** Finds a user by ID or email (case-insensitive). */
    const find = Effect.fn("Users.find")(function*(idOrEmail: string) {
      const rows = yield* sql`
        SELECT id, name, email, created_at AS "createdAt" FROM users
        WHERE id = ${idOrEmail} OR lower(email) = ${idOrEmail.toLowerCase()}`.pipe(Effect.orDie)
      if (rows[0] === undefined) return yield* new NotFound({ message: `user "${idOrEmail}" not found` })
      return yield* decode(rows[0]).pipe(Effect.orDie)
    })

    return { create, find } as const
  })
}) {}
