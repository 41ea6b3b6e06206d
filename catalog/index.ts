import { ListProjects } from "./Projects.js"
import { ListTaskTypes } from "./Tasks.js"

export * as Tool from "./Tool.js"

/** Every tool, in the order `tools/list` and `docs/tools.md` present them. */
export const Catalog = [ListProjects, ListTaskTypes] as const

export type Catalog = typeof Catalog
export type CatalogTool = Catalog[number]
export type ToolName = CatalogTool["name"]
