import type { Schema } from "effect"
import {
  CreateArtifactComment,
  ListArtifactComments,
  ReplyToArtifactComment,
  SendArtifactComments,
  SetArtifactCommentStatus
} from "../../../catalog/ArtifactComments.js"
import { GetTaskArtifact, UpdateTaskArtifact } from "../../../catalog/Artifacts.js"
import { ListThreads } from "../../../catalog/Threads.js"
import { makeToolHooks } from "../lib/queries"

/** The tools of the artifact page, loaded with it. */
const tools = {
  get_task_artifact: GetTaskArtifact,
  update_task_artifact: UpdateTaskArtifact,
  list_artifact_comments: ListArtifactComments,
  create_artifact_comment: CreateArtifactComment,
  reply_to_artifact_comment: ReplyToArtifactComment,
  set_artifact_comment_status: SetArtifactCommentStatus,
  send_artifact_comments: SendArtifactComments,
  list_threads: ListThreads
} as const

export type ArtifactToolResult<N extends keyof typeof tools> = Schema.Schema.Type<(typeof tools)[N]["output"]>
export type Artifact = ArtifactToolResult<"get_task_artifact">
export type CommentThread = ArtifactToolResult<"list_artifact_comments">["threads"][number]

export const { useToolMutation, useToolQuery } = makeToolHooks(tools)
