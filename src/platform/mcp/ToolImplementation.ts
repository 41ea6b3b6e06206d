import { Effect, Either, ParseResult, Schema, SchemaAST } from "effect"
import type * as Tool from "../../../catalog/Tool.js"
import { CurrentPrincipal, CurrentProject, DefaultProject } from "../auth/Principal.js"
import { ProjectGate } from "../auth/ProjectGate.js"
import { InvalidArgument, type ToolError } from "../../../catalog/domain/Errors.js"
import { ProjectId } from "../../../catalog/domain/Ids.js"
import { unstorableText } from "./StorableText.js"

/**
 * A catalog tool bound to its handler: decode, resolve the project, handle, encode. Only `P?`
 * tools need the ProjectGate, so only they are given it (providing a service per call is
 * not free on the hot path).
 */
export type Implementation<Name extends string = string> =
  | {
    readonly _tag: "Unscoped"
    readonly tool: Tool.Any & { readonly name: Name }
    readonly run: (args: unknown) => Effect.Effect<unknown, ToolError, CurrentPrincipal | DefaultProject>
  }
  | {
    readonly _tag: "Scoped"
    readonly tool: Tool.Any & { readonly name: Name }
    readonly run: (args: unknown) => Effect.Effect<unknown, ToolError, CurrentPrincipal | DefaultProject | ProjectGate>
  }

const LITERAL_MISMATCH = /^Expected ("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null), actual (.*)$/s

/**
 * One line per argument: an optional argument's "Expected undefined" alternative is dropped (it
 * says nothing), and the alternatives of an enum are folded into "must be one of …".
 */
const formatIssues = (error: ParseResult.ParseError): string => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => ({ key: issue.path.join("."), message: issue.message }))
  const useful = issues.filter((issue) =>
    !(issue.message.startsWith("Expected undefined") &&
      issues.some((other) => other !== issue && (other.key === issue.key || other.key.startsWith(`${issue.key}.`))))
  )
  const keys = [...new Set(useful.map((issue) => issue.key))]
  return keys.map((key) => {
    const messages = useful.filter((issue) => issue.key === key).map((issue) => issue.message)
    const literals = messages.flatMap((message) => {
      const match = LITERAL_MISMATCH.exec(message)
      return match === null ? [] : [{ expected: match[1]!, actual: match[2]! }]
    })
    const text = literals.length > 1 && literals.length === messages.length
      ? `must be one of ${literals.map((literal) => literal.expected).join(", ")}; got ${literals[0]!.actual}`
      : messages.join("; ")
    return key === "" ? text : `${key}: ${text}`
  }).join("; ")
}

const isPresent = (value: unknown, path: ReadonlyArray<string>): boolean => {
  const [key, ...rest] = path
  if (key === undefined) return true
  if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) return false
  const next: unknown = Reflect.get(value, key)
  return isPresent(next, rest)
}

const decoder = <T extends Tool.Any>(tool: T) => {
  const decode = Schema.decodeUnknownEither(tool.input, { errors: "all", onExcessProperty: "error" })
  const known = Object.keys(tool.input.fields)
  const takes = known.length === 0 ? "this tool takes no arguments" : `this tool takes: ${known.join(", ")}`
  return (args: unknown): Either.Either<Tool.InputOf<T>, InvalidArgument> => {
    const given = Object.keys(args ?? {})
    const removed = Object.keys(tool.removedArguments).filter((path) => isPresent(args, path.split(".")))
    if (removed.length > 0) {
      return Either.left(
        new InvalidArgument({
          message: `Invalid arguments: ${removed.map((key) => `${key}: ${tool.removedArguments[key]}`).join("; ")}`
        })
      )
    }
    const unstorable = unstorableText(args)
    if (unstorable !== undefined) return Either.left(new InvalidArgument({ message: `Invalid arguments: ${unstorable}` }))
    // Checked here because Schema lets any object through an empty Struct (`{}` accepts everything).
    const unexpected = given.filter((key) => !known.includes(key))
    if (unexpected.length > 0) {
      return Either.left(
        new InvalidArgument({
          message: `Invalid arguments: ${unexpected.map((key) => `${key}: is unexpected`).join("; ")} (${takes})`
        })
      )
    }
    return Either.mapLeft(decode(args ?? {}), (error) => new InvalidArgument({ message: `Invalid arguments: ${formatIssues(error)}` }))
  }
}

const encoder = <T extends Tool.Any>(tool: T): (output: Tool.OutputOf<T>) => Effect.Effect<unknown> => {
  // A result's type already guarantees its shape; encoding matters only where the wire form differs.
  if (SchemaAST.encodedAST(tool.output.ast) === tool.output.ast) return Effect.succeed
  const encode = Schema.encodeEither(tool.output)
  // A result that does not match its declared output Schema is our bug, never the caller's.
  return (output) => Effect.orDie(encode(output))
}

/**
 * Implements a tool that is not bound to one project (it may still read the connection's
 * `?project=` to resolve bare refs).
 */
export const unscoped = <T extends Tool.Any>(
  tool: T,
  handler: (input: Tool.InputOf<T>) => Effect.Effect<Tool.OutputOf<T>, ToolError, CurrentPrincipal | DefaultProject>
): Extract<Implementation<T["name"]>, { readonly _tag: "Unscoped" }> => {
  const decode = decoder(tool)
  const encode = encoder(tool)
  return { _tag: "Unscoped", tool, run: (args) => decode(args).pipe(Effect.flatMap(handler), Effect.flatMap(encode)) }
}

type ScopedTool = Tool.Any & { readonly input: { readonly Type: { readonly projectId?: ProjectId | undefined } } }

const projectIdFromUrl = Schema.decodeUnknownEither(ProjectId)

/** The project of a `P?` call: `projectId` if given, else the connection's `?project=`, access-checked. */
export const resolveProject = (explicit: ProjectId | undefined) =>
  Effect.gen(function*() {
    const principal = yield* CurrentPrincipal
    const projects = yield* ProjectGate
    if (explicit !== undefined) return yield* projects.access(principal, explicit)
    const fallback = yield* DefaultProject
    if (fallback === null) {
      return yield* new InvalidArgument({
        message: "projectId: required, because the connection URL has no ?project=<project_id>"
      })
    }
    const projectId = yield* Either.mapLeft(
      projectIdFromUrl(fallback),
      () => new InvalidArgument({ message: `project: the URL's ?project=${fallback} is not a project ID (proj_…)` })
    )
    return yield* projects.access(principal, projectId)
  })

/**
 * Implements a `P?` tool: the project comes from `projectId`, else from the connection's
 * `?project=`; it is resolved and access-checked before the handler runs.
 */
export const scoped = <T extends ScopedTool>(
  tool: T,
  handler: (input: Tool.InputOf<T>) => Effect.Effect<Tool.OutputOf<T>, ToolError, CurrentPrincipal | CurrentProject>
): Implementation<T["name"]> => {
  const decode = decoder(tool)
  const encode = encoder(tool)
  return {
    _tag: "Scoped",
    tool,
    run: (args) =>
      Effect.gen(function*() {
        const input = yield* decode(args)
        const project = yield* resolveProject(input.projectId)
        const output = yield* Effect.provideService(handler(input), CurrentProject, project)
        return yield* encode(output)
      })
  }
}

/** Fails to compile, naming the missing tools, unless every catalog tool is implemented. */
export type Complete<Names extends string, Impls extends ReadonlyArray<Implementation>> =
  [Exclude<Names, Impls[number]["tool"]["name"]>] extends [never] ? Impls
    : { readonly missingHandlers: Exclude<Names, Impls[number]["tool"]["name"]> }
