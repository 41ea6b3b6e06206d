import { Effect, Schema } from "effect"
import { Catalog, type ToolName } from "../../catalog/index.js"
import { Labels } from "../services/Labels.js"
import { ProjectAgents } from "../services/ProjectAgents.js"
import { Prompts } from "../services/Prompts.js"
import { Scopes } from "../services/Scopes.js"
import { Skills } from "../services/Skills.js"
import { Projects } from "../services/Projects.js"
import { TaskLists } from "../services/TaskLists.js"
import { Tasks } from "../services/Tasks.js"
import { Threads } from "../services/Threads.js"
import { CliProfiles } from "../bridge/CliProfiles.js"
import { AgentTools } from "./AgentTools.js"
import { ArtifactComments } from "../services/ArtifactComments.js"
import { Artifacts } from "../services/Artifacts.js"
import { ArtifactCommentTools } from "./ArtifactCommentTools.js"
import { ArtifactTools } from "./ArtifactTools.js"
import { LabelTools } from "./LabelTools.js"
import { ListTools } from "./ListTools.js"
import { ProjectTools } from "./ProjectTools.js"
import { PromptTools } from "./PromptTools.js"
import { SkillTools } from "./SkillTools.js"
import { TaskTools } from "./TaskTools.js"
import { ThreadTools } from "./ThreadTools.js"
import type { CurrentPrincipal } from "../auth/Principal.js"
import type { ToolError } from "../../catalog/domain/Errors.js"
import type { Complete, DefaultProject, Implementation } from "./ToolImplementation.js"

export class UnknownTool extends Schema.TaggedError<UnknownTool>()("UnknownTool", { name: Schema.String }) {
  override get message() {
    return `Unknown tool: ${this.name}`
  }
}

const complete = <const Impls extends ReadonlyArray<Implementation>>(impls: Complete<ToolName, Impls>) => impls

/** Runs catalog tools by name, for the MCP endpoint and for in-process callers alike. */
export class ToolRunner extends Effect.Service<ToolRunner>()("trellis/ToolRunner", {
  effect: Effect.gen(function* () {
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
      ...(yield* ThreadTools)
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
        : Effect.provideService(implementation.run(args), Projects, projects)
    }

    return { tools: Catalog, call } as const
  }),
  dependencies: [Projects.Default, TaskLists.Default, Labels.Default, Tasks.Default, Artifacts.Default, ArtifactComments.Default, Threads.Default, CliProfiles.Default,
    ProjectAgents.Default, Scopes.Default, Prompts.Default, Skills.Default]
}) {}
