import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Config, Console, Duration, Effect, Layer, Option, Redacted, Schema } from "effect"
import * as os from "node:os"
import { ProjectId } from "../../catalog/domain/Ids.js"
import {
  InvalidProfile,
  maskApiKey,
  normalizeServerUrl,
  type Profile,
  ProfileName,
  type ProfilePath,
  Profiles
} from "./Profiles.js"

// ---- Login ------------------------------------------------------------------------------------

/** The server refused the key, does not know the project, or could not be reached or understood. */
export class LoginError extends Schema.TaggedError<LoginError>()("LoginError", { message: Schema.String }) {}

export const MCP_PROTOCOL_VERSION = "2025-06-18"

const LOGIN_TIMEOUT = Duration.seconds(30)

export const AccessibleProject = Schema.Struct({
  projectId: ProjectId,
  ref: Schema.String,
  name: Schema.optional(Schema.String)
})
export type AccessibleProject = typeof AccessibleProject.Type

const RpcReply = Schema.Union(
  Schema.Struct({
    result: Schema.Struct({
      isError: Schema.optional(Schema.Boolean),
      structuredContent: Schema.optional(Schema.Unknown),
      content: Schema.optional(Schema.Array(Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String) })))
    })
  }),
  Schema.Struct({ error: Schema.Struct({ code: Schema.Number, message: Schema.String }) })
)
const decodeReply = Schema.decodeUnknown(Schema.parseJson(RpcReply))
const decodeProjects = Schema.decodeUnknown(Schema.Struct({ projects: Schema.Array(AccessibleProject) }))

/** The JSON of an MCP answer, whether sent as JSON or as one server-sent event. */
const replyJson = (body: string, contentType: string) =>
  contentType.includes("text/event-stream")
    ? body.split(/\r?\n/).filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trim()).join("\n")
    : body

/** The server's JSON-RPC error text in a body, when it has one. */
const serverMessage = (body: string) =>
  Schema.decodeUnknownOption(Schema.parseJson(Schema.Struct({ error: Schema.Struct({ message: Schema.String }) })))(body).pipe(
    Option.map((reply) => `: ${reply.error.message}`),
    Option.getOrElse(() => "")
  )

/** The innermost message of an error chain (undici wraps `ECONNREFUSED` in "fetch failed"). */
const rootCause = (cause: unknown): string | undefined => {
  let message: string | undefined
  for (let current = cause, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    message = current.message
  }
  return message
}

/**
 * The projects an API key can access, by calling `list_projects` on the server's MCP endpoint.
 * Fails with a LoginError naming the cause: a refused key (401), an unreachable server, or an answer that is not MCP.
 */
export const listProjects = (server: string, apiKey: Redacted.Redacted<string>) =>
  Effect.gen(function* () {
    const client = yield* HttpClient.HttpClient
    const endpoint = `${server}/api/mcp`
    const request = HttpClientRequest.post(endpoint).pipe(
      HttpClientRequest.setHeaders({
        authorization: `Bearer ${Redacted.value(apiKey)}`,
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": MCP_PROTOCOL_VERSION
      }),
      HttpClientRequest.bodyText(
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_projects", arguments: {} } }),
        "application/json"
      )
    )
    const { status, contentType, body } = yield* client.execute(request).pipe(
      Effect.flatMap((response) =>
        Effect.map(response.text, (body) => ({ status: response.status, contentType: response.headers["content-type"] ?? "", body }))
      ),
      Effect.scoped,
      Effect.timeoutFail({
        duration: LOGIN_TIMEOUT,
        onTimeout: () => new LoginError({ message: `${endpoint} did not answer within ${Duration.format(LOGIN_TIMEOUT)}` })
      }),
      Effect.catchTags({
        RequestError: (error) =>
          Effect.fail(new LoginError({ message: `cannot reach ${endpoint}: ${rootCause(error.cause) ?? error.message}` })),
        ResponseError: (error) => Effect.fail(new LoginError({ message: `cannot read the answer of ${endpoint}: ${error.message}` }))
      })
    )
    if (status === 401) {
      return yield* new LoginError({
        message: `the server rejected the API key ${maskApiKey(apiKey)} (401 Unauthorized${serverMessage(body)}); ` +
          "check the key, or create one with `trellis admin key create`"
      })
    }
    if (status < 200 || status >= 300) {
      return yield* new LoginError({
        message: `${endpoint} answered HTTP ${status}${serverMessage(body)}` +
          (status === 404 ? "; is this the base URL of a Trellis server?" : "")
      })
    }
    const notMcp = () => new LoginError({ message: `${endpoint} did not answer as a Trellis MCP server (HTTP ${status})` })
    const reply = yield* decodeReply(replyJson(body, contentType)).pipe(Effect.mapError(notMcp))
    if ("error" in reply) {
      return yield* new LoginError({ message: `list_projects failed on ${server}: ${reply.error.message} (code ${reply.error.code})` })
    }
    if (reply.result.isError === true) {
      const text = (reply.result.content ?? []).flatMap((part) => part.text === undefined ? [] : [part.text]).join(" ")
      return yield* new LoginError({ message: `list_projects failed on ${server}: ${text}` })
    }
    const { projects } = yield* decodeProjects(reply.result.structuredContent).pipe(Effect.mapError(notMcp))
    return projects
  })

