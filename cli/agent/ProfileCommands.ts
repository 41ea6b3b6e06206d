import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Config, Console, Effect, Option } from "effect"
import { login } from "./Login.js"
import { maskApiKey, type Profile, type ProfilePath, Profiles } from "./Profiles.js"

// ---- Output -----------------------------------------------------------------------------------

const json = Options.boolean("json").pipe(Options.withDescription("Print machine-readable JSON"))

const profileOption = Options.text("profile").pipe(
  Options.withDescription(
    "The profile to use; default: TRELLIS_PROFILE, then the profile of the current directory, then the default profile"
  ),
  Options.optional
)

type Printable = { readonly json: unknown; readonly text: string }

/** Runs an action with the profiles store, printing its result, or its error with exit code 1. */
const run = <E extends { readonly message: string }>(
  asJson: boolean,
  action: Effect.Effect<Printable, E, Profiles>
) =>
  action.pipe(
    Effect.provide(Profiles.Default),
    Effect.matchEffect({
      onSuccess: (out) => Console.log(asJson ? JSON.stringify(out.json, null, 2) : out.text),
      onFailure: (error) =>
        Effect.zipRight(
          asJson ? Console.error(JSON.stringify({ error: { message: error.message } })) : Console.error(`error: ${error.message}`),
          Effect.sync(() => {
            process.exitCode = 1
          })
        )
    })
  )

/** A profile as it may be shown: the API key masked. */
export const profileJson = (name: string, profile: Profile, isDefault: boolean) => ({
  name,
  default: isDefault,
  server: profile.server,
  projectId: profile.projectId,
  projectRef: profile.projectRef ?? null,
  machineName: profile.machineName,
  profileId: profile.profileId ?? null,
  apiKey: maskApiKey(profile.apiKey),
  pathCount: profile.paths.length
})

const table = (rows: ReadonlyArray<ReadonlyArray<string>>) => {
  const widths = rows.reduce<Array<number>>(
    (acc, row) => row.map((cell, i) => Math.max(acc[i] ?? 0, cell.length)),
    []
  )
  return rows.map((row) => row.map((cell, i) => i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)).join("  ").trimEnd()).join("\n")
}

const pathRow = (entry: ProfilePath) => [
  entry.kind,
  entry.path,
  `(${entry.label})`,
  entry.branch ?? "(detached)",
  entry.gitRemoteUrl ?? "(no origin)",
  entry.parentPath === null ? "" : `worktree of ${entry.parentPath}`
]

const describeSource = { flag: "--profile", env: "TRELLIS_PROFILE", path: "the current directory", default: "the default profile" } as const

/** The profile a paths command works on: `--profile`, else the usual resolution from the current directory. */
const targetProfile = (flag: Option.Option<string>) => Effect.flatMap(Profiles, (profiles) => profiles.resolve(flag, process.cwd()))

// ---- Commands ---------------------------------------------------------------------------------

const loginCommand = Command.make("login", {
  json,
  server: Options.text("server").pipe(Options.withDescription("The Trellis server's base URL, e.g. https://trellis.example.com")),
  apiKey: Options.redacted("api-key").pipe(
    Options.withDescription("An API key (trellis_…); TRELLIS_API_KEY keeps it out of the shell history"),
    Options.withFallbackConfig(Config.redacted("TRELLIS_API_KEY"))
  ),
  project: Options.text("project").pipe(Options.withDescription("The project this machine serves: its ID (proj_…) or ref")),
  name: Options.text("name").pipe(Options.withDescription("The profile's name; default: the project ref in lower case"), Options.optional),
  machineName: Options.text("machine-name").pipe(
    Options.withDescription("How this machine is shown in Trellis; default: the hostname"),
    Options.optional
  )
}, (args) =>
  run(
    args.json,
    Effect.gen(function*() {
      const result = yield* login({
        server: args.server,
        apiKey: args.apiKey,
        project: args.project,
        name: args.name,
        machineName: args.machineName
      })
      const { name, profile, isDefault } = result
      return {
        json: profileJson(name, profile, isDefault),
        text: `${result.updated ? "Updated" : "Saved"} profile ${name}: project ${profile.projectRef ?? profile.projectId} ` +
          `(${profile.projectId}) on ${profile.server}, key ${maskApiKey(profile.apiKey)}` +
          (isDefault ? "\nIt is the default profile." : `\nMake it the default with: trellis agent profiles use ${name}`)
      }
    })
  )).pipe(Command.withDescription("Verify an API key against a Trellis server and save a profile for one of its projects"))

