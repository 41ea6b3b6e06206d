import { Data } from "effect"

/** A request body past the route's limit (answered 413). */
export class BodyTooLarge extends Data.TaggedError("BodyTooLarge") {}

/** A request body that could not be read (the client went away, a broken stream). */
export class BodyUnreadable extends Data.TaggedError("BodyUnreadable")<{ readonly cause: unknown }> {}
