/** The printed report: figures per tool and level, ratios, and the targets (PASS/MISS). */
import type { LoadSettings, Measurement } from "../mcp-overhead/Load.js"
import { summarize, type Summary } from "../mcp-overhead/Report.js"
import type { Level } from "./InProcess.js"
import { TOOL_NAMES, type ToolName } from "./Workload.js"

export interface AllRounds {
  /** Every tool at every level, under the configured number of connections (fibers). */
  readonly loaded: Readonly<Record<Level | "tool", Readonly<Record<ToolName, ReadonlyArray<Measurement>>>>>
  /** search_tasks from one connection (fiber): its latency without queueing. */
  readonly searchAlone: Readonly<Record<"tool" | "sql", ReadonlyArray<Measurement>>>
}

export interface RunDescription {
  readonly database: string
  readonly postgres: boolean
  readonly data: string
  readonly seeding: string
  readonly calls: ReadonlyArray<string>
  readonly load: LoadSettings
  readonly rounds: number
}

/** The targets. */
const MIN_RATIO = 0.4
const SEARCH_P99_MS = 20

const LEVELS: ReadonlyArray<{ readonly level: Level | "tool"; readonly label: string }> = [
  { level: "tool", label: "MCP tool" },
  { level: "service", label: "service" },
  { level: "sql", label: "bare SQL" }
]

const row = (cells: ReadonlyArray<string>): string =>
  cells.map((cell, i) => (i < 2 ? cell.padEnd(i === 0 ? 13 : 9) : cell.padStart(9))).join(" ")

const verdict = (pass: boolean): string => (pass ? "PASS" : "MISS")

export const report = (run: RunDescription, rounds: AllRounds): string => {
  const summary = (level: Level | "tool", tool: ToolName): Summary => summarize(rounds.loaded[level][tool])
  const figures = TOOL_NAMES.flatMap((tool) =>
    LEVELS.map(({ level, label }, i) => {
      const s = summary(level, tool)
      return row([
        i === 0 ? tool : "",
        label,
        s.requestsPerSecond.toFixed(0),
        s.p50Ms.toFixed(2),
        s.p99Ms.toFixed(2),
        String(s.non2xx + s.errors)
      ])
    })
  )
  const ratio = (tool: ToolName, a: Level | "tool", b: Level | "tool") =>
    (summary(a, tool).requestsPerSecond / summary(b, tool).requestsPerSecond).toFixed(2)
  const ratios = TOOL_NAMES.map((tool) =>
    row([tool, "", ratio(tool, "tool", "sql"), ratio(tool, "service", "sql"), ratio(tool, "tool", "service")])
  )
  const targets = TOOL_NAMES.map((tool) => {
    const actual = summary("tool", tool).requestsPerSecond
    const required = MIN_RATIO * summary("sql", tool).requestsPerSecond
    return `${tool.padEnd(13)} tool ≥ ${MIN_RATIO} × bare SQL req/s   ${actual.toFixed(0)} vs ${required.toFixed(0)}   ${
      verdict(actual >= required)
    }`
  })
  const searchTarget = (p99: number, connections: number) =>
    `${"search_tasks".padEnd(13)} tool p99 < ${SEARCH_P99_MS} ms on PostgreSQL, ${String(connections).padStart(2)} connection(s)   ` +
    `${p99.toFixed(2)} ms   ${run.postgres ? verdict(p99 < SEARCH_P99_MS) : "(not applicable: embedded database)"}`
  const alone = { tool: summarize(rounds.searchAlone.tool), sql: summarize(rounds.searchAlone.sql) }
  const aloneRows = (["tool", "sql"] as const).map((level, i) => {
    const s = alone[level]
    return row([
      i === 0 ? "search_tasks" : "",
      level === "tool" ? "MCP tool" : "bare SQL",
      s.requestsPerSecond.toFixed(0),
      s.p50Ms.toFixed(2),
      s.p99Ms.toFixed(2),
      String(s.non2xx + s.errors)
    ])
  })

  return [
    `Task tools over MCP vs. the SQL they issue, on ${run.database}`,
    `data:    ${run.data}`,
    `seeding: ${run.seeding}`,
    ...run.calls.map((call) => `call:    ${call}`),
    `order:   1. seed through MCP (trellis serve); 2. stop the server; in this process, on the same database through`,
    `         src/platform/sql/Database.ts's layer (same client and pool settings as the server): measure each call's service`,
    `         calls (the Projects/Tasks methods its tool handler calls) and its bare SQL (the statements those calls`,
    `         issued, recorded and replayed verbatim); 3. restart the server on the same database and measure`,
    `         tools/call over HTTP with autocannon`,
    `load:    ${run.load.durationSeconds} s per run after a ${run.load.warmupSeconds} s warm-up; ${run.load.connections} HTTP connections ` +
    `(tool) or ${run.load.connections} fibers (in process); median of ${run.rounds} round(s), errors summed`,
    "",
    row(["tool", "level", "req/s", "p50 ms", "p99 ms", "errors"]),
    ...figures,
    "",
    row(["req/s ratio", "", "tool/SQL", "svc/SQL", "tool/svc"]),
    ...ratios,
    "",
    "one connection (fiber), so no call waits behind another:",
    ...aloneRows,
    "",
    ...targets,
    searchTarget(summary("tool", "search_tasks").p99Ms, run.load.connections),
    searchTarget(alone.tool.p99Ms, 1),
    "",
    "note: autocannon's latency percentiles have 1 ms resolution; the in-process ones are exact."
  ].join("\n")
}
