import type { Schema } from "effect"
import { ListProjectAgents } from "../../../catalog/Agents.js"
import { ListTaskLists } from "../../../catalog/Lists.js"
import { ListTaskLabels } from "../../../catalog/Labels.js"
import {
  CreateTask,
  CreateTaskComment,
  DeleteTask,
  GetTask,
  ListTasks,
  MoveTask,
  MoveTasksToList,
  SearchTasks,
  UpdateTask
} from "../../../catalog/Tasks.js"
import { GetThreadChanges } from "../../../catalog/ThreadChanges.js"
import { ListThreadMessages, ListThreads } from "../../../catalog/Threads.js"
import { makeToolHooks } from "../lib/queries"

/**
 * The tools the board, a task's page and search call. They load with those (chunks of their own):
 * catalog/Tasks.ts brings the rich text Schemas and their Markdown parser, which the thread pages
 * never need.
 */
const tools = {
  list_task_lists: ListTaskLists,
  list_tasks: ListTasks,
  create_task: CreateTask,
  update_task: UpdateTask,
  move_task: MoveTask,
  move_tasks_to_list: MoveTasksToList,
  list_project_agents: ListProjectAgents,
  list_task_labels: ListTaskLabels,
  get_task: GetTask,
  create_task_comment: CreateTaskComment,
  delete_task: DeleteTask,
  search_tasks: SearchTasks,
  list_threads: ListThreads,
  list_thread_messages: ListThreadMessages,
  get_thread_changes: GetThreadChanges
} as const

export type TaskToolName = keyof typeof tools
export type TaskToolArgs<N extends TaskToolName> = Schema.Schema.Encoded<(typeof tools)[N]["input"]>
export type TaskToolResult<N extends TaskToolName> = Schema.Schema.Type<(typeof tools)[N]["output"]>

export const { useToolMutation, useToolQuery } = makeToolHooks(tools)
