import { JSONSchema, Schema, SchemaAST } from "effect"
import { ToolErrorBody } from "./domain/Errors.js"
import { ProjectId } from "./domain/Ids.js"

/** A tool's arguments: an object Schema whose fields are visible (for `P?` detection and docs). */
export type InputSchema = Schema.Schema.AnyNoContext & { readonly fields: Schema.Struct.Fields }

/**
 * A tool is declared once: its name, description, argument and result Schemas and behaviour
 * hints. `tools/list`, argument validation, handler types and `docs/tools.md` all come from it.
 */
export interface Tool<
  Name extends string = string,
  Input extends InputSchema = InputSchema,
  Output extends Schema.Schema.AnyNoContext = Schema.Schema.AnyNoContext
> {
  readonly name: Name
  readonly title: string
  readonly description: string
  readonly input: Input
  readonly output: Output
  readonly annotations: Annotations
  /**
   * Derived from the arguments: `required` is SPEC's `P?` ({@link ProjectIdArgument}); `refs`
   * means a project is used only to resolve bare refs ({@link ProjectIdForRefsArgument}).
   */
  readonly project: "required" | "refs" | "none"
  /** Arguments that older clients may still send, each with the message telling what to use instead. */
  readonly removedArguments: Readonly<Record<string, string>>
}

export interface Annotations {
  readonly readOnly: boolean
  readonly destructive: boolean
  readonly idempotent: boolean
}

export type Any = Tool<string, InputSchema, Schema.Schema.AnyNoContext>

export type InputOf<T extends Any> = Schema.Schema.Type<T["input"]>
export type OutputOf<T extends Any> = Schema.Schema.Type<T["output"]>

/** The `projectId` of a tool that addresses tasks by ref: needed only to resolve a bare ref. */
export const ProjectIdForRefsArgument = Schema.optional(ProjectId.annotations({
  description: "The project's ID, needed only to resolve a bare ref (DEMO-12) when the connection URL has no ?project=<id>."
}))

/**
 * The `projectId` argument of a `P?` tool: optional when the connection URL carries
 * `?project=<id>`, and then an explicit value wins. Declaring it makes the tool project-scoped.
 */
export const ProjectIdArgument = Schema.optional(ProjectId.annotations({
  description: "The project's ID. Optional when the connection URL carries ?project=<id>; an explicit value wins."
}))

export const make = <
  const Name extends string,
  Input extends InputSchema,
  Output extends Schema.Schema.AnyNoContext
>(
  name: Name,
  options: {
    readonly title: string
    readonly description: string
    readonly input: Input
    readonly output: Output
    readonly annotations: Annotations
    readonly removedArguments?: Readonly<Record<string, string>>
  }
): Tool<Name, Input, Output> => ({
  name,
  ...options,
  removedArguments: options.removedArguments ?? {},
  project: options.input.fields["projectId"] === ProjectIdArgument
    ? "required"
    : options.input.fields["projectId"] === ProjectIdForRefsArgument
    ? "refs"
    : "none"
})

export type JsonSchemaObject = { readonly [key: string]: unknown }

const toJsonSchema = (schema: Schema.Schema.AnyNoContext): JsonSchemaObject => {
  const definitions: Record<string, JSONSchema.JsonSchema7> = {}
  const root: JsonSchemaObject = {
    ...JSONSchema.fromAST(schema.ast, {
      definitions,
      target: "jsonSchema2020-12",
      topLevelReferenceStrategy: "skip",
      additionalPropertiesStrategy: "strict"
    })
  }
  return Object.keys(definitions).length === 0 ? root : { ...root, $defs: definitions }
}

/**
 * Arguments a 2026-07-28 client also sends as `Mcp-Param-<header>` headers (SEP-2243), so a
 * gateway can route or authorize a call by project without reading its body.
 */
export const headerArguments = (tool: Any): ReadonlyArray<{ readonly argument: string; readonly header: string }> =>
  tool.project === "none" ? [] : [{ argument: "projectId", header: "Project" }]

const isJsonObject = (value: unknown): value is JsonSchemaObject => typeof value === "object" && value !== null && !Array.isArray(value)

/** JSON Schema 2020-12 of a tool's arguments (always an object schema). */
export const inputJsonSchema = (tool: Any): JsonSchemaObject => {
  // An empty Struct is TypeScript's `{}`, which JSON Schema generation widens to object-or-array.
  if (Object.keys(tool.input.fields).length === 0) return { type: "object", properties: {}, additionalProperties: false }
  const schema = toJsonSchema(tool.input)
  const properties = schema["properties"]
  if (!isJsonObject(properties)) return schema
  const marked = headerArguments(tool).reduce<JsonSchemaObject>((acc, { argument, header }) => {
    const property = acc[argument]
    return isJsonObject(property) ? { ...acc, [argument]: { ...property, "x-mcp-header": header } } : acc
  }, properties)
  return { ...schema, properties: marked }
}

/** A struct, or a union of structs (a thread or a thread group): always a JSON object. */
const isObjectSchema = (ast: SchemaAST.AST): boolean => {
  switch (ast._tag) {
    case "TypeLiteral":
      return ast.propertySignatures.length > 0 || ast.indexSignatures.length > 0
    case "Union":
      return ast.types.every(isObjectSchema)
    case "Refinement":
      return isObjectSchema(ast.from)
    case "Transformation":
      return isObjectSchema(ast.to)
    default:
      return false
  }
}

/** What `structuredContent` holds when a call fails (`isError: true`). */
export const ToolErrorEnvelope = Schema.Struct({ error: ToolErrorBody }).annotations({ identifier: "ToolError" })

/**
 * JSON Schema of a tool's `structuredContent`: its result or, on `isError: true`, the error
 * envelope (clients validate both against `outputSchema`). Undefined when the result is not an
 * object, since MCP needs one.
 */
export const outputJsonSchema = (tool: Any): JsonSchemaObject | undefined => {
  if (!isObjectSchema(tool.output.ast)) return undefined
  return { type: "object", ...toJsonSchema(Schema.Union(tool.output, ToolErrorEnvelope)) }
}
