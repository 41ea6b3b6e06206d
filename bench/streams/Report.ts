/** The printed report: each round's figures beside the level before the first round, and the issue's targets (PASS/MISS). */

/** Issue 27 §2. */
export const TARGETS = { fanOutMs: 1_000, rssGrowthMb: 50 } as const

export interface Round {
  readonly opened: number
  readonly failures: ReadonlyMap<string, number>
  readonly rssOpenMb: number
  readonly rssAfterMb: number
  readonly reached: number
  /** From the upload request's start to the last reader's arrival; undefined when none arrived. */
  readonly fanOutMs: number | undefined
  readonly uploadStatus: number
  /** Another request (the thread's pending interactions) sent with the upload, on its own connection. */
  readonly other: { readonly status: number; readonly ms: number }
}

export interface Results {
  readonly database: string
  readonly cores: number
  readonly streams: number
  readonly settleMs: number
  readonly rssBeforeMb: number
  readonly otherIdle: { readonly status: number; readonly ms: number }
  readonly rounds: ReadonlyArray<Round>
}

const mb = (value: number) => `${value.toFixed(0)} MB`
const verdict = (pass: boolean) => (pass ? "PASS" : "MISS")
const is2xx = (status: number) => status >= 200 && status < 300

export const roundPasses = (results: Results, round: Round): boolean =>
  round.opened === results.streams && is2xx(round.uploadStatus) && round.reached === results.streams &&
  round.fanOutMs !== undefined && round.fanOutMs <= TARGETS.fanOutMs && is2xx(round.other.status) &&
  round.rssAfterMb - results.rssBeforeMb <= TARGETS.rssGrowthMb

export const report = (results: Results): string => {
  const { rssBeforeMb, otherIdle } = results
  const rows = results.rounds.map((round, i) => {
    const failures = [...round.failures].map(([reason, n]) => `${n}× ${reason}`).join(", ")
    return `| ${i + 1} | ${round.opened}${failures === "" ? "" : ` (${failures})`} | ${mb(round.rssOpenMb)} (${
      (round.rssOpenMb / rssBeforeMb).toFixed(2)
    }×) ` +
      `| ${mb(round.rssAfterMb)} (${round.rssAfterMb - rssBeforeMb >= 0 ? "+" : ""}${(round.rssAfterMb - rssBeforeMb).toFixed(0)} MB, ${
        (round.rssAfterMb / rssBeforeMb).toFixed(2)
      }×) ` +
      `| ${round.reached}/${results.streams} in ${round.fanOutMs === undefined ? "—" : `${(round.fanOutMs / 1000).toFixed(2)} s`} ` +
      `| ${round.uploadStatus} | ${round.other.status} in ${round.other.ms.toFixed(0)} ms (${
        (round.other.ms / otherIdle.ms).toFixed(1)
      }×) ` +
      `| ${verdict(roundPasses(results, round))} |`
  })
  return [
    `Live streams benchmark: ${results.streams} concurrent GET /api/threads/:id/events on one thread, ${results.rounds.length} rounds, ` +
    `against trellis serve on ${results.database}, ${results.cores} cores`,
    `Before the first round: RSS ${mb(rssBeforeMb)}; another request (GET /api/threads/:id/interactions) ${otherIdle.status} in ${
      otherIdle.ms.toFixed(0)
    } ms`,
    "",
    `| round | opened | RSS open | RSS ${
      (results.settleMs / 1000).toFixed(0)
    } s after closing | one event reached | upload | another request meanwhile | |`,
    "|---|---|---|---|---|---|---|---|",
    ...rows,
    "",
    `Targets: every stream opens, every upload 2xx, one event reaches all ${results.streams} within ${
      TARGETS.fanOutMs / 1000
    } s, the other request answers 2xx, ` +
    `RSS after each round's close within ${TARGETS.rssGrowthMb} MB of before: ${
      verdict(results.rounds.every((round) => roundPasses(results, round)))
    }`
  ].join("\n")
}
