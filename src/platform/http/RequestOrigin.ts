import { Context, Option } from "effect"
import type { TrellisConfigShape } from "../TrellisConfig.js"

/**
 * The origin a request reached (`http://127.0.0.1:7420`): the public URL's scheme and the
 * request's Host, which the RequestGuard has already checked. Absolute URLs in results (a file's
 * download URL) are built on it, so they work for whoever asked however the server is reached (a
 * port picked at start, a second name); none outside a request (a tool run in process).
 */
export class RequestOrigin extends Context.Reference<RequestOrigin>()("trellis/RequestOrigin", {
  defaultValue: () => Option.none<string>()
}) {}

export const originOf = (config: TrellisConfigShape, host: string | undefined): Option.Option<string> => {
  if (host === undefined || !/^[A-Za-z0-9.\-:[\]]+$/.test(host)) return Option.none()
  const scheme = config.publicUrl.startsWith("https:") ? "https" : "http"
  return Option.some(`${scheme}://${host}`)
}

/** The base of absolute URLs: the request's origin, else the configured public URL. */
export const baseUrl = (config: TrellisConfigShape, origin: Option.Option<string>): string =>
  Option.getOrElse(origin, () => config.publicUrl).replace(/\/+$/, "")
