import { Effect, Schema } from "effect"
import { Catalog, type ToolName } from "../../catalog/index.js"
import { Labels } from "../lists-labels/Labels.js"
import { ProjectAgents } from "../agents/ProjectAgents.js"
import { Prompts } from "../prompts/Prompts.js"
import { Scopes } from "../projects/Scopes.js"
import { Skills } from "../skills/Skills.js"
import { ProjectGate } from "../platform/auth/ProjectGate.js"
import { Projects } from "../projects/Projects.js"
import { TaskLists } from "../lists-labels/TaskLists.js"
import { TaskComments } from "../tasks/TaskComments.js"
import { TaskLinks } from "../tasks/TaskLinks.js"
import { TaskReads } from "../tasks/TaskReads.js"
import { TaskSearch } from "../tasks/TaskSearch.js"
import { TaskTree } from "../tasks/TaskTree.js"
import { TaskWrites } from "../tasks/TaskWrites.js"
import { ThreadCreation } from "../threads/ThreadCreation.js"
import { ThreadListing } from "../threads/ThreadListing.js"
import { ThreadUsage } from "../threads/ThreadUsage.js"
import { ThreadMessages } from "../threads/ThreadMessages.js"
import { ThreadRows } from "../threads/ThreadRows.js"
import { CliProfiles } from "../machines/CliProfiles.js"
import { AgentTools } from "../agents/AgentTools.js"
import { ArtifactComments } from "../artifacts/ArtifactComments.js"
import { Artifacts } from "../artifacts/Artifacts.js"
import { ArtifactCommentSending } from "../artifacts/ArtifactCommentSending.js"
import { ArtifactCommentTools } from "../artifacts/ArtifactCommentTools.js"
import { ArtifactTools } from "../artifacts/ArtifactTools.js"
import { TaskArtifactsLive } from "../artifacts/TaskArtifactsLive.js"
import { LabelTools } from "../lists-labels/LabelTools.js"
import { ListTools } from "../lists-labels/ListTools.js"
import { ProjectTools } from "../projects/ProjectTools.js"
import { PromptTools } from "../prompts/PromptTools.js"
import { SkillTools } from "../skills/SkillTools.js"
import { TaskTools } from "../tasks/TaskTools.js"
import { TaskFiles } from "../tasks/TaskFiles.js"
import { ThreadTools } from "../threads/ThreadTools.js"
import { ThreadChangeTools } from "../threads/ThreadChangeTools.js"
import { ChangeReportPages } from "../threads/ChangeReportPages.js"
import { ChangeRequests } from "../threads/ChangeRequests.js"
import { ReviewComments } from "../review/ReviewComments.js"
import { ReviewTools } from "../review/ReviewTools.js"
import type { CurrentPrincipal } from "../platform/auth/Principal.js"
import type { ToolError } from "../../catalog/domain/Errors.js"
import type { Complete, Implementation } from "../platform/mcp/ToolImplementation.js"
import type { DefaultProject } from "../platform/auth/Principal.js"

export class UnknownTool extends Schema.TaggedError<UnknownTool>()("UnknownTool", { name: Schema.String }) {
  override get message() {
    return `Unknown tool: ${this.name}`
  }
}

const complete = <const Impls extends ReadonlyArray<Implementation>>(impls: Complete<ToolName, Impls>) => impls

/** Runs catalog tools by name, for the MCP endpoint and for in-process callers alike. */
export class ToolRunner extends Effect.Service<ToolRunner>()("trellis/ToolRunner", {
  effect: Effect.gen(function*() {
    const projects = yield* Projects
    const implementations = complete([
      ...(yield* ProjectTools),
      ...(yield* ListTools),
      ...(yield* LabelTools),
      ...(yield* TaskTools),
      ...(yield* AgentTools),
      ...(yield* PromptTools),
      ...(yield* SkillTools),
      ...(yield* ArtifactTools),
      ...(yield* ArtifactCommentTools),
      ...(yield* ThreadTools),
      ...(yield* ThreadChangeTools),
      ...(yield* ReviewTools)
    ])
    const byName = new Map<string, Implementation>(implementations.map((impl) => [impl.tool.name, impl]))

    /** Runs a tool with raw arguments; the result is the tool's encoded output. */
    const call = (
      name: string,
      args: unknown
    ): Effect.Effect<unknown, ToolError | UnknownTool, CurrentPrincipal | DefaultProject> => {
      const implementation = byName.get(name)
      if (implementation === undefined) return Effect.fail(new UnknownTool({ name }))
      return implementation._tag === "Unscoped"
        ? implementation.run(args)
        : Effect.provideService(implementation.run(args), ProjectGate, projects)
    }

    return { tools: Catalog, call } as const
  }),
  dependencies: [
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
    Artifacts.Default,
    TaskArtifactsLive,
    ArtifactComments.Default,
    ArtifactCommentSending.Default,
    ThreadRows.Default,
    ThreadListing.Default,
    ThreadUsage.Default,
    ThreadCreation.Default,
    ThreadMessages.Default,
    CliProfiles.Default,
    ChangeReportPages.Default,
    ChangeRequests.Default,
    ReviewComments.Default,
    ProjectAgents.Default,
    Scopes.Default,
    Prompts.Default,
    Skills.Default
  ]
}) {}
