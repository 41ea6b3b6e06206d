import { CreateProjectAgent, ListProjectAgents, UpdateProjectAgent } from "./Agents.js"
import { CreateArtifactComment, ListArtifactComments, ReplyToArtifactComment, SetArtifactCommentStatus } from "./ArtifactComments.js"
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
import { CreateThread, GetThread, ListCliProfiles, ListThreadMessages, ListThreads, SendThreadMessage } from "./Threads.js"

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
  DeleteTaskLabel,
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
  CreateTaskComment,
  ListProjectAgents,
  CreateProjectAgent,
  UpdateProjectAgent,
  ListPrompts,
  CreatePrompt,
  UpdatePrompt,
  ListSkills,
  GetSkill,
  CreateSkill,
  UpdateSkill,
  DeleteSkill,
  LoadSkill,
  ReadSkillFile,
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
  ListCliProfiles,
  GetThread,
  ListThreads,
  ListThreadMessages,
  CreateThread,
  SendThreadMessage
] as const

export type Catalog = typeof Catalog
export type CatalogTool = Catalog[number]
export type ToolName = CatalogTool["name"]
