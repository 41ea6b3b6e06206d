/**
 * Closed-loop load in process, the counterpart of autocannon's connections: `connections`
 * fibers, each issuing one call after the other for the duration, all through one client
 * (so through its pool: PGlite's single session, or pg's pool).
 */
import { Cause, Effect, Exit } from "effect"
import type { LoadSettings, Measurement } from "../mcp-overhead/Load.js"

export interface InProcessMeasurement extends Measurement {
  /** The first failure, if any call failed (a benchmark of failing calls measures nothing useful). */
  readonly firstFailure: string | undefined
}

const nextMacrotask = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

/** Nearest-rank percentile of ascending values. */
const percentile = (sorted: Float64Array, p: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN

const run = <E>(operation: (iteration: number) => Effect.Effect<unknown, E>, fibers: number, seconds: number) =>
  Effect.gen(function*() {
    const latencies: Array<number> = []
    let errors = 0
    let firstFailure: string | undefined
    const started = performance.now()
    const deadline = started + seconds * 1000
    const worker = Effect.gen(function*() {
      // Each fiber starts the rotation at the beginning, as each autocannon connection does.
      for (let iteration = 0; performance.now() < deadline; iteration++) {
        const start = performance.now()
        const exit = yield* Effect.exit(operation(iteration))
        if (Exit.isSuccess(exit)) latencies.push(performance.now() - start)
        else {
          errors++
          firstFailure ??= Cause.pretty(exit.cause)
        }
        // An HTTP client's next request arrives as I/O, in a later macrotask. Without this pause a
        // fiber would take the database again before the waiters its release woke get to run
        // (PGlite's stand-in for a pool, an Effect Semaphore, lets it barge ahead of them), so a
        // few fibers would do all the work and the latencies would show a starvation HTTP clients do not cause.
        yield* nextMacrotask
      }
    })
    yield* Effect.all(Array.from({ length: fibers }, () => worker), { concurrency: "unbounded", discard: true })
    const elapsedSeconds = (performance.now() - started) / 1000
    const sorted = Float64Array.from(latencies).sort()
    return {
      requestsPerSecond: latencies.length / elapsedSeconds,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
      non2xx: 0,
      errors,
      firstFailure
    } satisfies InProcessMeasurement
  })

/** A warm-up run (discarded), then the measured run; as `measure` in ../mcp-overhead/Load.ts. */
export const measureInProcess = <E>(operation: (iteration: number) => Effect.Effect<unknown, E>, settings: LoadSettings) =>
  Effect.gen(function*() {
    if (settings.warmupSeconds > 0) yield* run(operation, settings.connections, settings.warmupSeconds)
    return yield* run(operation, settings.connections, settings.durationSeconds)
  })