const describeProject = (project: AccessibleProject) => `${project.ref} (${project.projectId})`

/** The project named by an ID (`proj_…`) or a ref (any case) among those the key can access. */
export const findProject = (projects: ReadonlyArray<AccessibleProject>, wanted: string) => {
  const key = wanted.trim()
  const found = key.startsWith("proj_")
    ? projects.find((project) => project.projectId === key)
    : projects.find((project) => project.ref.toUpperCase() === key.toUpperCase())
  if (found !== undefined) return Effect.succeed(found)
  return Effect.fail(new LoginError({
    message: `project ${key} is not one this API key can access; ` +
      (projects.length === 0 ? "it can access no project" : `it can access: ${projects.map(describeProject).join(", ")}`)
  }))
}

export interface LoginInput {
  readonly server: string
  readonly apiKey: Redacted.Redacted<string>
  /** A project ID (`proj_…`) or ref. */
  readonly project: string
  /** The profile's name; default: the project ref in lower case. */
  readonly name: Option.Option<string>
  /** Default: this machine's hostname. */
  readonly machineName: Option.Option<string>
}

export interface LoginResult {
  readonly name: string
  readonly profile: Profile
  readonly isDefault: boolean
  /** An existing profile of the same name, server and project got the new key (its paths are kept). */
  readonly updated: boolean
}

/**
 * Verifies the key and resolves the project against the server, then saves the profile
 * (the default one when there was no default yet). A profile of the same name is updated only
 * when it serves the same server and project.
 */
export const login = (input: LoginInput) =>
  Effect.gen(function* () {
    const profiles = yield* Profiles
    const server = yield* normalizeServerUrl(input.server)
    if (Redacted.value(input.apiKey).trim() === "") return yield* new InvalidProfile({ message: "api-key: the API key is empty" })
    const project = yield* findProject(yield* listProjects(server, input.apiKey), input.project)
    const name = Option.getOrElse(input.name, () => project.ref.toLowerCase())
    yield* Schema.decodeUnknown(ProfileName)(name).pipe(
      Effect.mapError(() => new InvalidProfile({ message: `name: ${name} is not a valid profile name (letters, digits, '.', '_', '-')` }))
    )
    const previous = yield* profiles.get(name).pipe(Effect.option)
    if (Option.isSome(previous) && (previous.value.server !== server || previous.value.projectId !== project.projectId)) {
      const other = previous.value
      return yield* new LoginError({
        message: `profile ${name} already exists for project ${other.projectRef ?? other.projectId} on ${other.server}; ` +
          `pass --name to choose another name, or remove it with \`trellis agent profiles remove ${name}\``
      })
    }
    const profile: Profile = {
      server,
      apiKey: Redacted.make(Redacted.value(input.apiKey).trim()),
      projectId: project.projectId,
      projectRef: project.ref,
      machineName: Option.getOrElse(input.machineName, () => os.hostname()),
      paths: Option.match(previous, { onNone: () => [], onSome: (p) => p.paths }),
      ...Option.match(Option.flatMap(previous, (p) => Option.fromNullable(p.profileId)), {
        onNone: () => ({}),
        onSome: (profileId) => ({ profileId })
      })
    }
    yield* profiles.save(name, profile)
    if ((yield* profiles.defaultProfile) === null) yield* profiles.setDefault(name)
    return { name, profile, isDefault: (yield* profiles.defaultProfile) === name, updated: Option.isSome(previous) } satisfies LoginResult
  })

