import { Effect } from "effect"
import { generateKeyBetween } from "fractional-indexing"

/*
 * Ordering ranks are fractional-indexing keys: placing an item between two others never
 * renumbers the rest. The keys compare byte-wise, so rank columns are `COLLATE "C"`; under a
 * linguistic collation PostgreSQL would order them differently from the library.
 */

/** A rank after `last` (the greatest rank in use), or the first rank when there is none. */
export const rankAfter = (last: string | null): Effect.Effect<string> =>
  // The library throws only on a malformed key, which a rank column never holds.
  Effect.try(() => generateKeyBetween(last, null)).pipe(Effect.orDie)
