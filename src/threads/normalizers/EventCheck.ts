import { Schema, SchemaAST } from "effect"
import { NormalizedEvent, NormalizedEventKinds } from "../../../catalog/events/NormalizedEvent.js"

/**
 * A fast structural check of a built event against the NormalizedEvent Schema, compiled once
 * from the Schema's AST: it runs on every chunk at insert time, where the generic union decoder
 * cost more than the JSON parse itself. Test/events/EventCheck.test.ts holds it to the decoder.
 */

type Json = Record<string, unknown>
type Check = (value: unknown) => boolean

const fieldCheck = (ast: SchemaAST.AST): Check => {
  switch (ast._tag) {
    case "StringKeyword":
      return (value) => typeof value === "string"
    case "NumberKeyword":
      return (value) => typeof value === "number"
    case "BooleanKeyword":
      return (value) => typeof value === "boolean"
    case "Literal": {
      const literal = ast.literal
      return (value) => value === literal
    }
    default: {
      // Refinements (finite numbers) and anything richer: the Schema's own guard.
      const is = Schema.is(Schema.make(ast))
      return (value) => is(value)
    }
  }
}

interface Field {
  readonly name: string
  readonly optional: boolean
  readonly check: Check
}

const kindOf = (ast: SchemaAST.TypeLiteral): string | undefined => {
  const kind = ast.propertySignatures.find((p) => p.name === "kind")?.type
  return kind?._tag === "Literal" && typeof kind.literal === "string" ? kind.literal : undefined
}

const byKind = new Map<string, ReadonlyArray<Field>>()
for (const schema of NormalizedEventKinds) {
  const ast = schema.ast
  if (ast._tag !== "TypeLiteral") continue
  const kind = kindOf(ast)
  if (kind === undefined) continue
  byKind.set(kind, ast.propertySignatures.map((p) => ({ name: String(p.name), optional: p.isOptional, check: fieldCheck(p.type) })))
}

/**
 * The event as the Schema would decode it (declared fields only, optional ones absent when
 * undefined), or undefined when it does not fit.
 */
export const checkEvent = (value: Json): NormalizedEvent | undefined => {
  const kind = value["kind"]
  const fields = typeof kind === "string" ? byKind.get(kind) : undefined
  if (fields === undefined) return undefined
  const event: Json = {}
  for (const field of fields) {
    const fieldValue = value[field.name]
    if (fieldValue === undefined) {
      if (field.optional) continue
      return undefined
    }
    if (!field.check(fieldValue)) return undefined
    event[field.name] = fieldValue
  }
  return isEvent(event) ? event : undefined
}

// The structural walk above is the check; this guard only narrows the type, at no cost when it agrees.
const isEvent = (value: Json): value is NormalizedEvent => value["kind"] !== undefined
