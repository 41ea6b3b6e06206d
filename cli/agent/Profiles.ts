import * as FileSystem from "@effect/platform/FileSystem"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { Config, Context, Effect, Layer, Option, ParseResult, Redacted, Schema } from "effect"
import { randomBytes } from "node:crypto"
import * as os from "node:os"
import * as path from "node:path"
import { PathKind } from "../../catalog/domain/CliProfile.js"
import { type CliProfileId, CliProfileId as CliProfileIdSchema, ProjectId } from "../../catalog/domain/Ids.js"
import { Git } from "./Git.js"

// ---- Schemas ----------------------------------------------------------------------------------

export const ProfileName = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, {
    message: () => "a profile name is 1–64 letters, digits, '.', '_' or '-', starting with a letter or digit"
  })
)

/** Why `server` is not a Trellis server URL, or none when it is one (http(s), no trailing slash). */
const serverUrlProblem = (server: string): Option.Option<string> => {
  if (!URL.canParse(server)) return Option.some(`${server} is not a URL (for example https://trellis.example.com)`)
  const url = new URL(server)
  if (url.protocol !== "https:" && url.protocol !== "http:") return Option.some(`${server}: only http and https are supported`)
  if (url.username !== "" || url.password !== "") return Option.some(`${server}: the URL must not carry credentials`)
  if (url.search !== "" || url.hash !== "") return Option.some(`${server}: the URL must not have a query or fragment`)
  if (server.endsWith("/")) return Option.some(`${server}: the URL must not end with a slash`)
  return Option.none()
}

/** A server's base URL as given by a person: trimmed, trailing slashes dropped, then checked. */
export const normalizeServerUrl = (input: string): Effect.Effect<string, InvalidProfile> => {
  const server = input.trim().replace(/\/+$/, "")
  return Option.match(serverUrlProblem(server), {
    onNone: () => Effect.succeed(server),
    onSome: (message) => Effect.fail(new InvalidProfile({ message: `server: ${message}` }))
  })
}

export const ServerUrl = Schema.String.pipe(
  Schema.filter((server) => Option.getOrUndefined(serverUrlProblem(server)) ?? true),
  Schema.annotations({ description: "The server's base URL, without a trailing slash" })
)

const AbsolutePath = Schema.String.pipe(
  Schema.filter((p) => path.isAbsolute(p) || `${p} is not an absolute path`)
)

export const ProfilePath = Schema.Struct({
  path: AbsolutePath,
  label: Schema.String,
  gitRemoteUrl: Schema.NullOr(Schema.String),
  branch: Schema.NullOr(Schema.String),
  kind: PathKind,
  /** For a worktree, the main worktree (a checkout of the same profile); null for a checkout. */
  parentPath: Schema.NullOr(AbsolutePath)
})
export type ProfilePath = typeof ProfilePath.Type

export const Profile = Schema.Struct({
  server: ServerUrl,
  /** Held as `Redacted` so that printing a profile never shows it; `Redacted.value` reads it. */
  apiKey: Schema.Redacted(Schema.String),
  projectId: ProjectId,
  projectRef: Schema.optionalWith(Schema.String, { exact: true }),
  machineName: Schema.optionalWith(Schema.String.pipe(Schema.minLength(1)), { default: () => os.hostname() }),
  /** Set by the bridge after its first registration, so later ones keep the same server-side profile. */
  profileId: Schema.optionalWith(CliProfileIdSchema, { exact: true }),
  paths: Schema.optionalWith(Schema.Array(ProfilePath), { default: () => [] })
})
export type Profile = typeof Profile.Type

export const ProfilesFile = Schema.Struct({
  version: Schema.Literal(1),
  defaultProfile: Schema.NullOr(ProfileName),
  profiles: Schema.Record({ key: ProfileName, value: Profile })
})
export type ProfilesFile = typeof ProfilesFile.Type

const ProfilesJson = Schema.parseJson(ProfilesFile, { space: 2 })
const decodeFile = Schema.decode(ProfilesJson)
const encodeFile = Schema.encode(ProfilesJson)

const EMPTY: ProfilesFile = { version: 1, defaultProfile: null, profiles: {} }

// ---- Errors -----------------------------------------------------------------------------------

