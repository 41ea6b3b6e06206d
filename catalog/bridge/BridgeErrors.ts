import { Schema } from "effect"

/** Another live CLI session already serves this profile; `force=true` takes over. */
export class SessionConflict extends Schema.TaggedError<SessionConflict>()("SessionConflict", {
  message: Schema.String,
  sessionId: Schema.String
}) {}

/** The session was ended or went silent for too long: the CLI must register again. */
export class SessionExpired extends Schema.TaggedError<SessionExpired>()("SessionExpired", {
  message: Schema.String,
  action: Schema.Literal("register")
}) {}

/**
 * Fencing: the write carries a claim epoch older than the thread's current claim (or the claim
 * is gone). Nothing was changed; the CLI must stop working on the thread.
 */
export class ClaimLost extends Schema.TaggedError<ClaimLost>()("ClaimLost", {
  message: Schema.String,
  threadId: Schema.String,
  currentEpoch: Schema.Number
}) {}
