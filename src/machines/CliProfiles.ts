import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import type { Principal } from "../platform/auth/Principal.js"
import { AvailableCli, CliPath, type CliProfile, PathKind } from "../../catalog/domain/CliProfile.js"
import { Forbidden, NotFound } from "../../catalog/domain/Errors.js"
import { CliPathId, CliProfileId, type ProjectId } from "../../catalog/domain/Ids.js"
import { TrellisConfig } from "../platform/TrellisConfig.js"
import type { RegisterPayload } from "../../catalog/bridge/AgentApi.js"

/** A profile as its CLI registers it: the contract's payload, without what belongs to the session. */
export type ProfileInput = Omit<typeof RegisterPayload.Type, "machineId" | "force">

const ProfileRow = Schema.Struct({
  id: CliProfileId,
  userId: Schema.String,
  projectId: Schema.String,
  name: Schema.String,
  hostname: Schema.String,
  appVersion: Schema.String,
  availableClis: Schema.Array(AvailableCli),
  lastConnectedAt: Schema.NullOr(Schema.DateFromSelf),
  isOnline: Schema.Boolean
})
type ProfileRow = typeof ProfileRow.Type

const PathRow = Schema.Struct({
  profileId: CliProfileId,
  pathId: CliPathId,
  path: Schema.String,
  label: Schema.String,
  gitRemoteUrl: Schema.NullOr(Schema.String),
  kind: PathKind,
  parentPathId: Schema.NullOr(CliPathId),
  branch: Schema.NullOr(Schema.String)
})

const decodeProfiles = Schema.decodeUnknown(Schema.Array(ProfileRow))
const decodePathIds = Schema.decodeUnknown(Schema.Array(Schema.Struct({ id: CliPathId })))
const decodePaths = Schema.decodeUnknown(Schema.Array(PathRow))

const lastSegment = (path: string): string => path.split("/").filter((p) => p !== "").at(-1) ?? path

