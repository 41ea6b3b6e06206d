import * as HttpApiError from "@effect/platform/HttpApiError"
import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import type * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Effect, Option, ParseResult, Schema, SchemaAST } from "effect"
import { CurrentPrincipal, type Principal } from "../auth/Principal.js"
import type { Reply } from "./RequestGuard.js"

/**
 * A few HttpApi endpoints — the ones a CLI calls for every thread and every batch of lines —
 * served straight from `node:http`, as `/api/mcp` is: the contract's own Schemas decode the
 * payload and path and encode the answer and each declared error with its status, and the
 * handler is the very function the HttpApi group uses, so the wire format and behaviour are
 * the platform route's. What differs is the cost: no general-purpose HTTP stack in between.
 */

type AnyEndpoint = HttpApiEndpoint.HttpApiEndpoint.AnyWithProps

/** What is read of an endpoint and its group: where it is, and the Schemas of its contract. */
export interface EndpointContract {
  readonly method: string
  readonly path: string
  readonly pathSchema: Option.Option<{ readonly ast: SchemaAST.AST }>
  readonly urlParamsSchema: Option.Option<{ readonly ast: SchemaAST.AST }>
  readonly payloadSchema: Option.Option<{ readonly ast: SchemaAST.AST }>
  readonly successSchema: { readonly ast: SchemaAST.AST }
  readonly errorSchema: { readonly ast: SchemaAST.AST }
}
export interface GroupContract extends HttpApiGroup.HttpApiGroup.Any {
  readonly errorSchema: { readonly ast: SchemaAST.AST }
  readonly endpoints: { readonly [name: string]: EndpointContract }
}

/**
 * A handler that needs only the decoded path and payload (no raw request), typed by its endpoint's
 * contract; `HttpApiBuilder.group(...).handle` takes the same function.
 */
export type FastHandler<Endpoint extends HttpApiEndpoint.HttpApiEndpoint.Any, GroupError = never> = (
  request:
    & { readonly payload: HttpApiEndpoint.HttpApiEndpoint.Payload<Endpoint> }
    & ([HttpApiEndpoint.HttpApiEndpoint.PathParsed<Endpoint>] extends [never] ? unknown
      : { readonly path: HttpApiEndpoint.HttpApiEndpoint.PathParsed<Endpoint> })
) => Effect.Effect<
  HttpApiEndpoint.HttpApiEndpoint.Success<Endpoint>,
  HttpApiEndpoint.HttpApiEndpoint.Error<Endpoint> | GroupError,
  CurrentPrincipal
>

/** The handler of a group's endpoint: its errors are the endpoint's and the group's. */
export type GroupHandler<Group extends GroupContract, Name extends string> = FastHandler<
  HttpApiEndpoint.HttpApiEndpoint.WithName<HttpApiGroup.HttpApiGroup.Endpoints<Group>, Name>,
  HttpApiGroup.HttpApiGroup.Error<Group>
>

/** An endpoint of a group and its handler. */
export interface FastRoute {
  readonly group: GroupContract
  readonly endpoint: EndpointContract
  readonly handler: FastHandler<AnyEndpoint, unknown>
}

/** The group's endpoint by name, with its handler. */
export const fastRoute = <Group extends GroupContract, Name extends HttpApiGroup.HttpApiGroup.Endpoints<Group>["name"]>(
  group: Group,
  name: Name,
  handler: GroupHandler<Group, Name>
): FastRoute => {
  const endpoint = group.endpoints[name]
  if (endpoint === undefined) throw new Error(`${group.identifier} has no endpoint ${name}`)
  return { group, endpoint, handler }
}

const members = (ast: SchemaAST.AST): ReadonlyArray<SchemaAST.AST> => SchemaAST.isUnion(ast) ? ast.types.flatMap(members) : [ast]

export const json = (status: number, value: unknown): Reply =>
  value === undefined
    ? { status, headers: {}, body: "" }
    : { status, headers: { "content-type": "application/json" }, body: JSON.stringify(value) }

/** `/threads/:threadId/chunks` as a matcher giving `{ threadId }`. */
export const matcherOf = (path: string) => {
  const names: Array<string> = []
  const pattern = new RegExp(
    `^${
      path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:(\w+)/g, (_, name: string) => {
        names.push(name)
        return "([^/?#]+)"
      })
    }$`
  )
  return (url: string): Record<string, string> | undefined => {
    const match = pattern.exec(url)
    if (match === null) return undefined
    return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1] ?? "")]))
  }
}