const profilesList = Command.make("list", { json }, (args) =>
  run(
    args.json,
    Effect.gen(function*() {
      const profiles = yield* Profiles
      const entries = yield* profiles.list
      const rows = entries.map(({ name, profile, isDefault }) => [
        isDefault ? "*" : " ",
        name,
        profile.server,
        profile.projectRef === undefined ? profile.projectId : `${profile.projectRef} (${profile.projectId})`,
        `${profile.paths.length} path${profile.paths.length === 1 ? "" : "s"}`
      ])
      return {
        json: {
          file: profiles.file,
          defaultProfile: entries.find((entry) => entry.isDefault)?.name ?? null,
          profiles: entries.map(({ name, profile, isDefault }) => profileJson(name, profile, isDefault))
        },
        text: rows.length === 0 ? "No profiles. Create one with: trellis agent login" : table(rows)
      }
    })
  )).pipe(Command.withDescription("List the saved profiles (* marks the default)"))

const nameArg = Args.text({ name: "name" }).pipe(Args.withDescription("The profile's name"))

const profilesUse = Command.make("use", { json, name: nameArg }, (args) =>
  run(
    args.json,
    Effect.gen(function*() {
      yield* (yield* Profiles).setDefault(args.name)
      return { json: { defaultProfile: args.name }, text: `The default profile is now ${args.name}` }
    })
  )).pipe(Command.withDescription("Make a profile the default"))

const profilesRemove = Command.make("remove", { json, name: nameArg }, (args) =>
  run(
    args.json,
    Effect.gen(function*() {
      const profiles = yield* Profiles
      const wasDefault = (yield* profiles.defaultProfile) === args.name
      yield* profiles.remove(args.name)
      return {
        json: { removed: args.name, wasDefault },
        text: `Removed profile ${args.name}` +
          (wasDefault ? "; it was the default, so there is no default now (set one with: trellis agent profiles use NAME)" : "")
      }
    })
  )).pipe(Command.withDescription("Delete a saved profile"))

const pathsAdd = Command.make("add", {
  json,
  profile: profileOption,
  label: Options.text("label").pipe(Options.withDescription("A label for the checkout; default: its directory name"), Options.optional),
  dir: Args.text({ name: "dir" }).pipe(
    Args.withDescription("A directory inside a git working tree; default: the current directory"),
    Args.optional
  )
}, (args) =>
  run(
    args.json,
    Effect.gen(function*() {
      const target = yield* targetProfile(args.profile)
      const dir = Option.getOrElse(args.dir, () => process.cwd())
      const added = yield* (yield* Profiles).addPath(target.name, dir, Option.getOrUndefined(args.label))
      return {
        json: { profile: target.name, paths: added },
        text: `Registered to profile ${target.name} (chosen by ${describeSource[target.source]}):\n${table(added.map(pathRow))}`
      }
    })
  )).pipe(Command.withDescription("Register a git checkout (its repository root) and its worktrees to a profile"))

const pathsList = Command.make("list", { json, profile: profileOption }, (args) =>
  run(
    args.json,
    Effect.gen(function*() {
      const target = yield* targetProfile(args.profile)
      const paths = target.profile.paths
      return {
        json: { profile: target.name, paths },
        text: paths.length === 0
          ? `Profile ${target.name} has no paths. Register one with: trellis agent paths add [DIR]`
          : `Paths of profile ${target.name}:\n${table(paths.map(pathRow))}`
      }
    })
  )).pipe(Command.withDescription("List the paths registered to a profile"))

const pathsRemove = Command.make("remove", {
  json,
  profile: profileOption,
  dir: Args.text({ name: "dir" }).pipe(Args.withDescription("A registered path; removing a checkout removes its worktrees"))
}, (args) =>
  run(
    args.json,
    Effect.gen(function*() {
      const target = yield* targetProfile(args.profile)
      const removed = yield* (yield* Profiles).removePath(target.name, args.dir)
      return {
        json: { profile: target.name, removed },
        text: `Removed from profile ${target.name}:\n${table(removed.map(pathRow))}`
      }
    })
  )).pipe(Command.withDescription("Unregister a path from a profile"))

const profilesCommand = Command.make("profiles").pipe(
  Command.withDescription("List, choose the default of, and remove saved profiles"),
  Command.withSubcommands([profilesList, profilesUse, profilesRemove])
)

const pathsCommand = Command.make("paths").pipe(
  Command.withDescription("The local checkouts a profile serves"),
  Command.withSubcommands([pathsAdd, pathsList, pathsRemove])
)

/** `login`, `profiles list|use|remove` and `paths add|list|remove`, to mount under `trellis agent`. */
export const agentProfileCommands = [loginCommand, profilesCommand, pathsCommand] as const
