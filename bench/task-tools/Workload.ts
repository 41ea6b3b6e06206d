/** What is measured: the same calls, with the same arguments, as MCP tool calls, service calls and bare SQL. */
import type { ToolCall } from "./Mcp.js"

export type ToolName = "get_task" | "list_tasks" | "search_tasks"
export const TOOL_NAMES: ReadonlyArray<ToolName> = ["get_task", "list_tasks", "search_tasks"]

export interface Workload {
  readonly projectId: string
  /** get_task rotates over these refs (top-level tasks, each with its subtasks). */
  readonly getTaskRefs: ReadonlyArray<string>
  /** list_tasks lists this List (the 20-task Sprint). */
  readonly listId: string
  /** search_tasks searches for these two words. */
  readonly query: string
}

/** How many distinct tasks get_task rotates over, so its calls read many tasks (labels, subtasks), not one. */
const GET_TASK_ROTATION = 200

/** Every n-th top-level task, so the rotation spans the whole ref range. */
export const rotationRefs = (topLevelRefs: ReadonlyArray<string>): ReadonlyArray<string> => {
  const stride = Math.max(1, Math.floor(topLevelRefs.length / GET_TASK_ROTATION))
  return topLevelRefs.filter((_, i) => i % stride === 0).slice(0, GET_TASK_ROTATION)
}

/** The calls a tool's load cycles through (autocannon sends them in order on every connection). */
export const toolCalls = (workload: Workload, tool: ToolName): ReadonlyArray<ToolCall> => {
  const { projectId } = workload
  switch (tool) {
    case "get_task":
      return workload.getTaskRefs.map((taskId) => ({ name: tool, arguments: { taskId, projectId } }))
    case "list_tasks":
      return [{ name: tool, arguments: { projectId, listId: workload.listId } }]
    case "search_tasks":
      return [{ name: tool, arguments: { projectId, query: workload.query } }]
  }
}
