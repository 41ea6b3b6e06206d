import type { LoadSettings, Measurement } from "./Load.js"
import type { ServerName } from "./Request.js"

export type Rounds = Readonly<Record<ServerName, ReadonlyArray<Measurement>>>

/** The median of each figure over the rounds; non-2xx and errors are summed, since any is worth seeing. */
export type Summary = Measurement

export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  const upper = sorted[middle] ?? Number.NaN
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? Number.NaN) + upper) / 2
}

const sum = (values: ReadonlyArray<number>): number => values.reduce((total, value) => total + value, 0)

export const summarize = (rounds: ReadonlyArray<Measurement>): Summary => ({
  requestsPerSecond: median(rounds.map((m) => m.requestsPerSecond)),
  p50Ms: median(rounds.map((m) => m.p50Ms)),
  p99Ms: median(rounds.map((m) => m.p99Ms)),
  non2xx: sum(rounds.map((m) => m.non2xx)),
  errors: sum(rounds.map((m) => m.errors))
})

const SERVERS: ReadonlyArray<ServerName> = ["floor", "sdk", "trellis"]

const row = (cells: ReadonlyArray<string>): string => cells.map((cell, i) => (i === 0 ? cell.padEnd(9) : cell.padStart(10))).join(" ")

const table = (summaries: Readonly<Record<ServerName, Summary>>): ReadonlyArray<string> => [
  row(["server", "req/s", "p50 ms", "p99 ms", "non-2xx", "errors"]),
  ...SERVERS.map((name) => {
    const s = summaries[name]
    return row([name, s.requestsPerSecond.toFixed(0), s.p50Ms.toFixed(2), s.p99Ms.toFixed(2), String(s.non2xx), String(s.errors)])
  })
]

const ratios = (trellis: Summary, other: Summary, name: ServerName): string =>
  `trellis / ${name.padEnd(5)}  req/s ${(trellis.requestsPerSecond / other.requestsPerSecond).toFixed(2)}` +
  `   p99 ${(trellis.p99Ms / other.p99Ms).toFixed(2)}`

const target = (label: string, actual: number, required: number): string =>
  `${label.padEnd(24)} ${actual.toFixed(0)} vs ${required.toFixed(0)} req/s  ${actual >= required ? "PASS" : "MISS"}`

export const report = (rounds: Rounds, settings: LoadSettings, roundCount: number): string => {
  const summaries = { floor: summarize(rounds.floor), sdk: summarize(rounds.sdk), trellis: summarize(rounds.trellis) }
  const { floor, sdk, trellis } = summaries
  return [
    `tools/call list_task_types: ${settings.durationSeconds} s per run, ${settings.connections} connections, ` +
    `pipelining ${settings.pipelining}; median of ${roundCount} round(s) (non-2xx and errors summed)`,
    "",
    ...table(summaries),
    "",
    ratios(trellis, floor, "floor"),
    ratios(trellis, sdk, "sdk"),
    "",
    target("trellis ≥ 0.5 × floor", trellis.requestsPerSecond, 0.5 * floor.requestsPerSecond),
    target("trellis ≥ 2 × sdk", trellis.requestsPerSecond, 2 * sdk.requestsPerSecond)
  ].join("\n")
}
