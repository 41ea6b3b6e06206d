import { performance } from "node:perf_hooks"
import { normalizeChunk } from "../../src/threads/normalizers/normalize.js"
import type { Line } from "./Streams.js"

export type Method = "floor" | "normalize"

/**
 * Folded into by every pass and printed at the end, so neither loop's work can be dropped.
 * The floor counts parsed objects; normalize adds up the length of each event's kind.
 */
let sink = 0
export const sinkValue = (): number => sink

const parseAll = (lines: ReadonlyArray<Line>): number => {
  let objects = 0
  for (const line of lines) {
    const parsed: unknown = JSON.parse(line.data)
    if (typeof parsed === "object" && parsed !== null) objects++
  }
  return objects
}

const normalizeAll = (lines: ReadonlyArray<Line>): number => {
  let kindChars = 0
  for (const line of lines) kindChars += normalizeChunk(line.source, line.type, line.data).kind.length
  return kindChars
}

/** Lines per second of one pass over `lines`. */
export const measure = (method: Method, lines: ReadonlyArray<Line>): number => {
  const start = performance.now()
  sink += method === "floor" ? parseAll(lines) : normalizeAll(lines)
  const seconds = (performance.now() - start) / 1000
  return lines.length / seconds
}

/** How many lines became each kind (`unknown` split by reason): what the normalize loop actually did. */
export const kindCounts = (lines: ReadonlyArray<Line>): ReadonlyMap<string, number> => {
  const counts = new Map<string, number>()
  for (const line of lines) {
    const event = normalizeChunk(line.source, line.type, line.data)
    const key = event.kind === "unknown" ? `unknown:${event.reason}` : event.kind
    counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  return counts
}
