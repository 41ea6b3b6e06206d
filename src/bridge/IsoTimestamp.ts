import { Schema } from "effect"

/**
 * A `timestamptz` column (a `Date` from either driver) decoded straight to the contract's ISO 8601
 * string, so a row Schema can reuse a bridge record's fields instead of restating them with `Date`.
 */
export const IsoTimestamp = Schema.transform(Schema.DateFromSelf, Schema.String, {
  strict: true,
  decode: (date) => date.toISOString(),
  encode: (iso) => new Date(iso)
})
