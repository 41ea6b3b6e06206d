import { CreateProjectAgent, ListProjectAgents, UpdateProjectAgent } from "./Agents.js"
import {
  CreateArtifactComment,
  ListArtifactComments,
  ReplyToArtifactComment,
  SendArtifactComments,
  SetArtifactCommentStatus
} from "./ArtifactComments.js"
import {
  CreateTaskArtifact,
  DeleteTaskArtifact,
  GetTaskArtifact,
  ListTaskArtifacts,
  MoveTaskArtifact,
  ReplaceInTaskArtifact,
  UpdateTaskArtifact
} from "./Artifacts.js"
import { CreateTaskLabel, DeleteTaskLabel, ListTaskLabels, UpdateTaskLabel } from "./Labels.js"
import { CreateTaskList, ListTaskLists, UpdateTaskList } from "./Lists.js"
import { ListProjects } from "./Projects.js"
import { CreatePrompt, ListPrompts, UpdatePrompt } from "./Prompts.js"
import { CreateSkill, DeleteSkill, GetSkill, ListSkills, LoadSkill, ReadSkillFile, UpdateSkill } from "./Skills.js"
import {
  CreateTask,
  CreateTaskComment,
  DeleteTask,
  GetTask,
  GetTasks,
  ListTasks,
  ListTaskTypes,
  MoveTask,
  MoveTasksToList,
  SearchTasks,
  UpdateTask,
  UpdateTaskLink
} from "./Tasks.js"
import { DiscardReviewComment, ListReviewComments, ResolveReviewComment, SaveReviewComment, SendReview } from "./ReviewComments.js"
import { GetThreadChanges, RefreshThreadChanges } from "./ThreadChanges.js"
import { CreateThread, GetThread, ListCliProfiles, ListThreadMessages, ListThreads, SendThreadMessage } from "./Threads.js"

export * as Tool from "./Tool.js"

/**
 * The toolsets a connection may narrow itself to (`?toolsets=`, `X-MCP-Toolsets`), each a run of
 * tools in SPEC's order; `Catalog` is their concatenation, so every tool is in exactly one.
 */
export const Toolsets = {
  projects: {
    description: "The projects the key reaches: where every project ID comes from (always served)",
    tools: [ListProjects]
  },
  lists: { description: "Lists (task lists)", tools: [ListTaskLists, CreateTaskList, UpdateTaskList] },
  labels: { description: "Task labels", tools: [ListTaskLabels, CreateTaskLabel, UpdateTaskLabel, DeleteTaskLabel] },
  tasks: {
    description: "Tasks and subtasks: list, search, read, write, move, links and comments",
    tools: [
      ListTasks,
      SearchTasks,
      GetTask,
      GetTasks,
      CreateTask,
      UpdateTask,
      UpdateTaskLink,
      MoveTask,
      MoveTasksToList,
      DeleteTask,
      ListTaskTypes,
      CreateTaskComment
    ]
  },
  agents: { description: "Project agents", tools: [ListProjectAgents, CreateProjectAgent, UpdateProjectAgent] },
  prompts: { description: "Prompts (slash commands)", tools: [ListPrompts, CreatePrompt, UpdatePrompt] },
  skills: {
    description: "Skills (versioned SKILL.md bundles)",
    tools: [ListSkills, GetSkill, CreateSkill, UpdateSkill, DeleteSkill, LoadSkill, ReadSkillFile]
  },
  artifacts: {
    description: "Task artifacts (documents) and their anchored comment threads",
    tools: [
      ListTaskArtifacts,
      GetTaskArtifact,
      CreateTaskArtifact,
      UpdateTaskArtifact,
      ReplaceInTaskArtifact,
      MoveTaskArtifact,
      DeleteTaskArtifact,
      ListArtifactComments,
      CreateArtifactComment,
      ReplyToArtifactComment,
      SetArtifactCommentStatus,
      SendArtifactComments
    ]
  },
  threads: {
    description: "Agent threads on connected machines, their messages and the machines (CLI profiles)",
    tools: [
      ListCliProfiles,
      GetThread,
      ListThreads,
      ListThreadMessages,
      GetThreadChanges,
      RefreshThreadChanges,
      CreateThread,
      SendThreadMessage
    ]
  },
  review: {
    description: "Review comments on a thread's changes: drafts, sending a review to the thread, listing and resolving them",
    tools: [ListReviewComments, SaveReviewComment, DiscardReviewComment, SendReview, ResolveReviewComment]
  }
} as const

export type ToolsetName = keyof typeof Toolsets
export const TOOLSET_NAMES = Object.keys(Toolsets).filter((name): name is ToolsetName => name in Toolsets)
/** Served whatever the connection asks for: without it no other tool can be given a project ID. */
export const ALWAYS_SERVED: ToolsetName = "projects"

/** Every tool, in the order `tools/list` and `docs/tools.md` present them (SPEC's order). */
export const Catalog = [
  ...Toolsets.projects.tools,
  ...Toolsets.lists.tools,
  ...Toolsets.labels.tools,
  ...Toolsets.tasks.tools,
  ...Toolsets.agents.tools,
  ...Toolsets.prompts.tools,
  ...Toolsets.skills.tools,
  ...Toolsets.artifacts.tools,
  ...Toolsets.threads.tools,
  ...Toolsets.review.tools
] as const

/** The toolset each tool belongs to. */
export const toolsetOf: ReadonlyMap<string, ToolsetName> = new Map(
  TOOLSET_NAMES.flatMap((toolset) => Toolsets[toolset].tools.map((tool) => [tool.name, toolset] as const))
)

export type Catalog = typeof Catalog
export type CatalogTool = Catalog[number]
export type ToolName = CatalogTool["name"]
