import { Layer } from "effect"
import { ApiKeys } from "../platform/auth/ApiKeys.js"
import { MigrationsLive } from "../platform/sql/Migrations.js"
import { AgentSessions } from "../bridge/AgentSessions.js"
import { AgentRoutes } from "../bridge/AgentHttp.js"
import { BridgeSweeperLive } from "../bridge/BridgeSweeper.js"
import { CliProfiles } from "../machines/CliProfiles.js"
import { EventStreams } from "../threads/EventStreams.js"
import { ProjectChanges } from "../projects/ProjectChanges.js"
import { ChangeLog, ChangeLogPurgeLive } from "../projects/ChangeLog.js"
import { ThreadEventFeeds } from "../threads/ThreadEventFeeds.js"
import { RevokedKeys } from "../platform/auth/RevokedKeys.js"
import { Interactions } from "../bridge/Interactions.js"
import { LiveEvents } from "../platform/notifications/LiveEvents.js"
import { Batches } from "../bridge/Batches.js"
import { ChunkUploads } from "../bridge/ChunkUploads.js"
import { ClaimLeases } from "../bridge/ClaimLeases.js"
import { ThreadClaims } from "../bridge/ThreadClaims.js"
import { WorktreeReports } from "../bridge/WorktreeReports.js"
import { ChangeReports } from "../bridge/ChangeReports.js"
import { ChangeReportPages } from "../threads/ChangeReportPages.js"
import { ReviewComments } from "../review/ReviewComments.js"
import { GuardMiddleware } from "../platform/http/GuardMiddleware.js"
import { HealthRoute } from "../platform/http/HealthRoute.js"
import { WebAppRoutes } from "../platform/http/WebApp.js"
import { WebSessionRoutes } from "../platform/http/WebSessionRoutes.js"
import { WebSessions } from "../platform/auth/WebSessions.js"
import { McpRoute } from "./McpRoute.js"
import { RequestGuard } from "../platform/http/RequestGuard.js"
import { McpHttp } from "./McpHttp.js"
import { McpServer } from "./McpServer.js"
import { RateLimiter } from "../platform/http/RateLimiter.js"
import { Memberships } from "../orgs/Memberships.js"
import { Organizations } from "../orgs/Organizations.js"
import { ArtifactComments } from "../artifacts/ArtifactComments.js"
import { Artifacts } from "../artifacts/Artifacts.js"
import { Labels } from "../lists-labels/Labels.js"
import { ProjectAgents } from "../agents/ProjectAgents.js"
import { Projects } from "../projects/Projects.js"
import { Prompts } from "../prompts/Prompts.js"
import { Scopes } from "../projects/Scopes.js"
import { Skills } from "../skills/Skills.js"
import { TaskPurgeLive } from "../tasks/TaskPurge.js"
import { TaskComments } from "../tasks/TaskComments.js"
import { TaskFiles } from "../tasks/TaskFiles.js"
import { TaskLinks } from "../tasks/TaskLinks.js"
import { TaskReads } from "../tasks/TaskReads.js"
import { TaskSearch } from "../tasks/TaskSearch.js"
import { TaskOrder } from "../tasks/TaskOrder.js"
import { TaskTree } from "../tasks/TaskTree.js"
import { TaskWrites } from "../tasks/TaskWrites.js"
import { TaskLists } from "../lists-labels/TaskLists.js"
import { MessagePages } from "../threads/MessagePages.js"
import { ThreadControls } from "../threads/ThreadControls.js"
import { ThreadCreation } from "../threads/ThreadCreation.js"
import { ThreadGroups } from "../threads/ThreadGroups.js"
import { ThreadListing } from "../threads/ThreadListing.js"
import { ThreadMessages } from "../threads/ThreadMessages.js"
import { ThreadRows } from "../threads/ThreadRows.js"
import { TurnStops } from "../threads/TurnStops.js"
import { Users } from "../orgs/Users.js"
import { ToolRunner } from "./ToolRunner.js"
import { TrellisConfig, type TrellisConfigShape } from "../platform/TrellisConfig.js"

/** Every backend service, over a migrated database. Needs a `SqlClient` (PostgreSQL or PGlite). */
export const services = (config: Partial<TrellisConfigShape> = {}) =>
  Layer.mergeAll(
    ApiKeys.Default,
    WebSessions.Default,
    Organizations.Default,
    Users.Default,
    Projects.Default,
    TaskLists.Default,
    Labels.Default,
    TaskReads.Default,
    TaskWrites.Default,
    TaskLinks.Default,
    TaskComments.Default,
    TaskFiles.Default,
    TaskSearch.Default,
    TaskTree.Default,
    TaskOrder.Default,
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
    ThreadClaims.Default,
    ClaimLeases.Default,
    Batches.Default,
    ChunkUploads.Default,
    WorktreeReports.Default,
    ChangeReports.Default,
    ChangeReportPages.Default,
    ReviewComments.Default,
    AgentSessions.Default,
    ThreadRows.Default,
    ThreadListing.Default,
    ThreadCreation.Default,
    ThreadMessages.Default,
    ThreadControls.Default,
    ThreadGroups.Default,
    MessagePages.Default,
    TurnStops.Default,
    ThreadEventFeeds.Default,
    RevokedKeys.Default,
    EventStreams.Default,
    ProjectChanges.Default,
    ChangeLog.Default,
    Interactions.Default,
    TaskPurgeLive.pipe(Layer.provide(TaskTree.Default)),
    ChangeLogPurgeLive.pipe(Layer.provide(ChangeLog.Default)),
    BridgeSweeperLive.pipe(Layer.provide([AgentSessions.Default, ClaimLeases.Default]))
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
 * The HTTP routes (`/api/mcp`, the CLI bridge and thread endpoints, browser sign-in, `/health`, and the
 * web app at `/` and its client routes), registered on an `HttpLayerRouter`, behind the RequestGuard (a
 * global middleware).
 */
export const routes = Layer.mergeAll(
  McpRoute,
  AgentRoutes,
  HealthRoute,
  WebSessionRoutes,
  WebAppRoutes,
  GuardMiddleware
)

/**
 * The whole backend as one Layer: routes plus services. Provide a `SqlClient` and serve it with
 * `HttpLayerRouter.serve`, or use its `ToolRunner` to call tools in process.
 */
export const layer = (config: Partial<TrellisConfigShape> = {}) => routes.pipe(Layer.provideMerge(services(config)))
