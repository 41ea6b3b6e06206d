import { Duration, Effect, Option, Redacted, Schema } from "effect"
import * as os from "node:os"
import type { ResultOf } from "../../catalog/McpClient.js"
import { InvalidProfile, maskApiKey, normalizeServerUrl, type Profile, ProfileName, Profiles } from "./Profiles.js"
import { callTool } from "./TrellisTools.js"

/** The server refused the key, does not know the project, or could not be reached or understood. */
export class LoginError extends Schema.TaggedError<LoginError>()("LoginError", { message: Schema.String }) {}

const LOGIN_TIMEOUT = Duration.seconds(30)

export type AccessibleProject = ResultOf<"list_projects">["projects"][number]

/**
 * The projects an API key can access, by calling `list_projects` on the server's MCP endpoint.
 * Fails with a LoginError naming the cause: a refused key (401), an unreachable server, or an answer that is not MCP.
 */
export const listProjects = (server: string, apiKey: Redacted.Redacted<string>) => {
  const endpoint = `${server}/api/mcp`
  return callTool({ url: endpoint, apiKey: Redacted.value(apiKey) }, "list_projects", {}).pipe(
    Effect.timeoutFail({
      duration: LOGIN_TIMEOUT,
      onTimeout: () => new LoginError({ message: `${endpoint} did not answer within ${Duration.format(LOGIN_TIMEOUT)}` })
    }),
    Effect.map((result) => result.projects),
    Effect.catchTags({
      McpToolError: (error) => Effect.fail(new LoginError({ message: `list_projects failed on ${server}: ${error.message}` })),
      McpRequestError: (error) =>
        Effect.fail(
          new LoginError({
            message: error.status === 401
              ? `the server rejected the API key ${
                maskApiKey(apiKey)
              } (${error.message}); check the key, or create one with \`trellis admin key create\``
              : error.status === 404
              ? `${error.message}; is this the base URL of a Trellis server?`
              : error.message
          })
        )
    })
  )
}

const describeProject = (project: AccessibleProject) => `${project.ref} (${project.projectId})`

/** The project named by an ID (`proj_…`) or a ref (any case) among those the key can access. */
export const findProject = (projects: ReadonlyArray<AccessibleProject>, wanted: string) => {
  const key = wanted.trim()
  const found = key.startsWith("proj_")
    ? projects.find((project) => project.projectId === key)
    : projects.find((project) => project.ref.toUpperCase() === key.toUpperCase())
  if (found !== undefined) return Effect.succeed(found)
  return Effect.fail(
    new LoginError({
      message: `project ${key} is not one this API key can access; ` +
        (projects.length === 0 ? "it can access no project" : `it can access: ${projects.map(describeProject).join(", ")}`)
    })
  )
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
  Effect.gen(function*() {
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
