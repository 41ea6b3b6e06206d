/**
 * The same calls one level up: the Projects and task service methods the tool handlers call, in
 * process, without MCP (no JSON-RPC, argument decoding, result encoding or HTTP). Between bare
 * SQL and the tool, this shows whether the cost sits in the services (Schema decoding of rows,
 * access checks) or in the MCP layer.
 */
import { Effect, Schema } from "effect"
import { ApiKeys } from "../../src/platform/auth/ApiKeys.js"
import { ProjectId } from "../../catalog/domain/Ids.js"
import { Projects } from "../../src/projects/Projects.js"
import { TaskReads } from "../../src/tasks/TaskReads.js"
import { TaskSearch } from "../../src/tasks/TaskSearch.js"
import type { ToolName, Workload } from "./Workload.js"

export type ServiceOperation = (iteration: number) => Effect.Effect<ReadonlyArray<string>, unknown>

export const makeServiceCalls = (workload: Workload, apiKey: string) =>
  Effect.gen(function*() {
    const reads = yield* TaskReads
    const search = yield* TaskSearch
    const projects = yield* Projects
    // The server authenticates once per 5 s per key (cached); here once for the whole run.
    const principal = yield* (yield* ApiKeys).authenticate(apiKey)
    const projectId = Schema.decodeUnknownSync(ProjectId)(workload.projectId)
    const refs = workload.getTaskRefs

    const operations: Readonly<Record<ToolName, ServiceOperation>> = {
      // TaskTools get_task: TaskReads.resolve, then TaskReads.details.
      get_task: (iteration) =>
        Effect.gen(function*() {
          const resolved = yield* reads.resolve(principal, refs[iteration % refs.length] ?? "", projectId)
          const { task, subtasks } = yield* reads.details(resolved)
          return [task.id, ...subtasks.map((row) => row.id)]
        }),
      // A scoped tool: Projects.access (ToolImplementation.resolveProject), then the handler's service call.
      list_tasks: () =>
        Effect.gen(function*() {
          const access = yield* projects.access(principal, projectId)
          const rows = yield* reads.list(access, { listId: workload.listId })
          return rows.map((row) => row.id)
        }),
      search_tasks: () =>
        Effect.gen(function*() {
          const access = yield* projects.access(principal, projectId)
          const page = yield* search.search(access, { query: workload.query })
          return page.tasks.map((row) => row.id)
        })
    }
    return operations
  })
