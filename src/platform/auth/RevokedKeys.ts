import { SqlClient } from "@effect/sql"
import { Deferred, Effect, RcMap, Schedule, Schema, type Scope, Stream } from "effect"
import { ApiKeyId } from "../../../catalog/domain/Ids.js"
import { LiveEvents } from "../notifications/LiveEvents.js"
import { AUTH_CACHE_TTL } from "./ApiKeys.js"

const decodeIds = Schema.decodeUnknown(Schema.Array(Schema.Struct({ id: ApiKeyId })))

/**
 * What ends a long-lived request (an SSE stream) when the key that opened it is revoked: one watch
 * per key, shared by all of its open streams. A revocation's NOTIFY (ApiKeys.revoke) ends them at
 * once on every instance; in case a signal is lost (the LISTEN connection was down, or
 * `trellis admin key revoke` ran where none reaches), every watched key is also looked up again
 * once per key-cache period, in one read for all of them. Each stream used to look its key up on a
 * timer of its own: a thousand open streams were two hundred reads a second of the same row.
 */
export class RevokedKeys extends Effect.Service<RevokedKeys>()("trellis/RevokedKeys", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const live = yield* LiveEvents
    const watched = new Map<ApiKeyId, Deferred.Deferred<void>>()

    const watch = (id: ApiKeyId): Effect.Effect<Deferred.Deferred<void>, never, Scope.Scope> =>
      Effect.gen(function*() {
        const revoked = yield* Deferred.make<void>()
        const signals = yield* live.keyRevokedSignals(id)
        yield* signals.pipe(Stream.take(1), Stream.runDrain, Effect.zipRight(Deferred.succeed(revoked, undefined)), Effect.forkScoped)
        yield* Effect.acquireRelease(Effect.sync(() => watched.set(id, revoked)), () => Effect.sync(() => watched.delete(id)))
        return revoked
      })
    const watches = yield* RcMap.make({ lookup: watch })

    // A failed lookup ends nothing: it is asked again next period rather than ending streams the key may still hold.
    const check = Effect.suspend(() => {
      const ids = [...watched.keys()]
      if (ids.length === 0) return Effect.void
      return sql`SELECT id FROM api_keys WHERE id IN ${sql.in(ids)} AND revoked_at IS NULL`.pipe(
        Effect.flatMap(decodeIds),
        Effect.flatMap((rows) => {
          const valid = new Set(rows.map((row) => row.id))
          return Effect.forEach(ids, (id) => {
            const revoked = watched.get(id)
            return valid.has(id) || revoked === undefined ? Effect.void : Deferred.succeed(revoked, undefined)
          }, { discard: true })
        }),
        Effect.catchAllCause((cause) => Effect.logWarning("checking the watched API keys failed", cause))
      )
    })
    yield* Effect.forkScoped(Effect.repeat(check, Schedule.spaced(AUTH_CACHE_TTL)))

    /**
     * An effect that completes once the key is revoked (or gone), watched until the scope closes:
     * what ends the streams opened with it.
     */
    const revoked = (id: ApiKeyId): Effect.Effect<Effect.Effect<void>, never, Scope.Scope> =>
      Effect.map(RcMap.get(watches, id), Deferred.await)

    /** How many keys are watched: one per key with an open stream, none once they have all closed. */
    const watchedKeys = Effect.sync(() => watched.size)

    return { revoked, watchedKeys } as const
  }),
  dependencies: [LiveEvents.Default]
}) {}
