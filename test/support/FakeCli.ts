import { HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect } from "effect"
import { TrellisApi } from "../../src/bridge/AgentApi.js"
import type { ProjectId } from "../../src/domain/Ids.js"

/** A typed client of the bridge API acting with one API key: what the CLI will use. */
export const bridgeClient = (key: string) =>
  Effect.gen(function* () {
    const http = yield* HttpClient.HttpClient
    return yield* HttpApiClient.makeWith(TrellisApi, {
      httpClient: http.pipe(HttpClient.mapRequest(HttpClientRequest.bearerToken(key)))
    })
  })

export type BridgeClient = Effect.Effect.Success<ReturnType<typeof bridgeClient>>

/** Registers a CLI for the project with one checkout and the three executable runtimes. */
export const registerCli = (
  client: BridgeClient,
  projectId: ProjectId,
  options: { readonly name?: string; readonly path?: string; readonly force?: boolean } = {}
) =>
  client.agent.register({
    payload: {
      projectId,
      name: options.name ?? "laptop",
      hostname: "laptop.local",
      appVersion: "0.1.0",
      availableClis: [
        { type: "claude", version: "2.1.197" },
        { type: "codex", version: "0.169.0" },
        { type: "opencode", version: "1.18.33" }
      ],
      paths: [{ path: options.path ?? "/home/dev/project", gitRemoteUrl: "git@example.com:acme/project.git", branch: "main" }],
      force: options.force ?? false
    }
  })
