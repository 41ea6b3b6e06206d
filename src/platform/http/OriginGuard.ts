import { isLoopbackHost, type TrellisConfigShape } from "../TrellisConfig.js"

const hostnameOf = (host: string): string => {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(host)
  if (bracketed !== null) return bracketed[1]!
  return host.replace(/:\d+$/, "").toLowerCase()
}

/**
 * MCP's transport rules against DNS rebinding and cross-site calls: a present `Origin` must be
 * allowed, and when bound to loopback the `Host` must be a loopback name. Returns why a
 * request is refused, or undefined.
 */
export const refusal = (header: (name: string) => string | undefined, config: TrellisConfigShape): string | undefined => {
  const host = header("host")
  if (config.loopbackOnly && host !== undefined && !isLoopbackHost(hostnameOf(host))) {
    return `Host ${host} is not allowed: this server only answers on loopback addresses`
  }
  const origin = header("origin")
  if (origin === undefined) return undefined
  if (config.allowedOrigins.includes(origin)) return undefined
  if (!URL.canParse(origin)) return `Origin ${origin} is not allowed`
  const url = new URL(origin)
  if (config.loopbackOnly && isLoopbackHost(hostnameOf(url.hostname))) return undefined
  if (host !== undefined && url.host === host) return undefined
  return `Origin ${origin} is not allowed (set TRELLIS_ALLOWED_ORIGINS to allow it)`
}
