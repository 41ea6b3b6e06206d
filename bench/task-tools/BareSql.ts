/**
 * The bare SQL of each tool call: exactly the statements the call's service methods issue,
 * recorded from real calls (one per distinct argument) and replayed in the same order, with
 * the same parameters, through the same client and pool. Nothing else runs: no MCP, no Schema
 * decoding of rows, no access decisions, not even SQL compilation.
 *
 * Recorded rather than copied from src/tasks, so the baseline cannot drift from what the
 * tools really send (the services change often; a stale copy would measure other SQL).
 * Replaying recorded parameters is exact here because the measured calls only read.
 *
 * Not included, as in the tools' steady state: the API-key lookup, which the server caches
 * for 5 s (one UPDATE per key per 5 s, nothing per call).
 */
import { SqlClient, Statement } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import type { ServiceOperation } from "./ServiceCalls.js"
import type { ToolName, Workload } from "./Workload.js"

/** One call, as a sequence of statements; returns nothing (the rows are not used). */
export type BareOperation = (iteration: number) => Effect.Effect<void, SqlError>

interface RecordedStatement {
  readonly sql: string
  readonly params: ReadonlyArray<unknown>
}

export interface BareSql {
  readonly operations: Readonly<Record<ToolName, BareOperation>>
  /** What each tool's first call returned (task IDs), to check the tools over MCP return the same. */
  readonly reference: Readonly<Record<ToolName, ReadonlyArray<string>>>
  /** How many statements one call of each tool issues. */
  readonly statementsPerCall: Readonly<Record<ToolName, number>>
}

/** Runs `effect`, noting every statement it executes, compiled, with its parameters. */
const recording = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.suspend(() => {
    const statements: Array<RecordedStatement> = []
    return effect.pipe(
      Statement.withTransformer((statement) => {
        const [sql, params] = statement.compile()
        statements.push({ sql, params })
        return Effect.succeed(statement)
      }),
      Effect.map((result) => ({ result, statements }))
    )
  })

/** How many distinct calls a tool's load rotates over (get_task: one per ref; the others: one). */
const rotationLength = (workload: Workload, tool: ToolName): number => (tool === "get_task" ? workload.getTaskRefs.length : 1)

export const recordBareSql = (workload: Workload, service: Readonly<Record<ToolName, ServiceOperation>>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const replay = (statements: ReadonlyArray<RecordedStatement>) =>
      Effect.forEach(statements, (statement) => sql.unsafe(statement.sql, statement.params), { discard: true })

    const recordTool = (tool: ToolName) =>
      Effect.gen(function*() {
        const calls = yield* Effect.forEach(
          Array.from({ length: rotationLength(workload, tool) }, (_, iteration) => iteration),
          (iteration) => recording(service[tool](iteration))
        )
        const first = calls[0]
        if (first === undefined) return yield* Effect.dieMessage(`${tool}: nothing to record`)
        const operation: BareOperation = (iteration) => replay(calls[iteration % calls.length]?.statements ?? [])
        return { operation, reference: first.result, statements: first.statements.length }
      })
    const get = yield* recordTool("get_task")
    const list = yield* recordTool("list_tasks")
    const search = yield* recordTool("search_tasks")
    return {
      operations: { get_task: get.operation, list_tasks: list.operation, search_tasks: search.operation },
      reference: { get_task: get.reference, list_tasks: list.reference, search_tasks: search.reference },
      statementsPerCall: { get_task: get.statements, list_tasks: list.statements, search_tasks: search.statements }
    } satisfies BareSql
  })

/** How many active tasks of the project match the query in full text (for the report; not measured). */
export const countMatches = (workload: Workload) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM tasks t, websearch_to_tsquery('simple', ${workload.query}) AS q(query)
        WHERE t.project_id = ${workload.projectId} AND t.deleted_at IS NULL AND t.archived_at IS NULL AND t.search @@ q.query`,
      (rows) => rows[0]?.n ?? 0
    ))
