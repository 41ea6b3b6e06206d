/**
 * Trellis as a library: the backend Layer, its configuration, and what an embedding program
 * needs to authenticate callers and run tools in process.
 */
export * as Trellis from "./server.js"
export { TrellisConfig, type TrellisConfigShape } from "./TrellisConfig.js"
export { ToolRunner, UnknownTool } from "./tools/ToolRunner.js"
export { DefaultProject } from "./tools/ToolImplementation.js"
export { ApiKeys, Unauthorized } from "./auth/ApiKeys.js"
export { CurrentPrincipal, CurrentProject, type Principal } from "./auth/Principal.js"
export * as PgliteClient from "./db/PgliteClient.js"
export * as Database from "./db/Database.js"
export { bootstrap } from "./services/Bootstrap.js"
export * from "../catalog/domain/Errors.js"
export { Catalog } from "../catalog/index.js"
