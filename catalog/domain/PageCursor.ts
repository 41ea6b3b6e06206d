import { Either, Schema } from "effect"
import { InvalidArgument } from "./Errors.js"

/**
 * The opaque `cursor` of a paginated tool: base64url JSON of `{ list, after }`, where `list`
 * names the tool that issued it and `after` is the last row's sort key. Decoding checks both
 * against a Schema, so a cursor of another list, a truncated one or one with wrong types is
 * `invalid_argument` naming `cursor` before any SQL runs.
 */
export interface PageCursor<Position> {
  /** `null` for the first page (no cursor given). */
  readonly decode: (cursor: string | null | undefined) => Either.Either<Position | null, InvalidArgument>
  readonly encode: (position: Position) => string
}

export const make = <Position, Encoded>(list: string, position: Schema.Schema<Position, Encoded>): PageCursor<Position> => {
  const cursor = Schema.compose(
    Schema.StringFromBase64Url,
    Schema.parseJson(Schema.Struct({ list: Schema.Literal(list), after: position }))
  )
  const decode = Schema.decodeUnknownEither(cursor)
  const encode = Schema.encodeSync(cursor)
  const refused = () => new InvalidArgument({ message: `cursor: not a cursor returned by ${list} (pass nextCursor as is)` })
  return {
    decode: (given) =>
      given === null || given === undefined
        ? Either.right(null)
        : Either.mapBoth(decode(given), { onLeft: refused, onRight: (decoded) => decoded.after }),
    encode: (after) => encode({ list, after })
  }
}
