import { Schema } from "effect"
import { NormalizedEvent } from "./NormalizedEvent.js"

/** One raw chunk that expands to several events becomes a `metadata` event holding them. */
export const bundle = (events: ReadonlyArray<NormalizedEvent>): NormalizedEvent =>
  events.length === 1 && events[0] !== undefined
    ? events[0]
    : { kind: "metadata", otherJson: JSON.stringify({ events }) }

const BundlePayload = Schema.parseJson(Schema.Struct({ events: Schema.Array(NormalizedEvent) }))
const decodeBundle = Schema.decodeUnknownOption(BundlePayload)

/** The events inside a bundle, or none when the event is not a bundle. */
export const bundledEvents = (event: NormalizedEvent): ReadonlyArray<NormalizedEvent> | undefined => {
  if (event.kind !== "metadata" || event.otherJson === undefined) return undefined
  const decoded = decodeBundle(event.otherJson)
  return decoded._tag === "Some" ? decoded.value.events : undefined
}

/** Client-side helper: expands a bundle (recursively), passes any other event through. */
export const unbundle = (event: NormalizedEvent): ReadonlyArray<NormalizedEvent> => {
  const inner = bundledEvents(event)
  return inner === undefined ? [event] : inner.flatMap(unbundle)
}
