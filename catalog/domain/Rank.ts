import { Effect } from "effect"
import { generateKeyBetween, generateNKeysBetween } from "fractional-indexing"

/*
 * Ordering ranks are fractional-indexing keys: placing an item between two others never
 * renumbers the rest. The keys compare byte-wise, so rank columns are `COLLATE "C"`; under a
 * linguistic collation PostgreSQL would order them differently from the library.
 */

/** A rank after `last` (the greatest rank in use), or the first rank when there is none. */
export const rankAfter = (last: string | null): Effect.Effect<string> =>
  // The library throws only on a malformed key, which a rank column never holds.
  Effect.try(() => generateKeyBetween(last, null)).pipe(Effect.orDie)

/** A rank between two neighbours (`null`: the start or the end), which must be in order. */
export const rankBetween = (lower: string | null, upper: string | null): Effect.Effect<string> =>
  Effect.try(() => generateKeyBetween(lower, upper)).pipe(Effect.orDie)

/** `count` ranks in order, evenly spread: for renumbering items whose ranks tie. */
export const spreadRanks = (count: number): Effect.Effect<ReadonlyArray<string>> =>
  Effect.try(() => generateNKeysBetween(null, null, count)).pipe(Effect.orDie)
