import { Either, Schema } from "effect"
import { bundle } from "./Bundles.js"
import { NormalizedEvent } from "./NormalizedEvent.js"

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

export const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The object at `value`, or an empty one, so lookups on a missing level read as absent. */
export const obj = (value: unknown): Json => (isObject(value) ? value : {})

export const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

export const num = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined

/** Copies only the defined entries, so optional fields stay absent (exactOptionalPropertyTypes). */
export const defined = (fields: Json): Json =>
  Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined))

// JSON.stringify throws on cycles and BigInt, which parsed JSON never holds; the fallback keeps modules total regardless.
export const stringify = (value: unknown): string =>
  Either.getOrElse(Either.try((): string => JSON.stringify(value) ?? "null"), () => "null")

/**
 * A stand-in for a block or line whose shape we did not expect: it fails the Schema, so the
 * whole chunk is reported as `unknown` (unexpected-shape) instead of being half-read.
 */
export const misread: Json = { kind: "misread" }

const decodeEvent = Schema.decodeUnknownEither(NormalizedEvent)

export const lineNormalizer =
  (mapLine: LineMapper): ChunkNormalizer =>
  (type, data) => {
    const unknown = (reason: string): NormalizedEvent => ({ kind: "unknown", reason, rawType: type, rawData: data })
    const parsed = Either.try((): unknown => JSON.parse(data))
    if (Either.isLeft(parsed)) return unknown("json-parse-error")
    if (!isObject(parsed.right)) return unknown("unexpected-shape")
    const events = mapLine(type, parsed.right)
    if (events === "ignored" || events === "unrecognized-type") return unknown(events)
    if (events.length === 0) return unknown("unexpected-shape")
    const decoded = Either.all(events.map((event) => decodeEvent(event)))
    return Either.isRight(decoded) ? bundle(decoded.right) : unknown("unexpected-shape")
  }
