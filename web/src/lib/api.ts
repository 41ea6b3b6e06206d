import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import { Effect, type Either, type Schema } from "effect"
import { ListProjectAgents } from "../../../catalog/Agents.js"
import { TrellisApi } from "../../../catalog/bridge/TrellisApi.js"
import * as McpClient from "../../../catalog/McpClient.js"
import type * as Tool from "../../../catalog/Tool.js"
import { ListProjects } from "../../../catalog/Projects.js"
import { CreateThread, GetThread, ListCliProfiles, ListThreadMessages, ListThreads, SendThreadMessage } from "../../../catalog/Threads.js"
import { pageRuntime } from "./backoff"

/**
 * The data layer: every read is a catalog tool over the typed MCP client, or a thread route, signed
 * by the session cookie (same origin, so `fetch` sends it; the page never holds a key), and each
 * waits out a 429's `Retry-After` (./backoff.ts). The client knows only the
 * tools the app calls, so the bundle leaves out the rest of the catalog (web/vite.config.ts).
 */
const tools = {
  list_projects: ListProjects,
  list_threads: ListThreads,
  get_thread: GetThread,
  list_thread_messages: ListThreadMessages,
  send_thread_message: SendThreadMessage,
  create_thread: CreateThread,
  list_cli_profiles: ListCliProfiles,
  list_project_agents: ListProjectAgents
} as const

/** A typed caller of `tools` over MCP: the app's own, and the board's (loaded with its page). */
export const makeToolCaller = <Tools extends { readonly [K in keyof Tools]: Tool.Any }>(tools: Tools) => {
  const client = McpClient.makeWith(tools)({ url: `${window.location.origin}/api/mcp` })
  return <N extends keyof Tools & string>(
    name: N,
    args: Schema.Schema.Encoded<Tools[N]["input"]>,
    signal?: AbortSignal
  ): Promise<Either.Either<Schema.Schema.Type<Tools[N]["output"]>, ToolError>> =>
    pageRuntime.runPromise(
      client.call(name, args).pipe(Effect.either),
      signal === undefined ? undefined : { signal }
    )
}

type Tools = typeof tools

export type ToolName = keyof Tools
export type ArgumentsOf<N extends ToolName> = Schema.Schema.Encoded<Tools[N]["input"]>
export type ResultOf<N extends ToolName> = Schema.Schema.Type<Tools[N]["output"]>

export type ToolError = McpClient.McpToolError | McpClient.McpRequestError

export const callTool = makeToolCaller(tools)

export type Loaded<A> =
  | { readonly _tag: "Loading" }
  | { readonly _tag: "Ready"; readonly value: A; readonly refreshing: boolean }
  | { readonly _tag: "Failed"; readonly error: ToolError }

export const isSignedOut = (error: ToolError): boolean => error._tag === "McpRequestError" && error.status === 401

/**
 * The thread routes beside MCP (catalog/bridge/ThreadsApi.ts' `threads` group: the conversation's
 * pages, retry, start fresh, done, pin, share, interactions), typed from the same contract the
 * server implements.
 */
const threadRoutes = Effect.flatMap(
  HttpClient.HttpClient,
  (httpClient) => HttpApiClient.group(TrellisApi, { group: "threads", httpClient, baseUrl: window.location.origin })
)

export type ThreadRoutes = Effect.Effect.Success<typeof threadRoutes>

/** Runs one call of the thread routes (`(routes) => routes.retry({ path: { threadId } })`). */
export const callThreadRoute = <A, E>(
  call: (routes: ThreadRoutes) => Effect.Effect<A, E>,
  signal?: AbortSignal
): Promise<Either.Either<A, E>> =>
  pageRuntime.runPromise(
    Effect.flatMap(threadRoutes, call).pipe(Effect.either),
    signal === undefined ? undefined : { signal }
  )

/** `POST /api/web/session`: the key for a session cookie. Resolves to the refusal's message, or undefined when signed in. */
export const signIn = async (apiKey: string): Promise<string | undefined> => {
  try {
    const response = await fetch("/api/web/session", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ apiKey })
    })
    if (response.ok) return undefined
    const body: unknown = await response.json().catch(() => undefined)
    return typeof body === "object" && body !== null && "message" in body && typeof body.message === "string"
      ? body.message
      : `The server answered HTTP ${response.status}`
  } catch {
    return "Cannot reach the Trellis server"
  }
}

/** `DELETE /api/web/session`: ends the session and clears the cookie. */
export const signOut = async (): Promise<void> => {
  await fetch("/api/web/session", { method: "DELETE" }).catch(() => undefined)
}

/** What a failed read says to the person: the tool's or the request's own message. */
export const describeError = (error: ToolError): string => error.message
