import autocannon from "autocannon"
import { CALL_BODY, type Target } from "./Request.js"

export interface LoadSettings {
  readonly durationSeconds: number
  readonly warmupSeconds: number
  readonly connections: number
  readonly pipelining: number
}

export interface Measurement {
  readonly requestsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly non2xx: number
  readonly errors: number
}

const fire = (target: Target, settings: LoadSettings, durationSeconds: number) =>
  autocannon({
    url: target.url,
    method: "POST",
    headers: target.headers,
    body: CALL_BODY,
    connections: settings.connections,
    pipelining: settings.pipelining,
    duration: durationSeconds
  })

/** Every request a run of `durationSeconds` sent that got an answer (for the profiled run's per-call figures). */
export const answered = async (target: Target, settings: LoadSettings, durationSeconds: number): Promise<number> => {
  const result = await fire(target, settings, durationSeconds)
  return result.requests.total - result.errors
}

/** A warm-up run (discarded), then the measured run. */
export const measure = async (target: Target, settings: LoadSettings): Promise<Measurement> => {
  if (settings.warmupSeconds > 0) await fire(target, settings, settings.warmupSeconds)
  const result = await fire(target, settings, settings.durationSeconds)
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors
  }
}
