import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import type * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, Either, type Scope } from "effect"
import type { Principal } from "../auth/Principal.js"
import { decodeFailure, decoderOf, type EndpointContract, errorEncoderOf, type GroupContract, json, matcherOf } from "./FastEndpoints.js"
import type { Reply } from "./RequestGuard.js"
import type { SseBody } from "./Sse.js"

/**
 * SSE endpoints of an HttpApi group served straight from `node:http`, as FastEndpoints serves JSON
 * ones: the contract's Schemas decode the path and the url parameters and encode each declared error
 * with its status, and the handler opens the body the group's own handler streams. Through the
 * router, a thousand readers of one thread opening (or closing) at once were a thousand requests of
 * the general-purpose stack in flight together, each copying the server's whole service context
 * several times and running its response through a Stream of several stages: garbage that lived
 * through the burst, was promoted to the old generation and kept the process's memory up after.
 */

/** An SSE body, opened in the scope its response is written in. */
export type OpenSse = Effect.Effect<SseBody, never, Scope.Scope>

/**
 * The handler of an SSE endpoint, typed by its contract: what it reads of the request, and the body
 * it opens. The principal is handed over, not provided as CurrentPrincipal: providing a service
 * copies the fiber's whole context, a cost every one of a thousand opening streams would pay.
 */
export type FastSseHandler<Endpoint extends HttpApiEndpoint.HttpApiEndpoint.Any, GroupError = never> = (
  request: {
    readonly principal: Principal
    readonly path: HttpApiEndpoint.HttpApiEndpoint.PathParsed<Endpoint>
    readonly urlParams: HttpApiEndpoint.HttpApiEndpoint.UrlParams<Endpoint>
    readonly header: (name: string) => string | undefined
  }
) => Effect.Effect<OpenSse, HttpApiEndpoint.HttpApiEndpoint.Error<Endpoint> | GroupError>

export interface FastSseRoute {
  readonly group: GroupContract
  readonly endpoint: EndpointContract
  // A method, so that any endpoint's typed handler is one (its request is what the contract decodes).
  handler(request: {
    readonly principal: Principal
    readonly path: unknown
    readonly urlParams: unknown
    readonly header: (name: string) => string | undefined
  }): Effect.Effect<OpenSse, unknown>
}

/** The group's SSE endpoint by name, with its handler. */
export const fastSseRoute = <
  Group extends GroupContract,
  Name extends HttpApiGroup.HttpApiGroup.Endpoints<Group>["name"]
>(
  group: Group,
  name: Name,
  handler: FastSseHandler<
    HttpApiEndpoint.HttpApiEndpoint.WithName<HttpApiGroup.HttpApiGroup.Endpoints<Group>, Name>,
    HttpApiGroup.HttpApiGroup.Error<Group>
  >
): FastSseRoute => {
  const endpoint = group.endpoints[name]
  if (endpoint === undefined) throw new Error(`${group.identifier} has no endpoint ${name}`)
  return { group, endpoint, handler }
}

/** A request's answer: a whole reply (a decode failure, a declared error), or the body to stream. */
export type SseAnswer = Either.Either<OpenSse, Reply>

/** What an SSE fast endpoint runs once the RequestGuard admitted the request. */
export type FastSseHandlerOf = (
  principal: Principal,
  url: URL,
  header: (name: string) => string | undefined
) => Effect.Effect<SseAnswer>

const compile = ({ endpoint, group, handler }: FastSseRoute) => {
  const match = matcherOf(endpoint.path)
  const decodePath = decoderOf(endpoint.pathSchema)
  // The router's ParsedSearchParams: a repeated parameter is an array (which a string field refuses).
  const decodeUrlParams = decoderOf(endpoint.urlParamsSchema)
  const encodeError = errorEncoderOf(endpoint, group)
  const run = (principal: Principal, params: Record<string, string>, url: URL, header: (name: string) => string | undefined) =>
    Effect.all({ path: decodePath(params), urlParams: decodeUrlParams(HttpServerRequest.searchParamsFromURL(url)) }).pipe(
      Effect.matchEffect({
        onFailure: (error) => Effect.map(decodeFailure(error), Either.left),
        onSuccess: ({ path, urlParams }) =>
          handler({ principal, path, urlParams, header }).pipe(
            Effect.matchEffect({
              onFailure: (error) => Effect.map(encodeError(error), Either.left),
              onSuccess: (open) => Effect.succeed(Either.right(open))
            })
          )
      })
    )
  return { method: endpoint.method, match, run }
}

/**
 * The handler for a request to one of the given SSE endpoints, or undefined when it is for none of
 * them (the caller hands it to the next matcher).
 */
export const makeFastSseEndpoints = (routes: ReadonlyArray<FastSseRoute>) => {
  const compiled = routes.map(compile)
  return (method: string, pathname: string): FastSseHandlerOf | undefined => {
    for (const route of compiled) {
      if (route.method !== method) continue
      const params = route.match(pathname)
      if (params === undefined) continue
      return (principal, url, header) =>
        route.run(principal, params, url, header).pipe(
          Effect.catchAllCause((cause) =>
            Effect.as(Effect.logError(`${method} ${pathname} failed`, cause), Either.left(json(500, undefined)))
          )
        )
    }
    return undefined
  }
}
