import { Either } from "effect"
import { InvalidArgument } from "./Errors.js"

/** A display name as stored: trimmed, non-empty and at most `maxLength` characters. */
export const validateName = (field: string, raw: string, maxLength: number): Either.Either<string, InvalidArgument> => {
  const name = raw.trim()
  if (name === "") return Either.left(new InvalidArgument({ message: `${field}: must not be empty or blank` }))
  if (name.length > maxLength) {
    return Either.left(new InvalidArgument({ message: `${field}: must be at most ${maxLength} characters (got ${name.length})` }))
  }
  return Either.right(name)
}
