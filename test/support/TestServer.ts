import { HttpClient, HttpClientRequest, HttpLayerRouter } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { ApiKeys } from "../../src/auth/ApiKeys.js"
import type { Principal } from "../../src/auth/Principal.js"
import type { ProjectId } from "../../src/domain/Ids.js"
import * as Trellis from "../../src/server.js"
import { Memberships } from "../../src/services/Memberships.js"
import { Organizations } from "../../src/services/Organizations.js"
import { Projects } from "../../src/services/Projects.js"
import { Users } from "../../src/services/Users.js"
import type { TrellisConfigShape } from "../../src/TrellisConfig.js"
import { TestDatabase } from "./TestDatabase.js"

/** The backend served on a random local port, with an HttpClient pointed at it, on a fresh database. */
export const TestServer = (config: Partial<TrellisConfigShape> = {}) =>
  HttpLayerRouter.serve(Trellis.routes, { disableLogger: true }).pipe(
    Layer.provideMerge(Trellis.services(config)),
    Layer.provideMerge(NodeHttpServer.layerTest),
    Layer.provideMerge(TestDatabase)
  )

/** An organization with an owner, a project the owner administers, and an API key for them. */
export const seedOwner = (slug: string) =>
  Effect.gen(function* () {
    const organization = yield* (yield* Organizations).create({ slug, name: `Org ${slug}` })
    const user = yield* (yield* Users).create({ name: `Owner of ${slug}`, email: `owner@${slug}.test` })
    yield* (yield* Memberships).addToOrganization(organization.id, user.id, "owner")
    const project = yield* (yield* Projects).create({ organizationId: organization.id, name: "Main", ref: "MAIN" })
    const key = yield* createKey(user.id, null)
    return { organization, user, project, key: key.secret, principal: key.principal }
  })

export const createKey = (userId: Principal["userId"], projectIds: ReadonlyArray<ProjectId> | null) =>
  Effect.gen(function* () {
    const apiKeys = yield* ApiKeys
    const { record, secret } = yield* apiKeys.create({ userId, name: "test", projectIds })
    const principal: Principal = { userId, apiKeyId: record.id, projectIds: record.projectIds }
    return { secret, record, principal }
  })

export interface RpcResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly text: string
  readonly json: unknown
}

/** POSTs a raw body to `/api/mcp` (or another path/method) and returns status, headers and body. */
export const rawRequest = (options: {
  readonly method?: "POST" | "GET" | "DELETE"
  readonly path?: string
  readonly body?: string
  readonly headers?: Record<string, string>
}) =>
  Effect.gen(function* () {
    const client = yield* HttpClient.HttpClient
    const request = HttpClientRequest.make(options.method ?? "POST")(options.path ?? "/api/mcp").pipe(
      HttpClientRequest.setHeaders({ "content-type": "application/json", ...options.headers }),
      options.body === undefined ? (r) => r : HttpClientRequest.bodyText(options.body, "application/json")
    )
    const response = yield* client.execute(request)
    const text = yield* response.text
    const json: unknown = text === "" ? undefined : JSON.parse(text)
    return { status: response.status, headers: response.headers, text, json } satisfies RpcResponse
  })

/** Sends one JSON-RPC message with a Bearer key. */
export const rpc = (key: string, message: unknown, options: { readonly path?: string; readonly headers?: Record<string, string> } = {}) =>
  rawRequest({
    body: JSON.stringify(message),
    headers: { authorization: `Bearer ${key}`, ...options.headers },
    ...(options.path === undefined ? {} : { path: options.path })
  })

export const callTool = (key: string, name: string, args?: unknown, options: { readonly path?: string } = {}) =>
  rpc(key, { jsonrpc: "2.0", id: 1, method: "tools/call", params: args === undefined ? { name } : { name, arguments: args } }, options)
