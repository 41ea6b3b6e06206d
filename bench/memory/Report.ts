/** The memory benchmark's report: one row per moment, the same-run floors, and issue 32's targets. */
import { mb, type Sample } from "./Memory.js"

export interface Moment {
  readonly label: string
  readonly serve: Sample
  /** The launcher and `trellis serve`, as `npm start` runs them. */
  readonly tree: number
}

export interface Results {
  readonly firstStart: { readonly ms: number; readonly peak: number }
  readonly restart: { readonly ms: number; readonly peak: number }
  readonly moments: ReadonlyArray<Moment>
  readonly bareNode: Sample
  readonly barePgliteDefault: Sample
  readonly barePgliteServer: Sample
  readonly serverStartParams: ReadonlyArray<string>
  readonly cores: number
}

/** Issue 32's target for `npm start`, first start and again on the same data. */
const TARGET_BYTES = 250 * 1024 * 1024

const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`
const verdict = (bytes: number) => bytes <= TARGET_BYTES ? "PASS" : "MISS"

const row = (cells: ReadonlyArray<string>) => `| ${cells.join(" | ")} |`

export const report = (r: Results): string => {
  const floor = r.barePgliteServer.rss
  const lines = [
    `# trellis serve memory (embedded database, ${r.cores} cores)`,
    "",
    `Server's PGlite start parameters: ${r.serverStartParams.length === 0 ? "PGlite's defaults" : r.serverStartParams.join(" ")}`,
    "",
    row(["moment", "serve RSS", "anonymous", "heap used", "heap total", "external", "npm start (both processes)", "× bare PGlite"]),
    row(["---", "---:", "---:", "---:", "---:", "---:", "---:", "---:"]),
    row(["first start: peak", mb(r.firstStart.peak), "", "", "", "", "", ratio(r.firstStart.peak, floor)]),
    ...r.moments.map((m) =>
      row([
        m.label,
        mb(m.serve.rss),
        mb(m.serve.anon),
        mb(m.serve.heapUsed),
        mb(m.serve.heapTotal),
        mb(m.serve.external),
        mb(m.tree),
        ratio(m.serve.rss, floor)
      ])
    ),
    row(["restart: peak", mb(r.restart.peak), "", "", "", "", "", ratio(r.restart.peak, floor)]),
    "",
    "Same run, nothing else in the process:",
    row(["floor", "RSS", "anonymous"]),
    row(["---", "---:", "---:"]),
    row(["bare node", mb(r.bareNode.rss), mb(r.bareNode.anon)]),
    row(["bare PGlite on the server's data, PGlite's defaults", mb(r.barePgliteDefault.rss), mb(r.barePgliteDefault.anon)]),
    row(["bare PGlite on the server's data, the server's settings", mb(floor), mb(r.barePgliteServer.anon)]),
    "",
    `Start to ready: first start ${(r.firstStart.ms / 1000).toFixed(1)} s, restart ${(r.restart.ms / 1000).toFixed(1)} s.`,
    "",
    "Issue 32's target, serve RSS ≤ 250 MB:",
    ...r.moments.filter((m) => /^(first start|restart): (ready|idle)/.test(m.label)).map((m) =>
      `  ${m.label.padEnd(24)} ${mb(m.serve.rss).padStart(7)}  ${verdict(m.serve.rss)}`
    )
  ]
  return lines.join("\n")
}
