import { Clock, Effect, Option } from "effect"
import type { RateLimit } from "../TrellisConfig.js"

interface Bucket {
  readonly tokens: number
  readonly updatedAt: number
  /** When the bucket is full again: from then on it is the same as no bucket at all. */
  readonly fullAt: number
}

/** How often idle buckets are looked for; between sweeps the map holds at most the keys seen since. */
const SWEEP_INTERVAL_MS = 10_000

/**
 * Token buckets in this process, one per key (callers make the key: an API key and a route
 * family). A budget allows `burst` calls at once and gives back `perSecond` of them every second.
 * A bucket that has refilled is forgotten, so the map holds only keys active lately.
 */
export class RateLimiter extends Effect.Service<RateLimiter>()("trellis/RateLimiter", {
  sync: () => {
    const buckets = new Map<string, Bucket>()
    let sweptAt = 0

    const sweep = (now: number) => {
      if (now - sweptAt < SWEEP_INTERVAL_MS) return
      sweptAt = now
      for (const [key, bucket] of buckets) if (bucket.fullAt <= now) buckets.delete(key)
    }

    const bucketOf = (tokens: number, now: number, { burst, perSecond }: RateLimit): Bucket => ({
      tokens,
      updatedAt: now,
      fullAt: now + ((burst - tokens) / perSecond) * 1000
    })

    /** Takes one token for `key` under `budget`; when none is left, returns how many seconds to wait. */
    const take = (key: string, budget: RateLimit): Effect.Effect<Option.Option<number>> =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        sweep(now)
        const bucket = buckets.get(key)
        const tokens = bucket === undefined
          ? budget.burst
          : Math.min(budget.burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * budget.perSecond)
        if (tokens >= 1) {
          buckets.set(key, bucketOf(tokens - 1, now, budget))
          return Option.none()
        }
        buckets.set(key, bucketOf(tokens, now, budget))
        return Option.some(Math.max(1, Math.ceil((1 - tokens) / budget.perSecond)))
      })

    /** How many buckets are held (bounded memory is a rule, so it is observable). */
    const size = Effect.sync(() => buckets.size)

    return { take, size } as const
  }
}) {}
