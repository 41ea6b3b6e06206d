import { CreateTaskLabel, ListTaskLabels, UpdateTaskLabel } from "./Labels.js"
import { CreateTaskList, ListTaskLists, UpdateTaskList } from "./Lists.js"
import { ListProjects } from "./Projects.js"
import { ListTaskTypes } from "./Tasks.js"

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
  ListTaskTypes
] as const

export type Catalog = typeof Catalog
export type CatalogTool = Catalog[number]
export type ToolName = CatalogTool["name"]