/** The profiles file cannot be read, is not a valid profiles file, or cannot be written. */
export class ProfilesFileError extends Schema.TaggedError<ProfilesFileError>()("ProfilesFileError", {
  file: Schema.String,
  message: Schema.String
}) {}

export class ProfileNotFound extends Schema.TaggedError<ProfileNotFound>()("ProfileNotFound", {
  name: Schema.String,
  message: Schema.String
}) {}

/** No rule of the resolution order picked a profile. */
export class NoProfileResolved extends Schema.TaggedError<NoProfileResolved>()("NoProfileResolved", {
  message: Schema.String
}) {}

export class InvalidProfile extends Schema.TaggedError<InvalidProfile>()("InvalidProfile", { message: Schema.String }) {}

export class PathNotFound extends Schema.TaggedError<PathNotFound>()("PathNotFound", {
  path: Schema.String,
  message: Schema.String
}) {}

export class PathNotRegistered extends Schema.TaggedError<PathNotRegistered>()("PathNotRegistered", {
  path: Schema.String,
  message: Schema.String
}) {}

// ---- Helpers ----------------------------------------------------------------------------------

/** How an API key may be shown: `trellis_…` and its last four characters. */
export const maskApiKey = (key: string | Redacted.Redacted<string>): string => {
  const secret = typeof key === "string" ? key : Redacted.value(key)
  const prefix = secret.startsWith("trellis_") ? "trellis_" : ""
  return secret.length - prefix.length >= 16 ? `${prefix}…${secret.slice(-4)}` : `${prefix}…`
}

/** Where the profiles live unless told otherwise: `TRELLIS_CONFIG_DIR`, else `~/.config/trellis`. */
export const defaultConfigDir = Config.string("TRELLIS_CONFIG_DIR").pipe(
  Config.option,
  Config.map(Option.filter((dir) => dir.trim() !== "")),
  Config.map(Option.match({
    onNone: () => path.join(os.homedir(), ".config", "trellis"),
    onSome: (dir) => path.resolve(dir)
  }))
)

const envProfile = Config.string("TRELLIS_PROFILE").pipe(
  Config.option,
  Config.map(Option.filter((name) => name.trim() !== "")),
  Effect.orDie
)

const lookup = (data: ProfilesFile, name: string): Profile | undefined =>
  Object.hasOwn(data.profiles, name) ? data.profiles[name] : undefined

const containsPath = (dir: string, candidate: string) =>
  candidate === dir || candidate.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep)

const knownProfiles = (data: ProfilesFile) => {
  const names = Object.keys(data.profiles).sort()
  return names.length === 0 ? "there are no profiles yet: run `trellis agent login` first" : `profiles: ${names.join(", ")}`
}

/** The four ways SPEC gives to choose a profile, in the order they are tried. */
export const RESOLUTION_ORDER = [
  "pass --profile NAME",
  "set TRELLIS_PROFILE=NAME",
  "run from a directory registered to a profile (`trellis agent paths add`)",
  "set a default profile (`trellis agent profiles use NAME`)"
] as const

export type ResolutionSource = "flag" | "env" | "path" | "default"

export interface ResolvedProfile {
  readonly name: string
  readonly profile: Profile
  readonly source: ResolutionSource
}

export interface ProfileEntry {
  readonly name: string
  readonly profile: Profile
  readonly isDefault: boolean
}

// ---- Service ----------------------------------------------------------------------------------

/** Where the profiles file lives. */
export class ProfilesConfig extends Context.Tag("trellis/cli/ProfilesConfig")<ProfilesConfig, {
  readonly configDir: string
}>() {
  /** `TRELLIS_CONFIG_DIR`, else `~/.config/trellis`. */
  static readonly fromEnv = Layer.effect(ProfilesConfig, Effect.map(Effect.orDie(defaultConfigDir), (configDir) => ({ configDir })))
}

/**
 * The local CLI's saved profiles (`profiles.json`, mode 0600) and the resolution of the one to use.
 * `Profiles.Default` keeps them in `TRELLIS_CONFIG_DIR` (else `~/.config/trellis`); `Profiles.layer({ configDir })` elsewhere.
 */
