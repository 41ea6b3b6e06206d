/**
 * Task tools benchmark: seeds a project with BENCH_TASKS tasks through MCP, then measures
 * get_task, list_tasks and search_tasks as bare SQL, as service calls and as MCP tool calls, and
 * reports the ratios against the issue's targets. Embedded database by default; PostgreSQL with
 * BENCH_DATABASE_URL (a fresh database is created on that server and dropped at the end).
 * Progress goes to stderr, the report to stdout. A MISS is reported, not an error.
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { isDeepStrictEqual } from "node:util"
import { intEnv } from "../mcp-overhead/ChildProcess.js"
import type { LoadSettings, Measurement } from "../mcp-overhead/Load.js"
import { makeCorpus } from "./Corpus.js"
import { runInProcess } from "./InProcess.js"
import { arrayField, callTool, stringField, type McpTarget } from "./Mcp.js"
import { createDatabase } from "./PgDatabase.js"
import { report } from "./Report.js"
import { seed } from "./Seed.js"
import { readCredentials, startServer, targetOf } from "./Server.js"
import { measureTool } from "./ToolLoad.js"
import { rotationRefs, toolCalls, TOOL_NAMES, type ToolName, type Workload } from "./Workload.js"
import { makeCleanups, progress, runBenchmark } from "../BenchmarkRun.js"

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url))

const readSettings = () => ({
  load: {
    durationSeconds: intEnv("BENCH_DURATION", 10, 1),
    warmupSeconds: intEnv("BENCH_WARMUP", 2, 0),
    connections: intEnv("BENCH_CONNECTIONS", 20, 1),
    pipelining: 1
  } satisfies LoadSettings,
  rounds: intEnv("BENCH_ROUNDS", 2, 1),
  tasks: intEnv("BENCH_TASKS", 10_000, 1),
  seedConcurrency: intEnv("BENCH_SEED_CONCURRENCY", 8, 1),
  /** A PostgreSQL server to create the run's database on; none: the embedded database. */
  databaseServerUrl: process.env["BENCH_DATABASE_URL"] || undefined,
  /** Keep the home directory and the database afterwards, to inspect them (e.g. EXPLAIN ANALYZE). */
  keep: process.env["BENCH_KEEP"] === "1"
})

const cleanups = makeCleanups()

/** The task IDs a tool's result holds, in the shape the in-process reference uses. */
const idsOf = async (target: McpTarget, workload: Workload, tool: ToolName): Promise<ReadonlyArray<string>> => {
  const [call] = toolCalls(workload, tool)
  if (call === undefined) throw new Error(`${tool}: no call to make`)
  const result = await callTool(target, call)
  return tool === "get_task"
    ? [stringField(result, "taskId"), ...arrayField(result, "subtasks").map((subtask) => stringField(subtask, "taskId"))]
    : arrayField(result, "tasks").map((task) => stringField(task, "taskId"))
}

/** Throws unless the tool answers, without error, the same tasks as its bare SQL did. */
const verifyTool = async (target: McpTarget, workload: Workload, tool: ToolName, expected: ReadonlyArray<string>) => {
  const actual = await idsOf(target, workload, tool)
  if (!isDeepStrictEqual(actual, expected)) {
    throw new Error(`${tool} over MCP returned ${JSON.stringify(actual)}, its bare SQL ${JSON.stringify(expected)}`)
  }
}

const formatTool = (m: Measurement): string =>
  `${m.requestsPerSecond.toFixed(0)} req/s, p50 ${m.p50Ms.toFixed(2)} ms, p99 ${
    m.p99Ms.toFixed(2)
  } ms, non-2xx ${m.non2xx}, errors ${m.errors}`

const describeDatabase = (serverUrl: string | undefined, name: string | undefined): string => {
  if (serverUrl === undefined) return "the embedded database (PGlite, in the server process)"
  const url = new URL(serverUrl)
  return `PostgreSQL at ${url.host} (fresh database ${name ?? "?"}; the server's pg pool: default size 10)`
}

