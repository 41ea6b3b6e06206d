// autocannon ships no types; this covers only the programmatic API the benchmark uses.
declare module "autocannon" {
  interface Options {
    readonly url: string
    readonly method?: "GET" | "POST"
    readonly headers?: Readonly<Record<string, string>>
    readonly body?: string
    readonly connections?: number
    readonly pipelining?: number
    /** Seconds. */
    readonly duration?: number
  }

  interface Histogram {
    readonly average: number
    readonly p50: number
    readonly p99: number
    readonly total: number
  }

  interface Result {
    /** Milliseconds. */
    readonly latency: Histogram
    /** Requests per one-second sample. */
    readonly requests: Histogram
    readonly errors: number
    readonly timeouts: number
    readonly non2xx: number
  }

  function autocannon(options: Options): Promise<Result>

  export = autocannon
}
