import type { Method } from "./Measure.js"
import type { Workload } from "./Streams.js"
import { median } from "../mcp-overhead/Report.js"

/** The target: normalizing at least half as many lines per second as bare JSON.parse. */
export const MIN_RATIO = 0.5

export interface WorkloadResult {
  readonly workload: Workload
  readonly averageBytes: number
  readonly rounds: Readonly<Record<Method, ReadonlyArray<number>>>
  readonly kinds: ReadonlyMap<string, number>
}

export interface RunDescription {
  readonly lines: number
  readonly rounds: number
  readonly warmup: number
  readonly sink: number
}

const row = (cells: ReadonlyArray<string>): string =>
  cells.map((cell, i) => (i === 0 ? cell.padEnd(19) : cell.padStart(i === 1 ? 6 : 12))).join(" ")

const perSecond = (value: number): string => Math.round(value).toLocaleString("en-US")

const kindSummary = (kinds: ReadonlyMap<string, number>, lines: number): string =>
  [...kinds.entries()]
    .sort(([, a], [, b]) => b - a)
    .map(([kind, count]) => `${kind} ${((100 * count) / lines).toFixed(0)}%`)
    .join(", ")

export const report = (run: RunDescription, results: ReadonlyArray<WorkloadResult>): string => {
  const figures = results.map((result) => {
    const floor = median(result.rounds.floor)
    const normalize = median(result.rounds.normalize)
    return { result, floor, normalize, ratio: normalize / floor }
  })
  return [
    `normalizeChunk(source, type, data) vs JSON.parse(data) (the floor), ${run.lines.toLocaleString("en-US")} lines per ` +
    `stream: each stream's largest fixtures' chunks (as the CLI uploads them) repeated; ${run.warmup} warm-up pass(es), ` +
    `then median of ${run.rounds} interleaved round(s); node ${process.version}`,
    "",
    row(["stream", "bytes", "floor l/s", "normalize l/s", "norm/floor", `≥ ${MIN_RATIO}×`]),
    ...figures.map(({ result, floor, normalize, ratio }) =>
      row([
        result.workload.name,
        result.averageBytes.toFixed(0),
        perSecond(floor),
        perSecond(normalize),
        ratio.toFixed(3),
        ratio >= MIN_RATIO ? "PASS" : "MISS"
      ])
    ),
    "",
    "bytes: average bytes per line. What the lines became (unknown:ignored = a known line with nothing to show):",
    ...results.map((result) => `  ${result.workload.name.padEnd(19)} ${kindSummary(result.kinds, result.workload.lines.length)}`),
    "",
    "fixtures:",
    ...results.slice(0, -1).map((result) =>
      `  ${result.workload.name.padEnd(19)} ${result.workload.fixtures.join(" + ")} (${result.workload.passLines} lines per pass)`
    ),
    `  ${(results.at(-1)?.workload.name ?? "").padEnd(19)} every stream above, one line from each in turn`,
    "",
    `sink ${run.sink}`
  ].join("\n")
}
