/**
 * Trellis as a library: the backend Layer, its configuration, and what an embedding program
 * needs to authenticate callers and run tools in process.
 */
export * from "../catalog/domain/Errors.js"
export { Catalog } from "../catalog/index.js"
export { bootstrap } from "./orgs/Bootstrap.js"
export { ApiKeys, Unauthorized } from "./platform/auth/ApiKeys.js"
export { DefaultProject } from "./platform/auth/Principal.js"
export { CurrentPrincipal, CurrentProject, type Principal } from "./platform/auth/Principal.js"
export * as Database from "./platform/sql/Database.js"
export * as PgliteClient from "./platform/sql/PgliteClient.js"
export { TrellisConfig, type TrellisConfigShape } from "./platform/TrellisConfig.js"
export { ToolRunner, UnknownTool } from "./server/ToolRunner.js"
export * as Trellis from "./server/Trellis.js"