export class Profiles extends Effect.Service<Profiles>()("trellis/cli/Profiles", {
  effect: Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const git = yield* Git
    const { configDir } = yield* ProfilesConfig
    const file = path.join(configDir, "profiles.json")
    const lock = yield* Effect.makeSemaphore(1)

    const fileError = (what: string) => (error: { readonly message: string }) =>
      new ProfilesFileError({ file, message: `${what} ${file}: ${error.message}` })

    const read: Effect.Effect<ProfilesFile, ProfilesFileError> = Effect.gen(function*() {
      if (!(yield* fs.exists(file).pipe(Effect.mapError(fileError("cannot read"))))) return EMPTY
      const text = yield* fs.readFileString(file).pipe(Effect.mapError(fileError("cannot read")))
      return yield* decodeFile(text).pipe(
        Effect.mapError((error) =>
          new ProfilesFileError({
            file,
            message: `${file} is not a valid Trellis profiles file; fix or remove it (it is never overwritten):\n` +
              ParseResult.TreeFormatter.formatErrorSync(error)
          })
        )
      )
    })

    /** Creates the directory (0700) if needed, writes a temp file (0600), syncs it, renames it over the file. */
    const write = (data: ProfilesFile): Effect.Effect<void, ProfilesFileError> =>
      Effect.gen(function*() {
        const text = yield* encodeFile(data).pipe(
          Effect.mapError((error) =>
            new ProfilesFileError({
              file,
              message: `refusing to write an invalid ${file}: ${ParseResult.TreeFormatter.formatErrorSync(error)}`
            })
          )
        )
        // A directory that already exists keeps its mode: it may be one the user chose with TRELLIS_CONFIG_DIR.
        if (!(yield* fs.exists(configDir).pipe(Effect.mapError(fileError("cannot create the directory of"))))) {
          yield* fs.makeDirectory(path.dirname(configDir), { recursive: true }).pipe(
            Effect.zipRight(
              fs.makeDirectory(configDir, { mode: 0o700 }).pipe(
                Effect.zipRight(fs.chmod(configDir, 0o700)),
                // Another process created it meanwhile.
                Effect.catchIf((error) => error._tag === "SystemError" && error.reason === "AlreadyExists", () => Effect.void)
              )
            ),
            Effect.mapError(fileError("cannot create the directory of"))
          )
        }
        const temp = path.join(configDir, `.profiles.json.${process.pid}.${randomBytes(6).toString("hex")}.tmp`)
        yield* Effect.scoped(Effect.gen(function*() {
          const handle = yield* fs.open(temp, { flag: "wx", mode: 0o600 })
          yield* handle.writeAll(new TextEncoder().encode(text + "\n"))
          yield* handle.sync
        })).pipe(
          Effect.zipRight(fs.chmod(temp, 0o600)),
          Effect.zipRight(fs.rename(temp, file)),
          Effect.tapError(() => fs.remove(temp).pipe(Effect.ignore)),
          Effect.mapError(fileError("cannot write"))
        )
      })

    /** Read, change and write the file as one step of this process. */
    const update = <A, E>(change: (data: ProfilesFile) => Effect.Effect<readonly [A, ProfilesFile], E>) =>
      lock.withPermits(1)(Effect.gen(function*() {
        const [result, next] = yield* change(yield* read)
        yield* write(next)
        return result
      }))

    const notFound = (data: ProfilesFile, name: string, via = "") =>
      new ProfileNotFound({ name, message: `profile ${name}${via} does not exist; ${knownProfiles(data)}` })

    const existing = (data: ProfilesFile, name: string) => {
      const profile = lookup(data, name)
      return profile === undefined ? Effect.fail(notFound(data, name)) : Effect.succeed(profile)
    }

    const withProfile = (data: ProfilesFile, name: string, profile: Profile): ProfilesFile => ({
      ...data,
      profiles: { ...data.profiles, [name]: profile }
    })

    /** The real path of a directory (symlinks resolved), or PathNotFound. */
    const realDirectory = (dir: string) =>
      fs.realPath(path.resolve(dir)).pipe(
        Effect.flatMap((real) => Effect.map(fs.stat(real), (info) => ({ real, info }))),
        Effect.mapError(() => new PathNotFound({ path: dir, message: `${dir} does not exist` })),
        Effect.filterOrFail(
          ({ info }) => info.type === "Directory",
          () => new PathNotFound({ path: dir, message: `${dir} is not a directory` })
        ),
        Effect.map(({ real }) => real)
      )

    /** The real path when it exists, else the absolute one (a deleted directory can still be named). */
    const realOrAbsolute = (p: string) => fs.realPath(path.resolve(p)).pipe(Effect.orElseSucceed(() => path.resolve(p)))

    // ---- API ----

    const list = Effect.map(read, (data): ReadonlyArray<ProfileEntry> =>
      Object.keys(data.profiles).sort().flatMap((name) => {
        const profile = lookup(data, name)
        return profile === undefined ? [] : [{ name, profile, isDefault: data.defaultProfile === name }]
      }))

    const get = Effect.fn("Profiles.get")(function*(name: string) {
      return yield* existing(yield* read, name)
    })

    const defaultProfile = Effect.map(read, (data) => data.defaultProfile)

    const save = Effect.fn("Profiles.save")(function*(name: string, profile: Profile) {
      yield* Schema.decodeUnknown(ProfileName)(name).pipe(
        Effect.mapError((error) =>
          new InvalidProfile({ message: `profile name ${name}: ${ParseResult.TreeFormatter.formatErrorSync(error)}` })
        )
      )
      const valid = yield* Schema.validate(Profile)(profile).pipe(
        Effect.mapError((error) => new InvalidProfile({ message: `profile ${name}: ${ParseResult.TreeFormatter.formatErrorSync(error)}` }))
      )
      yield* update((data) => Effect.succeed([undefined, withProfile(data, name, valid)] as const))
    })

    const remove = Effect.fn("Profiles.remove")(function*(name: string) {
      yield* update((data) =>
        Effect.map(existing(data, name), () => {
          const profiles = Object.fromEntries(Object.entries(data.profiles).filter(([other]) => other !== name))
          return [undefined, { ...data, profiles, defaultProfile: data.defaultProfile === name ? null : data.defaultProfile }] as const
        })
      )
    })

    const setDefault = Effect.fn("Profiles.setDefault")(function*(name: string) {
      yield* update((data) => Effect.map(existing(data, name), () => [undefined, { ...data, defaultProfile: name }] as const))
    })

    const setProfileId = Effect.fn("Profiles.setProfileId")(function*(name: string, profileId: CliProfileId) {
      yield* update((data) =>
        Effect.map(existing(data, name), (profile) => [undefined, withProfile(data, name, { ...profile, profileId })] as const)
      )
    })

    /**
     * Registers the git working tree containing `dir`: the main worktree as a `checkout` and every
     * other worktree git lists as a `worktree` whose parent is it. Paths already registered are
     * updated (a label given here replaces theirs). Returns the registered entries, checkout first.
     */
    const addPath = Effect.fn("Profiles.addPath")(function*(name: string, dir: string, label?: string) {
      yield* get(name)
      const real = yield* realDirectory(dir)
      const root = yield* realOrAbsolute(yield* git.repoRoot(real))
      const trees = yield* git.worktrees(root)
      const main = trees[0]
      // A bare repository has no main checkout: the working tree the user stands in plays that part.
      const checkoutPath = main !== undefined && !main.bare ? yield* realOrAbsolute(main.path) : root
      const remote = yield* git.remoteUrl(checkoutPath)
      const checkout = {
        path: checkoutPath,
        label,
        gitRemoteUrl: remote,
        branch: yield* git.currentBranch(checkoutPath),
        kind: "checkout" as const,
        parentPath: null
      }
      const others = yield* Effect.forEach(
        trees.filter((tree) => !tree.bare && !tree.prunable),
        (tree) => Effect.map(realOrAbsolute(tree.path), (treePath) => ({ tree, treePath }))
      )
      const worktrees = others
        .filter(({ treePath }) => treePath !== checkoutPath)
        .map(({ tree, treePath }) => ({
          path: treePath,
          label: undefined,
          gitRemoteUrl: remote,
          branch: tree.branch,
          kind: "worktree" as const,
          parentPath: checkoutPath
        }))

      return yield* update((data) =>
        Effect.map(existing(data, name), (profile) => {
          const paths = [...profile.paths]
          const registered: Array<ProfilePath> = []
          for (const found of [checkout, ...worktrees]) {
            const index = paths.findIndex((entry) => entry.path === found.path)
            const entry: ProfilePath = {
              ...found,
              label: found.label ?? paths[index]?.label ?? path.basename(found.path)
            }
            if (index === -1) paths.push(entry)
            else paths[index] = entry
            registered.push(entry)
          }
          return [registered, withProfile(data, name, { ...profile, paths })] as const
        })
      )
    })

    /** Unregisters a path (and, for a checkout, its worktrees). Returns the entries removed. */
    const removePath = Effect.fn("Profiles.removePath")(function*(name: string, target: string) {
      const candidates = new Set([path.resolve(target), yield* realOrAbsolute(target)])
      return yield* update((data) =>
        Effect.flatMap(existing(data, name), (profile) => {
          const named = profile.paths.filter((entry) => candidates.has(entry.path)).map((entry) => entry.path)
          if (named.length === 0) {
            const registered = profile.paths.map((entry) => entry.path).join(", ")
            return Effect.fail(
              new PathNotRegistered({
                path: target,
                message: `${target} is not registered to profile ${name}; ${
                  registered === "" ? "it has no paths" : `its paths: ${registered}`
                }`
              })
            )
          }
          const gone = (entry: ProfilePath) => named.includes(entry.path) || (entry.parentPath !== null && named.includes(entry.parentPath))
          const removed = profile.paths.filter(gone)
          const paths = profile.paths.filter((entry) => !gone(entry))
          return Effect.succeed([removed, withProfile(data, name, { ...profile, paths })] as const)
        })
      )
    })

    /**
     * The profile to use, in SPEC's order: the `--profile` flag, then `TRELLIS_PROFILE`, then the
     * profile with a registered path containing `cwd` (the longest such path wins; on a tie the
     * default profile, else an error), then the default profile.
     */
    const resolve = Effect.fn("Profiles.resolve")(function*(flag: Option.Option<string>, cwd: string) {
      const data = yield* read
      const named = (name: string, source: ResolutionSource, via: string) => {
        const profile = lookup(data, name)
        return profile === undefined
          ? Effect.fail(notFound(data, name, ` (from ${via})`))
          : Effect.succeed<ResolvedProfile>({ name, profile, source })
      }
      if (Option.isSome(flag)) return yield* named(flag.value, "flag", "--profile")
      const env = yield* envProfile
      if (Option.isSome(env)) return yield* named(env.value, "env", "TRELLIS_PROFILE")

      const here = yield* realOrAbsolute(cwd)
      const matches = Object.keys(data.profiles).flatMap((name) =>
        (lookup(data, name)?.paths ?? [])
          .filter((entry) => containsPath(entry.path, here))
          .map((entry) => ({ name, length: entry.path.length }))
      )
      const longest = Math.max(-1, ...matches.map((match) => match.length))
      const best = [...new Set(matches.filter((match) => match.length === longest).map((match) => match.name))].sort()
      const [only] = best
      if (best.length === 1 && only !== undefined) return yield* named(only, "path", "a registered path")
      if (best.length > 1) {
        if (data.defaultProfile !== null && best.includes(data.defaultProfile)) {
          return yield* named(data.defaultProfile, "path", "a registered path")
        }
        return yield* new NoProfileResolved({
          message: `${here} is registered to several profiles (${best.join(", ")}); pass --profile NAME or set TRELLIS_PROFILE=NAME`
        })
      }

      if (data.defaultProfile !== null && lookup(data, data.defaultProfile) !== undefined) {
        return yield* named(data.defaultProfile, "default", "the default profile")
      }
      return yield* new NoProfileResolved({
        message: [
          `no Trellis profile applies to ${here}. Choose one in any of these ways:`,
          ...RESOLUTION_ORDER.map((way, index) => `  ${index + 1}. ${way}`),
          knownProfiles(data)
        ].join("\n")
      })
    })

    return {
      /** The profiles file this service reads and writes. */
      file,
      resolve,
      get,
      list,
      defaultProfile,
      save,
      remove,
      setDefault,
      setProfileId,
      addPath,
      removePath
    } as const
  }),
  dependencies: [ProfilesConfig.fromEnv, Git.Default, NodeFileSystem.layer]
}) {
  /** Profiles kept in `configDir` rather than the environment's directory (tests, embedders). */
  static readonly layer = (options: { readonly configDir: string }) =>
    Profiles.DefaultWithoutDependencies.pipe(
      Layer.provide(Layer.mergeAll(
        Layer.succeed(ProfilesConfig, { configDir: path.resolve(options.configDir) }),
        Git.Default,
        NodeFileSystem.layer
      ))
    )
}
