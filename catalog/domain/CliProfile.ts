import { Schema } from "effect"
import { CliType } from "./CliType.js"
import { CliPathId, CliProfileId } from "./Ids.js"

export const CliModel = Schema.Struct({
  model: Schema.String.pipe(Schema.minLength(1)),
  efforts: Schema.optionalWith(Schema.Array(Schema.String), { exact: true })
})

export const AvailableCli = Schema.Struct({
  type: CliType,
  version: Schema.String,
  provider: Schema.optionalWith(Schema.String, { exact: true }),
  cliModels: Schema.optionalWith(Schema.Array(CliModel), { exact: true })
})
export type AvailableCli = typeof AvailableCli.Type

export const PathKind = Schema.Literal("checkout", "worktree")
export type PathKind = typeof PathKind.Type

export const CliPath = Schema.Struct({
  pathId: CliPathId,
  path: Schema.String,
  label: Schema.String,
  gitRemoteUrl: Schema.NullOr(Schema.String),
  kind: PathKind,
  parentPathId: Schema.NullOr(CliPathId),
  branch: Schema.NullOr(Schema.String)
}).annotations({ identifier: "CliPath" })
export type CliPath = typeof CliPath.Type

export const CliProfile = Schema.Struct({
  profileId: CliProfileId,
  projectId: Schema.String,
  name: Schema.String,
  hostname: Schema.String,
  appVersion: Schema.String,
  availableClis: Schema.Array(AvailableCli),
  paths: Schema.Array(CliPath),
  isOnline: Schema.Boolean.annotations({ description: "A CLI session for this profile is live (heartbeat within 60 s)" }),
  lastConnectedAt: Schema.NullOr(Schema.String).annotations({ description: "ISO 8601 timestamp" })
}).annotations({ identifier: "CliProfile" })
export type CliProfile = typeof CliProfile.Type
