/**
 * The in-process phase: with the server stopped, the benchmark opens the same database with
 * the project's own layers (src/platform/sql/Database.ts: PGlite on the same data dir, or a pg pool
 * configured as the server's) and measures each tool's bare SQL and its service calls.
 * The embedded database is one process's at a time (PGlite, guarded by a lock file), which is
 * why this runs between two lives of the server rather than alongside it.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Redacted } from "effect"
import { ApiKeys } from "../../src/platform/auth/ApiKeys.js"
import * as Database from "../../src/platform/sql/Database.js"
import { Projects } from "../../src/projects/Projects.js"
import { TaskReads } from "../../src/tasks/TaskReads.js"
import { TaskSearch } from "../../src/tasks/TaskSearch.js"
import { TrellisConfig } from "../../src/platform/TrellisConfig.js"
import type { LoadSettings, Measurement } from "../mcp-overhead/Load.js"
import { countMatches, recordBareSql } from "./BareSql.js"
import { measureInProcess, type InProcessMeasurement } from "./InProcessLoad.js"
import { makeServiceCalls } from "./ServiceCalls.js"
import { TOOL_NAMES, type ToolName, type Workload } from "./Workload.js"

/** Where a call is measured in process: its bare statements, or the service methods the tool calls. */
export type Level = "sql" | "service"

export interface InProcessResults {
  readonly rounds: Readonly<Record<Level, Readonly<Record<ToolName, ReadonlyArray<Measurement>>>>>
  /** search_tasks's bare SQL from a single fiber: its latency without queueing behind other calls. */
  readonly searchAlone: ReadonlyArray<Measurement>
  /** What the first call of each tool returns (task IDs), to check the tools over MCP return the same. */
  readonly reference: Readonly<Record<ToolName, ReadonlyArray<string>>>
  /** How many statements one call of each tool issues. */
  readonly statementsPerCall: Readonly<Record<ToolName, number>>
  /** How many tasks the search query matches in all. */
  readonly queryMatches: number
}

export interface InProcessOptions {
  readonly home: string
  readonly databaseUrl: string | undefined
  readonly apiKey: string
  readonly workload: Workload
  readonly load: LoadSettings
  readonly rounds: number
  /** Run ANALYZE first (PostgreSQL: what autovacuum does within a minute of the seeding). */
  readonly analyze: boolean
  readonly progress: (line: string) => void
}

const layerFor = (options: InProcessOptions) =>
  Layer.mergeAll(TaskReads.Default, TaskSearch.Default, Projects.Default, ApiKeys.Default).pipe(
    Layer.provide(TrellisConfig.layer()),
    Layer.provideMerge(Database.layer({
      databaseUrl: Option.map(Option.fromNullable(options.databaseUrl), Redacted.make),
      home: options.home,
      command: "npm run bench:tasks"
    }))
  )

const format = (m: Measurement): string =>
  `${m.requestsPerSecond.toFixed(0)} ops/s, p50 ${m.p50Ms.toFixed(2)} ms, p99 ${m.p99Ms.toFixed(2)} ms, errors ${m.errors}`

const checked = (level: Level, tool: ToolName, m: InProcessMeasurement) =>
  m.firstFailure === undefined
    ? Effect.succeed(m)
    : Effect.dieMessage(`${level} ${tool}: ${m.errors} call(s) failed; the first:\n${m.firstFailure}`)

export const runInProcess = (options: InProcessOptions): Promise<InProcessResults> =>
  Effect.runPromise(
    Effect.gen(function*() {
      const { workload } = options
      if (options.analyze) yield* (yield* SqlClient.SqlClient)`ANALYZE`
      const service = yield* makeServiceCalls(workload, options.apiKey)
      const bare = yield* recordBareSql(workload, service)
      const sqlOps = bare.operations
      const queryMatches = yield* countMatches(workload)

      const rounds: Record<Level, Record<ToolName, Array<Measurement>>> = {
        sql: { get_task: [], list_tasks: [], search_tasks: [] },
        service: { get_task: [], list_tasks: [], search_tasks: [] }
      }
      const searchAlone: Array<Measurement> = []
      for (let round = 1; round <= options.rounds; round++) {
        for (const tool of TOOL_NAMES) {
          for (const [level, operation] of [["sql", sqlOps[tool]], ["service", service[tool]]] as const) {
            const m = yield* Effect.flatMap(measureInProcess(operation, options.load), (m) => checked(level, tool, m))
            rounds[level][tool].push(m)
            options.progress(`round ${round}/${options.rounds} ${level.padEnd(7)} ${tool.padEnd(12)} ${format(m)}`)
          }
        }
        const alone = yield* Effect.flatMap(
          measureInProcess(sqlOps.search_tasks, { ...options.load, connections: 1 }),
          (m) => checked("sql", "search_tasks", m)
        )
        searchAlone.push(alone)
        options.progress(`round ${round}/${options.rounds} sql     search_tasks ${format(alone)} (1 fiber)`)
      }
      return {
        rounds,
        searchAlone,
        reference: bare.reference,
        statementsPerCall: bare.statementsPerCall,
        queryMatches
      }
    }).pipe(Effect.provide(layerFor(options)))
  )