const main = async (): Promise<void> => {
  const settings = readSettings()
  const corpus = makeCorpus(settings.tasks)
  progress(
    `corpus: ${corpus.topLevel.length} top-level tasks, ${corpus.subtasks.length} subtasks, query "${corpus.query.text}" ` +
      `(${corpus.query.expectedMatches} matches expected)`
  )

  const home = await mkdtemp(join(tmpdir(), "trellis-bench-tasks-"))
  cleanups.push(() => settings.keep ? Promise.resolve(progress(`kept ${home}`)) : rm(home, { recursive: true, force: true }))
  const database = settings.databaseServerUrl === undefined ? undefined : await createDatabase(settings.databaseServerUrl)
  if (database !== undefined) {
    progress(`created database ${database.name}`)
    cleanups.push(() => settings.keep ? Promise.resolve(progress(`kept database ${database.name}`)) : database.drop())
  }
  const databaseUrl = database?.url

  // 1. Seed through the tools.
  progress("starting trellis serve…")
  const seeding = await startServer(REPO_ROOT, home, databaseUrl)
  cleanups.push(seeding.stop)
  const credentials = await readCredentials(home)
  const seeded = await seed(targetOf(seeding, credentials), credentials.projectId, corpus, settings.seedConcurrency, progress)
  await seeding.stop()

  const workload: Workload = {
    projectId: credentials.projectId,
    getTaskRefs: rotationRefs(seeded.topLevelRefs),
    listId: seeded.sprintListId,
    query: corpus.query.text
  }

  // 2. Bare SQL and service calls, in this process, on the same database.
  progress("measuring bare SQL and service calls in process…")
  const inProcess = await runInProcess({
    home,
    databaseUrl,
    apiKey: credentials.apiKey,
    workload,
    load: settings.load,
    rounds: settings.rounds,
    analyze: database !== undefined,
    progress
  })

  // 3. The tools over MCP, on the same database.
  progress("restarting trellis serve…")
  const serving = await startServer(REPO_ROOT, home, databaseUrl)
  cleanups.push(serving.stop)
  const target = targetOf(serving, credentials)
  const toolRounds: Record<ToolName, Array<Measurement>> = { get_task: [], list_tasks: [], search_tasks: [] }
  const searchAlone: Array<Measurement> = []
  for (let round = 1; round <= settings.rounds; round++) {
    for (const tool of TOOL_NAMES) {
      // Before and after: autocannon sees only HTTP statuses, and a failing tool still answers 200.
      await verifyTool(target, workload, tool, inProcess.reference[tool])
      const m = await measureTool(target, toolCalls(workload, tool), settings.load)
      await verifyTool(target, workload, tool, inProcess.reference[tool])
      toolRounds[tool].push(m)
      progress(`round ${round}/${settings.rounds} tool    ${tool.padEnd(12)} ${formatTool(m)}`)
    }
    // The latency target again without queueing: one connection, so p99 is the call's own time.
    const alone = await measureTool(target, toolCalls(workload, "search_tasks"), { ...settings.load, connections: 1 })
    searchAlone.push(alone)
    progress(`round ${round}/${settings.rounds} tool    search_tasks ${formatTool(alone)} (1 connection)`)
  }

  const subtaskShare = corpus.topLevel.length === 0 ? 0 : corpus.subtasks.length / corpus.topLevel.length
  process.stdout.write(`${
    report({
      database: describeDatabase(settings.databaseServerUrl, database?.name),
      postgres: database !== undefined,
      data: `${seeded.taskCount} tasks: ${corpus.topLevel.length} top-level (Markdown descriptions, 80% labelled) with ` +
        `${subtaskShare.toFixed(0)} subtasks each (short descriptions, 50% labelled); ${corpus.labels.length} labels; ` +
        `${corpus.sprint.size} tasks in the Sprint List; ` +
        (database === undefined
          ? "no ANALYZE (PGlite runs no autovacuum, so an embedded install has no planner statistics either)"
          : "ANALYZE after seeding (what autovacuum does within a minute)"),
      seeding: `${seeded.seconds.toFixed(1)} s through create_task over MCP (${(seeded.taskCount / seeded.seconds).toFixed(0)} tasks/s, ` +
        `${settings.seedConcurrency} calls in flight)`,
      calls: [
        `get_task      rotating over ${workload.getTaskRefs.length} top-level refs (bare ref + projectId), each with its subtasks`,
        `list_tasks    listId = the Sprint List (${inProcess.reference.list_tasks.length} tasks)`,
        `search_tasks  query "${workload.query}" (${inProcess.queryMatches} matching tasks; first page of ${inProcess.reference.search_tasks.length})`,
        `statements per call: ${TOOL_NAMES.map((tool) => `${tool} ${inProcess.statementsPerCall[tool]}`).join(", ")} ` +
        `(recorded from the service calls, replayed as the bare SQL)`
      ],
      load: settings.load,
      rounds: settings.rounds
    }, {
      loaded: { tool: toolRounds, sql: inProcess.rounds.sql, service: inProcess.rounds.service },
      searchAlone: { tool: searchAlone, sql: inProcess.searchAlone }
    })
  }\n`)
}

await runBenchmark(main, cleanups)
