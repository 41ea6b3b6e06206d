/**
 * Normalizer throughput benchmark: lines per second through normalizeChunk (src/threads/normalizers/normalize.ts)
 * for each runtime stream, against JSON.parse of the same lines in the same run (the floor; every
 * normalizer parses its chunk first), and the target of ≥ 0.5 × the floor. In process, no I/O.
 * Progress goes to stderr, the report to stdout. A MISS is reported, not an error.
 */
import { intEnv } from "../mcp-overhead/ChildProcess.js"
import { kindCounts, measure, sinkValue, type Method } from "./Measure.js"
import { report, type WorkloadResult } from "./Report.js"
import { averageBytes, mixedWorkload, STREAMS, streamWorkload, type Workload } from "./Streams.js"

const readSettings = () => ({
  lines: intEnv("NORMALIZE_LINES", 100_000, 1),
  rounds: intEnv("NORMALIZE_ROUNDS", 5, 1),
  warmup: intEnv("NORMALIZE_WARMUP", 2, 0)
})

const progress = (line: string): void => {
  process.stderr.write(`${line}\n`)
}

const main = (): void => {
  const settings = readSettings()
  const streams = STREAMS.map((stream) => streamWorkload(stream, settings.lines))
  const workloads: ReadonlyArray<Workload> = [...streams, mixedWorkload(streams, settings.lines)]

  // Every workload warms both loops before any is measured, so all are timed in the same (megamorphic) state.
  for (let pass = 1; pass <= settings.warmup; pass++) {
    for (const workload of workloads) {
      measure("floor", workload.lines)
      measure("normalize", workload.lines)
    }
    progress(`warm-up ${pass}/${settings.warmup} done`)
  }

  const rounds = workloads.map((): Record<Method, Array<number>> => ({ floor: [], normalize: [] }))
  for (let round = 1; round <= settings.rounds; round++) {
    // Alternate which goes first, so neither always runs right after the other's garbage.
    const order: ReadonlyArray<Method> = round % 2 === 1 ? ["floor", "normalize"] : ["normalize", "floor"]
    workloads.forEach((workload, i) => {
      const figures = rounds[i] as Record<Method, Array<number>>
      for (const method of order) figures[method].push(measure(method, workload.lines))
      const floor = figures.floor.at(-1) ?? Number.NaN
      const normalize = figures.normalize.at(-1) ?? Number.NaN
      progress(
        `round ${round}/${settings.rounds} ${workload.name.padEnd(19)} floor ${Math.round(floor)} l/s, ` +
          `normalize ${Math.round(normalize)} l/s, ratio ${(normalize / floor).toFixed(2)}`
      )
    })
  }

  const results: ReadonlyArray<WorkloadResult> = workloads.map((workload, i) => ({
    workload,
    averageBytes: averageBytes(workload),
    rounds: rounds[i] as Record<Method, Array<number>>,
    kinds: kindCounts(workload.lines)
  }))
  process.stdout.write(`${report({ ...settings, sink: sinkValue() }, results)}\n`)
}

try {
  main()
} catch (error) {
  process.stderr.write(`benchmark failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`)
  process.exitCode = 1
}
