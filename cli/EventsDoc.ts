import { JSONSchema, type Schema } from "effect"
import { NormalizedEventKinds } from "../catalog/events/NormalizedEvent.js"

/**
 * The field reference of docs/events.md, generated from the event Schema. The prose around it
 * (runtime mappings) is written by hand; only the region between the markers is replaced.
 */

export const eventsDocStart = "<!-- events:generated:start (npm run docs) -->"
export const eventsDocEnd = "<!-- events:generated:end -->"

interface FieldSchema {
  readonly type?: string
  readonly enum?: ReadonlyArray<unknown>
  readonly description?: string
}

interface KindSchema {
  readonly description?: string
  readonly required?: ReadonlyArray<string>
  readonly properties?: Readonly<Record<string, FieldSchema>>
}

const isKindSchema = (value: unknown): value is KindSchema => typeof value === "object" && value !== null

const definition = (schema: Schema.Schema.AnyNoContext): KindSchema => {
  const json = JSONSchema.make(schema)
  const defs = Object.values(json.$defs ?? {})
  const found = defs[0]
  return isKindSchema(found) ? found : {}
}

const typeOf = (field: FieldSchema): string =>
  field.enum !== undefined ? field.enum.map((v) => `\`${JSON.stringify(v)}\``).join(" \\| ") : (field.type ?? "")

const cell = (text: string): string => text.replaceAll("|", "\\|").replaceAll("\n", " ")

const renderKind = (schema: Schema.Schema.AnyNoContext): ReadonlyArray<string> => {
  const def = definition(schema)
  const properties = Object.entries(def.properties ?? {})
  const kind = properties.find(([name]) => name === "kind")?.[1].enum?.[0]
  const required = new Set(def.required ?? [])
  return [
    `### \`${String(kind)}\``,
    "",
    def.description ?? "",
    "",
    "| field | type | | meaning |",
    "|---|---|---|---|",
    ...properties
      .filter(([name]) => name !== "kind")
      .map(([name, field]) =>
        `| \`${name}\` | ${typeOf(field)} | ${required.has(name) ? "required" : "optional"} | ${cell(field.description ?? "")} |`
      ),
    ""
  ]
}

export const renderEventsReference = (): string =>
  [eventsDocStart, "", ...NormalizedEventKinds.flatMap(renderKind), eventsDocEnd].join("\n")

/** The document with its generated region brought up to date; the prose around it is kept. */
export const renderEventsDoc = (current: string): string => {
  const start = current.indexOf(eventsDocStart)
  const end = current.indexOf(eventsDocEnd)
  if (start === -1 || end === -1 || end < start) return `${current.trimEnd()}\n\n${renderEventsReference()}\n`
  return current.slice(0, start) + renderEventsReference() + current.slice(end + eventsDocEnd.length)
}
