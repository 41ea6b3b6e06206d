import { Clock, Effect, Option } from "effect"
import { TrellisConfig } from "../TrellisConfig.js"

/**
 * A token bucket per API key, in this process. Each key may spend `burst` calls at once and
 * regains `perSecond` of them every second.
 */
export class RateLimiter extends Effect.Service<RateLimiter>()("trellis/RateLimiter", {
  effect: Effect.gen(function* () {
    const { rateLimit } = yield* TrellisConfig
    const buckets = new Map<string, { tokens: number; updatedAt: number }>()

    /** Takes one token for `key`; when none is left, returns how many seconds to wait. */
    const take = (key: string): Effect.Effect<Option.Option<number>> =>
      Option.match(rateLimit, {
        onNone: () => Effect.succeedNone,
        onSome: ({ burst, perSecond }) =>
          Effect.map(Clock.currentTimeMillis, (now) => {
            const bucket = buckets.get(key) ?? { tokens: burst, updatedAt: now }
            const tokens = Math.min(burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * perSecond)
            if (tokens >= 1) {
              buckets.set(key, { tokens: tokens - 1, updatedAt: now })
              return Option.none()
            }
            buckets.set(key, { tokens, updatedAt: now })
            return Option.some(Math.max(1, Math.ceil((1 - tokens) / perSecond)))
          })
      })

    return { take } as const
  })
}) {}
