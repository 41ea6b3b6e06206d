import { Schema } from "effect"
import { v7 as uuidv7 } from "uuid"

/**
 * A prefixed, time-sortable, random identifier (`proj_0192…`). The prefix makes an ID
 * passed where another kind belongs fail validation with a clear message.
 */
const makeId = <const Prefix extends string, const Brand extends string>(prefix: Prefix, brand: Brand) => {
  const schema = Schema.String.pipe(
    Schema.pattern(new RegExp(`^${prefix}_[0-9a-f]{32}$`), {
      message: () => `must be a ${brand} (${prefix}_ followed by 32 hex digits)`
    }),
    Schema.brand(brand),
    Schema.annotations({ description: `${brand} (${prefix}_…)` })
  )
  const decode = Schema.decodeSync(schema)
  const generate = () => decode(`${prefix}_${uuidv7().replaceAll("-", "")}`)
  return Object.assign(schema, { prefix, generate })
}

export const OrganizationId = makeId("org", "OrganizationId")
export type OrganizationId = typeof OrganizationId.Type

export const UserId = makeId("user", "UserId")
export type UserId = typeof UserId.Type

export const ProjectId = makeId("proj", "ProjectId")
export type ProjectId = typeof ProjectId.Type

export const ApiKeyId = makeId("key", "ApiKeyId")
export type ApiKeyId = typeof ApiKeyId.Type

export const TaskListId = makeId("list", "TaskListId")
export type TaskListId = typeof TaskListId.Type

export const LabelId = makeId("label", "LabelId")
export type LabelId = typeof LabelId.Type

export const TaskId = makeId("task", "TaskId")
export type TaskId = typeof TaskId.Type

export const TaskCommentId = makeId("comment", "TaskCommentId")
export type TaskCommentId = typeof TaskCommentId.Type

export const ProjectAgentId = makeId("agent", "ProjectAgentId")
export type ProjectAgentId = typeof ProjectAgentId.Type

export const CliProfileId = makeId("profile", "CliProfileId")
export type CliProfileId = typeof CliProfileId.Type

export const CliPathId = makeId("path", "CliPathId")
export type CliPathId = typeof CliPathId.Type

export const AgentSessionId = makeId("session", "AgentSessionId")
export type AgentSessionId = typeof AgentSessionId.Type

export const ChangeReportId = makeId("changes", "ChangeReportId")
export type ChangeReportId = typeof ChangeReportId.Type

export const ThreadId = makeId("thread", "ThreadId")
export type ThreadId = typeof ThreadId.Type

export const ThreadMessageId = makeId("msg", "ThreadMessageId")
export type ThreadMessageId = typeof ThreadMessageId.Type

export const InteractionId = makeId("interaction", "InteractionId")
export type InteractionId = typeof InteractionId.Type

export const PromptId = makeId("prompt", "PromptId")
export type PromptId = typeof PromptId.Type

export const SkillId = makeId("skill", "SkillId")
export type SkillId = typeof SkillId.Type
export const ArtifactId = makeId("artifact", "ArtifactId")
export type ArtifactId = typeof ArtifactId.Type

export const ArtifactCommentId = makeId("acomment", "ArtifactCommentId")
export type ArtifactCommentId = typeof ArtifactCommentId.Type

export const TaskFileId = makeId("file", "TaskFileId")
export type TaskFileId = typeof TaskFileId.Type

export const ReviewCommentId = makeId("review", "ReviewCommentId")
export type ReviewCommentId = typeof ReviewCommentId.Type
