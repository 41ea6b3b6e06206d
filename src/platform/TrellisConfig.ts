import { Config, ConfigError, Context, Either, Layer, Option } from "effect"
import { MAX_FILE_BYTES, MAX_TASK_FILE_BYTES } from "../../catalog/domain/TaskFile.js"

export interface RateLimit {
  /** Tokens added per second. */
  readonly perSecond: number
  /** Bucket size: the largest burst allowed. */
  readonly burst: number
}

export interface TrellisConfigShape {
  /** Where the server is reached, without a trailing slash (printed URLs, credentials). */
  readonly publicUrl: string
  /** True when bound to a loopback address: then a non-loopback Host header is refused (DNS rebinding). */
  readonly loopbackOnly: boolean
  /** Extra origins allowed to call the API from a browser, such as `https://app.example.com`. */
  readonly allowedOrigins: ReadonlyArray<string>
  /** Request budget per API key on `/api/mcp` and on the client routes (each its own bucket); none when disabled. */
  readonly rateLimit: Option.Option<RateLimit>
  /** Request budget per API key on the CLI bridge (`/api/agent/*`): a busy CLI calls it far more often. */
  readonly bridgeRateLimit: Option.Option<RateLimit>
  /** The largest request body, on every route: a larger declared length is 413 before any byte is read. */
  readonly maxBodyBytes: number
  /** The largest file attached to a task: the upload route's body limit, in place of `maxBodyBytes`. */
  readonly maxFileBytes: number
  /** The most bytes of files one task holds. */
  readonly maxTaskFileBytes: number
  /** How long a client may take to send a request's headers and body; a response, SSE included, is not bounded. */
  readonly requestTimeoutMs: number
  /** How many tools one `tools/list` page holds. */
  readonly toolsPageSize: number
  /** The web app's base URL (`TRELLIS_APP_URL`), for task paths and URLs; none when not configured. */
  readonly appUrl: Option.Option<string>
  /** CLI bridge timings: SPEC fixes the 30 s heartbeat and 60 s expiry; tests shorten them. */
  readonly bridge: BridgeTimings
}

export interface BridgeTimings {
  readonly heartbeatIntervalMs: number
  /** A session silent this long has expired. */
  readonly sessionTtlMs: number
  /** How long a claim holds without renewal. */
  readonly claimLeaseMs: number
  /** How often the sweeper expires sessions and releases stale leases. */
  readonly sweepIntervalMs: number
}

export const defaults: TrellisConfigShape = {
  publicUrl: "http://127.0.0.1:7420",
  loopbackOnly: true,
  allowedOrigins: [],
  rateLimit: Option.some({ perSecond: 20, burst: 100 }),
  bridgeRateLimit: Option.some({ perSecond: 200, burst: 2000 }),
  maxBodyBytes: 4 * 1024 * 1024,
  maxFileBytes: MAX_FILE_BYTES,
  maxTaskFileBytes: MAX_TASK_FILE_BYTES,
  requestTimeoutMs: 30_000,
  toolsPageSize: 100,
  appUrl: Option.none(),
  bridge: { heartbeatIntervalMs: 30_000, sessionTtlMs: 60_000, claimLeaseMs: 60_000, sweepIntervalMs: 5_000 }
}

export class TrellisConfig extends Context.Tag("trellis/TrellisConfig")<TrellisConfig, TrellisConfigShape>() {
  static readonly layer = (overrides: Partial<TrellisConfigShape> = {}) => Layer.succeed(TrellisConfig, { ...defaults, ...overrides })
}

export const isLoopbackHost = (host: string): boolean =>
  host === "localhost" || host === "::1" || host === "[::1]" || /^127(\.\d{1,3}){3}$/.test(host)

const budgetText = (budget: Option.Option<RateLimit>) =>
  Option.match(budget, { onNone: () => "off", onSome: ({ burst, perSecond }) => `${perSecond}/${burst}` })

/**
 * A rate budget from `name`: `off`, or `<perSecond>/<burst>` (for example `20/100`).
 * `TRELLIS_RATE_LIMIT` (MCP and client routes) and `TRELLIS_BRIDGE_RATE_LIMIT` (the CLI bridge).
 */
const budgetConfig = (name: string, fallback: Option.Option<RateLimit>): Config.Config<Option.Option<RateLimit>> =>
  Config.string(name).pipe(
    Config.withDefault(budgetText(fallback)),
    Config.mapOrFail((value) => {
      if (value.trim().toLowerCase() === "off") return Either.right(Option.none())
      const match = /^\s*(\d+(?:\.\d+)?)\s*\/\s*(\d+)\s*$/.exec(value)
      if (match === null) {
        return Either.left(ConfigError.InvalidData([], "must be `off` or `<perSecond>/<burst>`, for example 20/100"))
      }
      return Either.right(Option.some({ perSecond: Number(match[1]), burst: Number(match[2]) }))
    })
  )

export const rateLimitConfig = budgetConfig("TRELLIS_RATE_LIMIT", defaults.rateLimit)
export const bridgeRateLimitConfig = budgetConfig("TRELLIS_BRIDGE_RATE_LIMIT", defaults.bridgeRateLimit)