// ---- Output -----------------------------------------------------------------------------------

const json = Options.boolean("json").pipe(Options.withDescription("Print machine-readable JSON"))

const profileOption = Options.text("profile").pipe(
  Options.withDescription("The profile to use; default: TRELLIS_PROFILE, then the profile of the current directory, then the default profile"),
  Options.optional
)

type Printable = { readonly json: unknown; readonly text: string }

/** Runs an action with the profiles store and an HTTP client, printing its result, or its error with exit code 1. */
const run = <E extends { readonly message: string }>(
  asJson: boolean,
  action: Effect.Effect<Printable, E, Profiles | HttpClient.HttpClient>
) =>
  action.pipe(
    Effect.provide(Layer.mergeAll(Profiles.Default, NodeHttpClient.layerUndici)),
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
const targetProfile = (flag: Option.Option<string>) =>
  Effect.flatMap(Profiles, (profiles) => profiles.resolve(flag, process.cwd()))

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
  run(args.json, Effect.gen(function* () {
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
  }))).pipe(Command.withDescription("Verify an API key against a Trellis server and save a profile for one of its projects"))

const profilesList = Command.make("list", { json }, (args) =>
  run(args.json, Effect.gen(function* () {
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
  }))).pipe(Command.withDescription("List the saved profiles (* marks the default)"))

const nameArg = Args.text({ name: "name" }).pipe(Args.withDescription("The profile's name"))

const profilesUse = Command.make("use", { json, name: nameArg }, (args) =>
  run(args.json, Effect.gen(function* () {
    yield* (yield* Profiles).setDefault(args.name)
    return { json: { defaultProfile: args.name }, text: `The default profile is now ${args.name}` }
  }))).pipe(Command.withDescription("Make a profile the default"))

const profilesRemove = Command.make("remove", { json, name: nameArg }, (args) =>
  run(args.json, Effect.gen(function* () {
    const profiles = yield* Profiles
    const wasDefault = (yield* profiles.defaultProfile) === args.name
    yield* profiles.remove(args.name)
    return {
      json: { removed: args.name, wasDefault },
      text: `Removed profile ${args.name}` +
        (wasDefault ? "; it was the default, so there is no default now (set one with: trellis agent profiles use NAME)" : "")
    }
  }))).pipe(Command.withDescription("Delete a saved profile"))

const pathsAdd = Command.make("add", {
  json,
  profile: profileOption,
  label: Options.text("label").pipe(Options.withDescription("A label for the checkout; default: its directory name"), Options.optional),
  dir: Args.text({ name: "dir" }).pipe(Args.withDescription("A directory inside a git working tree; default: the current directory"), Args.optional)
}, (args) =>
  run(args.json, Effect.gen(function* () {
    const target = yield* targetProfile(args.profile)
    const dir = Option.getOrElse(args.dir, () => process.cwd())
    const added = yield* (yield* Profiles).addPath(target.name, dir, Option.getOrUndefined(args.label))
    return {
      json: { profile: target.name, paths: added },
      text: `Registered to profile ${target.name} (chosen by ${describeSource[target.source]}):\n${table(added.map(pathRow))}`
    }
  }))).pipe(Command.withDescription("Register a git checkout (its repository root) and its worktrees to a profile"))

const pathsList = Command.make("list", { json, profile: profileOption }, (args) =>
  run(args.json, Effect.gen(function* () {
    const target = yield* targetProfile(args.profile)
    const paths = target.profile.paths
    return {
      json: { profile: target.name, paths },
      text: paths.length === 0
        ? `Profile ${target.name} has no paths. Register one with: trellis agent paths add [DIR]`
        : `Paths of profile ${target.name}:\n${table(paths.map(pathRow))}`
    }
  }))).pipe(Command.withDescription("List the paths registered to a profile"))

const pathsRemove = Command.make("remove", {
  json,
  profile: profileOption,
  dir: Args.text({ name: "dir" }).pipe(Args.withDescription("A registered path; removing a checkout removes its worktrees"))
}, (args) =>
  run(args.json, Effect.gen(function* () {
    const target = yield* targetProfile(args.profile)
    const removed = yield* (yield* Profiles).removePath(target.name, args.dir)
    return {
      json: { profile: target.name, removed },
      text: `Removed from profile ${target.name}:\n${table(removed.map(pathRow))}`
    }
  }))).pipe(Command.withDescription("Unregister a path from a profile"))

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
