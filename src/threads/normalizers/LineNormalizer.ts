import { bundle } from "../../../catalog/events/Bundles.js"
import { checkEvent } from "./EventCheck.js"
import type { NormalizedEvent } from "../../../catalog/events/NormalizedEvent.js"

/**
 * The frame every runtime module shares: parse the chunk's JSON, let the module map the line,
 * check what it built against the Schema, bundle several events into one. Runtime knowledge
 * stays in the module's `LineMapper`; this file knows nothing about any runtime.
 */

export type Json = Record<string, unknown>

/** What a module makes of one parsed line: the events, or why there are none. */
export type LineResult = ReadonlyArray<Json> | "ignored" | "unrecognized-type"

export type LineMapper = (type: string, line: Json) => LineResult

/** Pure and total: exactly one event per chunk, never a throw. */
export type ChunkNormalizer = (type: string, data: string) => NormalizedEvent

export const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

/** The object at `value`, or an empty one, so lookups on a missing level read as absent. */
export const obj = (value: unknown): Json => (isObject(value) ? value : {})

export const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

/** A finite number; a runtime's `-0` is 0, since JSON writes -0 as 0 and the stored event must equal the one sent. */
export const num = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? (value === 0 ? 0 : value) : undefined

/** Copies only the defined entries, so optional fields stay absent (exactOptionalPropertyTypes). */
export const defined = (fields: Json): Json => {
  const copy: Json = {}
  for (const key in fields) if (fields[key] !== undefined) copy[key] = fields[key]
  return copy
}

// JSON.stringify throws on cycles and BigInt, which parsed JSON never holds; the fallback keeps modules total regardless.
export const stringify = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? "null"
  } catch {
    return "null"
  }
}

const notJson = Symbol("notJson")

/** JSON.parse without the exception: malformed input is a value, the normalizer's first outcome. */
const parseJson = (data: string): unknown => {
  try {
    return JSON.parse(data)
  } catch {
    return notJson
  }
}

/**
 * A stand-in for a block or line whose shape we did not expect: it fails the Schema, so the
 * whole chunk is reported as `unknown` (unexpected-shape) instead of being half-read.
 */
export const misread: Json = { kind: "misread" }

const unknown = (reason: string, type: string, data: string): NormalizedEvent => ({ kind: "unknown", reason, rawType: type, rawData: data })

export const lineNormalizer = (mapLine: LineMapper): ChunkNormalizer => (type, data) => {
  const parsed = parseJson(data)
  if (parsed === notJson) return unknown("json-parse-error", type, data)
  if (!isObject(parsed)) return unknown("unexpected-shape", type, data)
  const lines = mapLine(type, parsed)
  if (lines === "ignored" || lines === "unrecognized-type") return unknown(lines, type, data)
  if (lines.length === 0) return unknown("unexpected-shape", type, data)
  const events: Array<NormalizedEvent> = []
  for (const line of lines) {
    const event = checkEvent(line)
    if (event === undefined) return unknown("unexpected-shape", type, data)
    events.push(event)
  }
  return bundle(events)
}
