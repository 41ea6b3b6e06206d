import { Schema } from "effect"
import { NormalizedEvent } from "../../catalog/events/NormalizedEvent.js"

/** What the runtime normalizer tests share: event filters and lookups into parsed raw lines. */

type Event = NormalizedEvent
type Path = ReadonlyArray<string | number>

export const isValid = Schema.is(NormalizedEvent)

/** A value inside parsed JSON, `undefined` when a level is missing. */
export const get = (value: unknown, ...path: Path): unknown =>
  path.reduce<unknown>((v, key) => (typeof v === "object" && v !== null ? Reflect.get(v, key) : undefined), value)
export const getStr = (value: unknown, ...path: Path): string | undefined => {
  const v = get(value, ...path)
  return typeof v === "string" ? v : undefined
}
export const getNum = (value: unknown, ...path: Path): number | undefined => {
  const v = get(value, ...path)
  return typeof v === "number" ? v : undefined
}

export const only = <K extends Event["kind"]>(events: ReadonlyArray<Event>, kind: K) =>
  events.filter((e): e is Extract<Event, { kind: K }> => e.kind === kind)
export const isIgnored = (e: Event): boolean => e.kind === "unknown" && e.reason === "ignored"
