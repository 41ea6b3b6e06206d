import { VERSION } from "../../catalog/Version.js"

/** How long a 2026-07-28 client may keep a list, and whether a shared cache may hand it to others. */
export interface CacheHint {
  readonly ttlMs: number
  readonly cacheScope: "public" | "private"
}

/**
 * A list that is the same for everyone on the same URL: the tool catalog changes only when the
 * server is upgraded.
 */
export const STATIC_LIST: CacheHint = { ttlMs: 3_600_000, cacheScope: "public" }

/**
 * A list that depends on the key or on the URL's project (its prompts, its Skills, the tools a
 * narrowed key may call). A new prompt or Skill shows within this time.
 */
export const CALLER_LIST: CacheHint = { ttlMs: 30_000, cacheScope: "private" }

export const SERVER_INFO = { name: "trellis", title: "Trellis", version: VERSION } as const

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * A result as the 2026-07-28 revision shapes it: `resultType`, the server's identity in `_meta`,
 * and, on cacheable results, the cache hint.
 */
export const modernResult = (result: unknown, hint: CacheHint | undefined): Record<string, unknown> => {
  const body = isObject(result) ? result : {}
  const meta = isObject(body["_meta"]) ? body["_meta"] : {}
  return {
    ...body,
    resultType: "complete",
    ...(hint === undefined ? {} : hint),
    _meta: { ...meta, "io.modelcontextprotocol/serverInfo": SERVER_INFO }
  }
}