/** CLI profiles (one machine's CLI serving one project) and their checkout and worktree paths. */
export class CliProfiles extends Effect.Service<CliProfiles>()("trellis/CliProfiles", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* TrellisConfig
    const ttlSeconds = config.bridge.sessionTtlMs / 1000

    const profileRows = (where: ReturnType<typeof sql.and>) =>
      sql`
        SELECT p.id, p.user_id AS "userId", p.project_id AS "projectId", p.name, p.hostname,
          p.app_version AS "appVersion", p.available_clis AS "availableClis", p.last_connected_at AS "lastConnectedAt",
          EXISTS (SELECT 1 FROM agent_sessions s WHERE s.profile_id = p.id AND s.ended_at IS NULL
            AND s.last_heartbeat_at > now() - make_interval(secs => ${ttlSeconds})) AS "isOnline"
        FROM cli_profiles p WHERE ${where} ORDER BY p.name, p.id`.pipe(Effect.flatMap(decodeProfiles), Effect.orDie)

    const pathsOf = (profileIds: ReadonlyArray<string>) =>
      profileIds.length === 0
        ? Effect.succeed([])
        : sql`
          SELECT profile_id AS "profileId", id AS "pathId", path, label, git_remote_url AS "gitRemoteUrl", kind,
            parent_path_id AS "parentPathId", branch
          FROM cli_paths WHERE ${sql.in("profile_id", profileIds)} AND removed_at IS NULL
          ORDER BY kind, path`.pipe(Effect.flatMap(decodePaths), Effect.orDie)

    const withPaths = (rows: ReadonlyArray<ProfileRow>) =>
      Effect.map(pathsOf(rows.map((r) => r.id)), (paths): ReadonlyArray<CliProfile> =>
        rows.map((row) => ({
          profileId: row.id,
          projectId: row.projectId,
          name: row.name,
          hostname: row.hostname,
          appVersion: row.appVersion,
          availableClis: row.availableClis,
          paths: paths.filter((p) => p.profileId === row.id).map(({ profileId: _, ...path }) => path),
          isOnline: row.isOnline,
          lastConnectedAt: row.lastConnectedAt?.toISOString() ?? null
        })))

    /** The caller's own profiles serving a project: another user's profile is never listed. */
    const listOwn = Effect.fn("CliProfiles.listOwn")(function*(principal: Principal, projectId: ProjectId) {
      const rows = yield* profileRows(sql.and([sql`p.user_id = ${principal.userId}`, sql`p.project_id = ${projectId}`]))
      return yield* withPaths(rows)
    })

    /** One of the caller's profiles; someone else's reads as not found. */
    const getOwn = Effect.fn("CliProfiles.getOwn")(function*(principal: Principal, profileId: string, field = "profileId") {
      const rows = yield* profileRows(sql.and([sql`p.id = ${profileId}`, sql`p.user_id = ${principal.userId}`]))
      const [profile] = yield* withPaths(rows)
      if (profile === undefined) return yield* new NotFound({ message: `${field}: CLI profile ${profileId} not found` })
      return profile
    })

    const ownerOf = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ userId: Schema.String, projectId: Schema.String }),
      execute: (profileId) => sql`SELECT user_id AS "userId", project_id AS "projectId" FROM cli_profiles WHERE id = ${profileId}`
    })

    /** Creates the profile or updates the caller's existing one, and brings its checkout paths up to date. */
    const upsert = Effect.fn("CliProfiles.upsert")(function*(principal: Principal, input: ProfileInput) {
      const clis = JSON.stringify(input.availableClis)
      let profileId: CliProfileId
      if (input.profileId !== undefined) {
        const row = Option.getOrUndefined(yield* ownerOf(input.profileId).pipe(Effect.orDie))
        if (row === undefined || row.userId !== principal.userId) {
          return yield* new NotFound({ message: `profileId: CLI profile ${input.profileId} not found` })
        }
        if (row.projectId !== input.projectId) {
          return yield* new Forbidden({
            message: `projectId: profile ${input.profileId} serves project ${row.projectId}; a profile serves one project`
          })
        }
        profileId = input.profileId
        yield* sql`
          UPDATE cli_profiles SET name = ${input.name}, hostname = ${input.hostname}, app_version = ${input.appVersion},
            available_clis = ${clis}::jsonb, last_connected_at = now(), updated_at = now()
          WHERE id = ${profileId}`.pipe(Effect.orDie)
      } else {
        profileId = CliProfileId.generate()
        yield* sql`
          INSERT INTO cli_profiles (id, user_id, project_id, name, hostname, app_version, available_clis, last_connected_at)
          VALUES (${profileId}, ${principal.userId}, ${input.projectId}, ${input.name}, ${input.hostname},
            ${input.appVersion}, ${clis}::jsonb, now())`.pipe(Effect.orDie)
      }
      // Paths keep their IDs across registrations (matched by path); checkouts no longer reported are retired.
      for (const path of input.paths) {
        yield* sql`
          INSERT INTO cli_paths (id, profile_id, path, label, git_remote_url, kind, branch)
          VALUES (${CliPathId.generate()}, ${profileId}, ${path.path}, ${path.label ?? lastSegment(path.path)},
            ${path.gitRemoteUrl ?? null}, 'checkout', ${path.branch ?? null})
          ON CONFLICT (profile_id, path) DO UPDATE SET label = EXCLUDED.label, git_remote_url = EXCLUDED.git_remote_url,
            branch = EXCLUDED.branch, removed_at = NULL`.pipe(Effect.orDie)
      }
      const reported = input.paths.map((p) => p.path)
      yield* sql`
        UPDATE cli_paths SET removed_at = now()
        WHERE profile_id = ${profileId} AND kind = 'checkout' AND removed_at IS NULL
          ${reported.length === 0 ? sql`` : sql`AND NOT ${sql.in("path", reported)}`}`.pipe(Effect.orDie)
      return profileId
    })

    /** Records a worktree the CLI created for a thread, under its parent checkout. */
    const addWorktree = Effect.fn("CliProfiles.addWorktree")(function*(
      profileId: string,
      input: { readonly path: string; readonly branch: string; readonly parentPathId: string }
    ) {
      const pathId = CliPathId.generate()
      const rows = yield* sql`
        INSERT INTO cli_paths (id, profile_id, path, label, kind, parent_path_id, branch)
        VALUES (${pathId}, ${profileId}, ${input.path}, ${lastSegment(input.path)}, 'worktree', ${input.parentPathId}, ${input.branch})
        ON CONFLICT (profile_id, path) DO UPDATE SET kind = 'worktree', parent_path_id = EXCLUDED.parent_path_id,
          branch = EXCLUDED.branch, removed_at = NULL
        RETURNING id`.pipe(Effect.flatMap(decodePathIds), Effect.orDie)
      // A path already recorded keeps its ID: the one returned, not the one generated here.
      return rows[0]?.id ?? pathId
    })

    const path = Effect.fn("CliProfiles.path")(function*(profileId: string, pathId: string) {
      const rows = yield* sql`
        SELECT profile_id AS "profileId", id AS "pathId", path, label, git_remote_url AS "gitRemoteUrl", kind,
          parent_path_id AS "parentPathId", branch
        FROM cli_paths WHERE id = ${pathId} AND profile_id = ${profileId} AND removed_at IS NULL`.pipe(
        Effect.flatMap(decodePaths),
        Effect.orDie
      )
      const [row] = rows
      if (row === undefined) return undefined
      const { profileId: _, ...path } = row
      return path satisfies CliPath
    })

    return { listOwn, getOwn, upsert, addWorktree, path } as const
  })
}) {}
