import { Layer } from "effect"
import { ApiKeys } from "./auth/ApiKeys.js"
import { MigrationsLive } from "./db/Migrations.js"
import { AgentSessions } from "./bridge/AgentSessions.js"
import { AgentRoutes } from "./bridge/AgentHttp.js"
import { BridgeSweeperLive } from "./bridge/BridgeSweeper.js"
import { CliProfiles } from "./bridge/CliProfiles.js"
import { EventStreams } from "./bridge/EventStreams.js"
import { Interactions } from "./bridge/Interactions.js"
import { LiveEvents } from "./bridge/LiveEvents.js"
import { ThreadQueue } from "./bridge/ThreadQueue.js"
import { GuardMiddleware } from "./http/GuardMiddleware.js"
import { HealthRoute } from "./http/HealthRoute.js"
import { McpRoute } from "./http/McpRoute.js"
import { RequestGuard } from "./http/RequestGuard.js"
import { McpHttp } from "./mcp/McpHttp.js"
import { McpServer } from "./mcp/McpServer.js"
import { RateLimiter } from "./mcp/RateLimiter.js"
import { Memberships } from "./services/Memberships.js"
import { Organizations } from "./services/Organizations.js"
import { ArtifactComments } from "./services/ArtifactComments.js"
import { Artifacts } from "./services/Artifacts.js"
import { Labels } from "./services/Labels.js"
import { ProjectAgents } from "./services/ProjectAgents.js"
import { Projects } from "./services/Projects.js"
import { Prompts } from "./services/Prompts.js"
import { Scopes } from "./services/Scopes.js"
import { Skills } from "./services/Skills.js"
import { TaskPurgeLive } from "./services/TaskPurge.js"
import { Tasks } from "./services/Tasks.js"
import { TaskLists } from "./services/TaskLists.js"
import { Threads } from "./services/Threads.js"
import { Users } from "./services/Users.js"
import { ToolRunner } from "./tools/ToolRunner.js"
import { TrellisConfig, type TrellisConfigShape } from "./TrellisConfig.js"

/** Every backend service, over a migrated database. Needs a `SqlClient` (PostgreSQL or PGlite). */
export const services = (config: Partial<TrellisConfigShape> = {}) =>
  Layer.mergeAll(
    ApiKeys.Default,
    Organizations.Default,
    Users.Default,
    Projects.Default,
    TaskLists.Default,
    Labels.Default,
    Tasks.Default,
    ProjectAgents.Default,
    Scopes.Default,
    Prompts.Default,
    Skills.Default,
    Artifacts.Default,
    ArtifactComments.Default,
    Memberships.Default,
    ToolRunner.Default,
    McpServer.Default,
    RateLimiter.Default,
    RequestGuard.Default,
    McpHttp.Default,
    LiveEvents.Default,
    CliProfiles.Default,
    ThreadQueue.Default,
    AgentSessions.Default,
    Threads.Default,
    EventStreams.Default,
    Interactions.Default,
    TaskPurgeLive.pipe(Layer.provide(Tasks.Default)),
    BridgeSweeperLive.pipe(Layer.provide([AgentSessions.Default, ThreadQueue.Default]))
  ).pipe(
    Layer.provideMerge(TrellisConfig.layer(config)),
    Layer.provide(MigrationsLive)
  )

/**
 * What `trellis admin` uses, over a migrated database: organizations, users, projects, members
 * and keys, without the routes, the live relays (LISTEN), the bridge sweeper or the task purge.
 */
export const adminServices = (config: Partial<TrellisConfigShape> = {}) =>
  Layer.mergeAll(ApiKeys.Default, Organizations.Default, Users.Default, Projects.Default, Memberships.Default).pipe(
    Layer.provideMerge(TrellisConfig.layer(config)),
    Layer.provide(MigrationsLive)
  )

/**
 * The HTTP routes (`/api/mcp`, the CLI bridge and thread endpoints, `/health`), registered on an
 * `HttpLayerRouter`, behind the RequestGuard (a global middleware).
 */
export const routes = Layer.mergeAll(McpRoute, AgentRoutes, HealthRoute, GuardMiddleware)

/**
 * The whole backend as one Layer: routes plus services. Provide a `SqlClient` and serve it with
 * `HttpLayerRouter.serve`, or use its `ToolRunner` to call tools in process.
 */
export const layer = (config: Partial<TrellisConfigShape> = {}) => routes.pipe(Layer.provideMerge(services(config)))
