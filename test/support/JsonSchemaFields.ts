import type { SpecField } from "./SpecRecords.js"

/*
 * Field lookups in the JSON Schemas a tool is served with (`tools/list`'s inputSchema and
 * outputSchema), looking through `$ref`s, unions, nullables and arrays: the names a client
 * actually reads.
 */

export type JsonSchema = { readonly [key: string]: unknown }

const isSchema = (value: unknown): value is JsonSchema => typeof value === "object" && value !== null && !Array.isArray(value)

const resolve = (root: JsonSchema, schema: JsonSchema): JsonSchema => {
  const ref = schema["$ref"]
  if (typeof ref !== "string") return schema
  const definitions = root["$defs"]
  const target = isSchema(definitions) ? definitions[ref.replace(/^#\/\$defs\//, "")] : undefined
  return isSchema(target) ? resolve(root, target) : schema
}

const propertiesOf = (schema: JsonSchema): JsonSchema => {
  const properties = schema["properties"]
  return isSchema(properties) ? properties : {}
}

/** The object schemas a value may be, through unions, nulls and arrays. */
const objectsOf = (root: JsonSchema, schema: JsonSchema): ReadonlyArray<JsonSchema> => {
  const resolved = resolve(root, schema)
  const branches = ["anyOf", "oneOf", "allOf"].flatMap((key) => {
    const list = resolved[key]
    return Array.isArray(list) ? list.filter(isSchema) : []
  })
  const items = resolved["items"]
  const nested = isSchema(items) ? [...branches, items] : branches
  return [...(isSchema(resolved["properties"]) ? [resolved] : []), ...nested.flatMap((branch) => objectsOf(root, branch))]
}

/** The `{ error }` envelope every output schema admits besides the result. */
const isErrorEnvelope = (schema: JsonSchema) => Object.keys(propertiesOf(schema)).join() === "error"

const admits = (schema: JsonSchema | undefined, value: string, root: JsonSchema): boolean => {
  if (schema === undefined) return false
  const resolved = resolve(root, schema)
  const values = Array.isArray(resolved["enum"]) ? resolved["enum"] : [resolved["const"]]
  return values.includes(value)
}

export interface Variant {
  readonly field: string
  readonly value: string
}

/**
 * The objects found at `path` (property names from the top of a result or of the arguments),
 * keeping only the union members whose `variant.field` admits `variant.value`.
 */
export const objectsAt = (root: JsonSchema, path: ReadonlyArray<string>, variant?: Variant): ReadonlyArray<JsonSchema> => {
  const found = path.reduce<ReadonlyArray<JsonSchema>>(
    (objects, key) =>
      objects.flatMap((object) => {
        const property = propertiesOf(object)[key]
        return isSchema(property) ? objectsOf(root, property) : []
      }),
    objectsOf(root, root).filter((object) => !isErrorEnvelope(object))
  )
  if (variant === undefined) return found
  return found.filter((object) => {
    const property = propertiesOf(object)[variant.field]
    return isSchema(property) && admits(property, variant.value, root)
  })
}

/** The fields (dotted paths, subfields included) that none of `objects` has. */
export const missingFields = (
  root: JsonSchema,
  objects: ReadonlyArray<JsonSchema>,
  fields: ReadonlyArray<SpecField>,
  prefix = ""
): ReadonlyArray<string> =>
  fields.flatMap((field) => {
    const path = `${prefix}${field.name}`
    const values = objects.map((object) => propertiesOf(object)[field.name]).filter(isSchema)
    if (values.length === 0) return [path]
    if (field.fields.length === 0) return []
    return missingFields(root, values.flatMap((value) => objectsOf(root, value)), field.fields, `${path}.`)
  })

/** Every property name and every enumerated or constant string anywhere in a schema. */
export const namesIn = (schema: unknown): ReadonlySet<string> => {
  const names = new Set<string>()
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk)
    if (!isSchema(value)) return
    for (const [key, inner] of Object.entries(value)) {
      if (key === "properties" && isSchema(inner)) Object.keys(inner).forEach((name) => names.add(name))
      if ((key === "enum" || key === "const") && (typeof inner === "string" || Array.isArray(inner))) {
        ;[inner].flat().forEach((v) => typeof v === "string" && names.add(v))
      }
      walk(inner)
    }
  }
  walk(schema)
  return names
}
