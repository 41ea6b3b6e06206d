import { SqlClient } from "@effect/sql"
import { Cache, Duration, Effect, Option, Schema } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { NotFound } from "../../../catalog/domain/Errors.js"
import { ApiKeyId, ProjectId, UserId } from "../../../catalog/domain/Ids.js"
import { KEY_REVOKED_CHANNEL } from "../notifications/LiveEvents.js"
import type { Principal } from "./Principal.js"

export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", { message: Schema.String }) {}

export const ApiKeyRecord = Schema.Struct({
  id: ApiKeyId,
  userId: UserId,
  name: Schema.String,
  prefix: Schema.String,
  projectIds: Schema.NullOr(Schema.Array(ProjectId)),
  readOnly: Schema.Boolean,
  createdAt: Schema.DateFromSelf,
  lastUsedAt: Schema.NullOr(Schema.DateFromSelf),
  revokedAt: Schema.NullOr(Schema.DateFromSelf)
})
export type ApiKeyRecord = typeof ApiKeyRecord.Type

const KEY_PREFIX = "trellis_"
/** How long an authenticated key is trusted before it is looked up again (and its last use recorded). */
export const AUTH_CACHE_TTL = Duration.seconds(5)

const sha256 = (secret: string) => createHash("sha256").update(secret).digest("hex")

const decodeRecords = Schema.decodeUnknown(Schema.Array(ApiKeyRecord))
const decodeAuthenticated = Schema.decodeUnknown(Schema.Array(ApiKeyRecord.pick("id", "userId", "projectIds", "readOnly")))
const decodeRevoked = Schema.decodeUnknown(Schema.Array(Schema.Struct({ secretSha256: Schema.String })))

/** The projects a key (aliased `k`) is narrowed to, in ID order; NULL when it is not narrowed. */
const narrowedProjects = (sql: SqlClient.SqlClient) =>
  sql`CASE WHEN k.narrowed THEN ARRAY(SELECT project_id FROM api_key_projects WHERE api_key_id = k.id ORDER BY project_id) END`

/** The columns of a key (aliased `k`) that make its principal: read them with {@link decodePrincipals}. */
export const principalColumns = (sql: SqlClient.SqlClient) =>
  sql`k.id, k.user_id AS "userId", ${narrowedProjects(sql)} AS "projectIds", k.read_only AS "readOnly"`

/** The principals of key rows read with {@link principalColumns}. */
export const decodePrincipals = (rows: ReadonlyArray<unknown>) =>
  Effect.map(
    decodeAuthenticated(rows),
    (keys) => keys.map((row): Principal => ({ apiKeyId: row.id, userId: row.userId, projectIds: row.projectIds, readOnly: row.readOnly }))
  )

export class ApiKeys extends Effect.Service<ApiKeys>()("trellis/ApiKeys", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const narrowedTo = narrowedProjects(sql)

    const selectRecords = sql`SELECT k.id, k.user_id AS "userId", k.name, k.lookup_prefix AS prefix,
      ${narrowedTo} AS "projectIds", k.read_only AS "readOnly", k.created_at AS "createdAt", k.last_used_at AS "lastUsedAt",
      k.revoked_at AS "revokedAt"
      FROM api_keys k`

    const lookup = (hash: string) =>
      sql`
        UPDATE api_keys k SET last_used_at = now()
        WHERE k.secret_sha256 = ${hash} AND k.revoked_at IS NULL
        RETURNING ${principalColumns(sql)}`.pipe(
        Effect.flatMap(decodePrincipals),
        Effect.orDie,
        Effect.flatMap((rows) => Option.fromNullable(rows[0])),
        Effect.mapError(() => new Unauthorized({ message: "The API key is not valid or has been revoked" }))
      )

    // Failures are cached too, so a flood of bad keys costs one lookup per key per TTL.
    const cache = yield* Cache.make({ capacity: 10_000, timeToLive: AUTH_CACHE_TTL, lookup })

    // Untraced: it runs on every request, and a span costs more than the cached lookup itself.
    const authenticate = (token: string): Effect.Effect<Principal, Unauthorized> =>
      token.startsWith(KEY_PREFIX)
        ? cache.get(sha256(token))
        : new Unauthorized({ message: "The API key is malformed (Trellis keys start with trellis_)" })

    const findRecords = (condition: ReturnType<typeof sql.literal> | ReturnType<typeof sql>) =>
      sql`${selectRecords} WHERE ${condition} ORDER BY k.created_at, k.id`.pipe(
        Effect.orDie,
        Effect.flatMap((rows) => Effect.orDie(decodeRecords(rows)))
      )

    /** Creates a key; the secret is returned once and only its SHA-256 is stored. */
    const create = Effect.fn("ApiKeys.create")(function*(input: {
      readonly userId: UserId
      readonly name: string
      readonly projectIds: ReadonlyArray<ProjectId> | null
      readonly readOnly?: boolean
    }) {
      const secret = KEY_PREFIX + randomBytes(32).toString("base64url")
      const id = ApiKeyId.generate()
      const narrowed = input.projectIds !== null
      yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO api_keys (id, user_id, name, lookup_prefix, secret_sha256, narrowed, read_only)
          VALUES (${id}, ${input.userId}, ${input.name}, ${secret.slice(0, KEY_PREFIX.length + 6)}, ${sha256(secret)}, ${narrowed},
            ${input.readOnly ?? false})`
        for (const projectId of input.projectIds ?? []) {
          yield* sql`INSERT INTO api_key_projects (api_key_id, project_id) VALUES (${id}, ${projectId})
            ON CONFLICT DO NOTHING`
        }
      })).pipe(Effect.orDie)
      const record = yield* findRecords(sql`k.id = ${id}`).pipe(Effect.head, Effect.orDie)
      return { record, secret }
    })

    const revoke = Effect.fn("ApiKeys.revoke")(function*(id: ApiKeyId) {
      const rows = yield* sql`
        UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = ${id}
        RETURNING secret_sha256 AS "secretSha256"`.pipe(Effect.flatMap(decodeRevoked), Effect.orDie)
      const row = rows[0]
      if (row === undefined) return yield* new NotFound({ message: `API key ${id} not found` })
      yield* cache.invalidate(row.secretSha256)
      // Ends the key's open streams at once, on every instance (RevokedKeys listens); a lost signal
      // still ends them within the key cache's period, when RevokedKeys next checks its keys.
      yield* sql`SELECT pg_notify(${KEY_REVOKED_CHANNEL}, ${id})`.pipe(Effect.ignore)
    })

    const list = (userId: UserId | null) => findRecords(userId === null ? sql`true` : sql`k.user_id = ${userId}`)

    return { authenticate, create, revoke, list } as const
  })
}) {}
