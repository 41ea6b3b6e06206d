import { CreateTaskLabel, ListTaskLabels, UpdateTaskLabel } from "./Labels.js"
import { CreateTaskList, ListTaskLists, UpdateTaskList } from "./Lists.js"
import { ListProjects } from "./Projects.js"
import {
  CreateTask,
  CreateTaskComment,
  GetTask,
  GetTasks,
  ListTasks,
  ListTaskTypes,
  UpdateTask,
  UpdateTaskLink
} from "./Tasks.js"

export * as Tool from "./Tool.js"

/** Every tool, in the order `tools/list` and `docs/tools.md` present them (SPEC's order). */
export const Catalog = [
  ListProjects,
  ListTaskLists,
  CreateTaskList,
  UpdateTaskList,
  ListTaskLabels,
  CreateTaskLabel,
  UpdateTaskLabel,
  ListTasks,
  GetTask,
  GetTasks,
  CreateTask,
  UpdateTask,
  UpdateTaskLink,
  ListTaskTypes,
  CreateTaskComment
] as const

export type Catalog = typeof Catalog
export type CatalogTool = Catalog[number]
export type ToolName = CatalogTool["name"]