export const decodeFailure = (error: ParseResult.ParseError): Effect.Effect<Reply> =>
  Effect.flatMap(
    HttpApiError.HttpApiDecodeError.fromParseError(error),
    (decodeError) => Effect.map(Schema.encode(HttpApiError.HttpApiDecodeError)(decodeError).pipe(Effect.orDie), (body) => json(400, body))
  )

export const decoderOf = (schema: Option.Option<{ readonly ast: SchemaAST.AST }>) =>
  Option.match(schema, {
    onNone: () => (input: unknown) => Effect.succeed<unknown>(input),
    onSome: (schema) => Schema.decodeUnknown(Schema.make<unknown, unknown, never>(schema.ast))
  })

/** An error as its declared status and body (the endpoint's errors, then the group's); an undeclared one is a defect. */
export const errorEncoderOf = (endpoint: EndpointContract, group: GroupContract) => {
  const errors = [...members(endpoint.errorSchema.ast), ...members(group.errorSchema.ast)].map((ast) => ({
    is: Schema.is(Schema.make<unknown, unknown, never>(SchemaAST.typeAST(ast))),
    encode: Schema.encodeUnknown(Schema.make<unknown, unknown, never>(ast)),
    status: HttpApiSchema.getStatusErrorAST(ast)
  }))
  return (error: unknown): Effect.Effect<Reply> => {
    const declared = errors.find((candidate) => candidate.is(error))
    return declared === undefined
      ? Effect.die(error)
      : Effect.map(declared.encode(error).pipe(Effect.orDie), (body) => json(declared.status, body))
  }
}

const compile = ({ endpoint, group, handler }: FastRoute) => {
  const match = matcherOf(endpoint.path)
  const decodePath = decoderOf(endpoint.pathSchema)
  const decodePayload = Option.match(endpoint.payloadSchema, {
    onNone: () => (_: string) => Effect.succeed<unknown>(undefined),
    onSome: (schema) => Schema.decodeUnknown(Schema.parseJson(Schema.make<unknown, unknown, never>(schema.ast)))
  })
  const successStatus = HttpApiSchema.getStatusSuccessAST(endpoint.successSchema.ast)
  const noContent = HttpApiSchema.isVoid(endpoint.successSchema.ast)
  const encodeSuccess = Schema.encodeUnknown(Schema.make<unknown, unknown, never>(endpoint.successSchema.ast))
  const encodeError = errorEncoderOf(endpoint, group)
  const run = (params: Record<string, string>, body: string) =>
    Effect.gen(function*() {
      const path = yield* decodePath(params)
      const payload = yield* decodePayload(body)
      return { path, payload }
    }).pipe(
      Effect.matchEffect({
        onFailure: decodeFailure,
        onSuccess: (request) =>
          handler(request).pipe(
            Effect.flatMap((value) => encodeSuccess(value).pipe(Effect.orDie)),
            Effect.matchEffect({
              onFailure: encodeError,
              onSuccess: (body) => Effect.succeed(json(successStatus, noContent ? undefined : body))
            })
          )
      })
    )
  return { method: endpoint.method, match, run }
}

/** What a fast endpoint runs once the RequestGuard admitted the request and its body was read. */
export type FastHandlerOf = (principal: Principal, body: string) => Effect.Effect<Reply>

/**
 * The handler for a request to one of the given endpoints, or undefined when it is for none of
 * them (the caller hands it to the platform's router).
 */
export const makeFastEndpoints = (routes: ReadonlyArray<FastRoute>) => {
  const compiled = routes.map(compile)
  return (method: string, pathname: string): FastHandlerOf | undefined => {
    for (const route of compiled) {
      if (route.method !== method) continue
      const params = route.match(pathname)
      if (params === undefined) continue
      return (principal, body) =>
        route.run(params, body).pipe(
          Effect.provideService(CurrentPrincipal, principal),
          Effect.catchAllCause((cause) => Effect.as(Effect.logError(`${method} ${pathname} failed`, cause), json(500, undefined)))
        )
    }
    return undefined
  }
}
