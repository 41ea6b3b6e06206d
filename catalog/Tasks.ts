import { Schema } from "effect"
import { ArtifactSummary } from "./domain/Artifact.js"
import { LabelId, ProjectId, TaskListId } from "./domain/Ids.js"
import { RichTextDocument } from "./domain/RichTextDocument.js"
import { TaskFileSummary } from "./domain/TaskFile.js"
import {
  ExternalLink,
  Link,
  LinkId,
  MAX_COMMENTS_ON_GET,
  MAX_EXTERNAL_LINKS,
  MAX_IDENTIFIERS_PER_CALL,
  MAX_TASK_NAME_LENGTH,
  Priority,
  TASK_ADDRESS_RULE
} from "./domain/Task.js"
import * as Tool from "./Tool.js"

export const BuiltInTaskTypeKey = Schema.Literal("task", "bug", "feature", "epic", "investigation", "chore", "idea")
export type BuiltInTaskTypeKey = typeof BuiltInTaskTypeKey.Type

export const TaskType = Schema.Struct({
  key: Schema.String,
  name: Schema.String.annotations({ description: "Display name" }),
  builtIn: Schema.Boolean
}).annotations({ identifier: "TaskType" })

export const ListTaskTypes = Tool.make("list_task_types", {
  title: "List task types",
  description:
    "Lists the task types available to the key: the built-in ones (task, bug, feature, epic, investigation, chore, idea) and any organization-scoped custom types. `taskTypeKey` on tasks takes one of the built-in keys.",
  input: Schema.Struct({}),
  output: Schema.Struct({ taskTypes: Schema.Array(TaskType) }),
  annotations: { readOnly: true, destructive: false, idempotent: true }
})

// ---- arguments -------------------------------------------------------------------------------

export const TaskAddress = Schema.String.pipe(Schema.minLength(1, { message: () => "must not be empty" })).annotations({
  description: `The task: ${TASK_ADDRESS_RULE}. A bare ref needs a project (projectId or the URL's ?project=).`
})

const TaskName = Schema.String.pipe(
  Schema.filter((name) => name.trim().length > 0, { message: () => "must not be blank" }),
  Schema.maxLength(MAX_TASK_NAME_LENGTH, { message: () => `must be at most ${MAX_TASK_NAME_LENGTH} characters` })
)

const Description = Schema.String.annotations({
  description: "Markdown, plain text, or serialized ProseMirror JSON (TipTap StarterKit nodes); stored as ProseMirror JSON"
})

const Status = Schema.String.annotations({
  description: "One of the project's statuses (default set: To Do, In Progress, In Review, Done, Canceled)"
})

// Years 1 to 9999: what both JavaScript dates and PostgreSQL timestamps hold.
const UnixTime = Schema.Number.pipe(
  Schema.between(-62135596800, 253402300799, { message: () => "must be a Unix timestamp in seconds, between years 1 and 9999" })
).annotations({ description: "Unix timestamp (seconds)" })

const UserRef = Schema.String.annotations({ description: "A user ID (user_…) of a member of the project" })
const AgentRef = Schema.String.annotations({ description: "A project agent ID (agent_…) of this project" })
const LabelRef = Schema.String.annotations({ description: "A label ID (label_…) or exact label name, ignoring case" })
const ListRef = Schema.String.annotations({ description: "A List ID (list_…) or bare List ref of the project (e.g. BACKLOG)" })

export const NewExternalLink = Schema.extend(Schema.Struct({ id: LinkId }), Link).annotations({ identifier: "NewExternalLink" })

// ---- results ---------------------------------------------------------------------------------

const UserProjection = Schema.Struct({ userId: Schema.String, name: Schema.String, email: Schema.String })
const AgentProjection = Schema.Struct({ projectAgentId: Schema.String, name: Schema.String })
const LabelProjection = Schema.Struct({ _id: LabelId, name: Schema.String, color: Schema.String })
const ListProjection = Schema.Struct({ listId: TaskListId, ref: Schema.String, name: Schema.String })

export const TaskSummary = Schema.Struct({
  taskId: Schema.String,
  refId: Schema.String.annotations({ description: "The task's ref, e.g. DEMO-12" }),
  name: Schema.String,
  taskTypeKey: Schema.String,
  status: Schema.String,
  priority: Priority,
  dueDate: Schema.NullOr(Schema.Number),
  assignee: Schema.NullOr(UserProjection).annotations({ description: "The accountable human owner" }),
  delegatedToAgent: Schema.NullOr(AgentProjection).annotations({ description: "The project agent executing the task" }),
  label: Schema.NullOr(LabelProjection),
  tags: Schema.Array(Schema.String),
  list: Schema.NullOr(ListProjection),
  parentId: Schema.NullOr(Schema.String),
  subtaskCount: Schema.Number,
  isArchived: Schema.Boolean,
  createdAt: Schema.String,
  updatedAt: Schema.String,
  externalLinks: Schema.optional(Schema.Array(ExternalLink))
}).annotations({ identifier: "TaskSummary" })

export const TaskComment = Schema.Struct({
  commentId: Schema.String,
  authorId: Schema.String,
  authorName: Schema.String,
  content: Schema.String.annotations({ description: "Markdown" }),
  createdAt: Schema.String
}).annotations({ identifier: "TaskComment" })

export const SubtaskSummary = Schema.Struct({
  taskId: Schema.String,
  refId: Schema.String,
  name: Schema.String,
  status: Schema.String,
  priority: Priority,
  subtaskCount: Schema.Number
}).annotations({ identifier: "SubtaskSummary" })

const TaskPath = Schema.NullOr(Schema.String).annotations({ description: "The task's page in the web app" })
const TaskUrl = Schema.NullOr(Schema.String).annotations({
  description: "The task's page in full: on TRELLIS_APP_URL if set, else on the URL this server was reached by"
})

export const TaskDetails = Schema.Struct({
  ...TaskSummary.fields,
  projectId: ProjectId,
  scopedRef: Schema.String.annotations({ description: "org-slug/REF-n, unique across organizations" }),
  taskPath: TaskPath,
  taskUrl: TaskUrl,
  description: Schema.NullOr(RichTextDocument),
  descriptionMarkdown: Schema.String,
  externalLinks: Schema.Array(ExternalLink),
  artifacts: Schema.Array(ArtifactSummary).annotations({
    description: "The task's document artifacts, oldest first (read one with get_task_artifact)"
  }),
  files: Schema.Array(TaskFileSummary).annotations({
    description: "Files attached to the task, oldest first, each with an absolute download URL (upload: POST /api/tasks/{taskId}/files)"
  }),
  comments: Schema.Array(TaskComment).annotations({ description: `The latest comments, at most ${MAX_COMMENTS_ON_GET}, oldest first` }),
  subtasks: Schema.Array(SubtaskSummary).annotations({ description: "Direct subtasks, in rank order" })
}).annotations({ identifier: "TaskDetails" })

const readOnly = { readOnly: true, destructive: false, idempotent: true } as const
const writes = { readOnly: false, destructive: false, idempotent: false } as const

// ---- read tools ------------------------------------------------------------------------------

export const ListTasks = Tool.make("list_tasks", {
  title: "List tasks",
  description:
    "Lists the project's tasks in rank order (top-level tasks and subtasks alike). `statuses` filters by status: omitted means " +
    "every status, [] means no tasks. `listId` keeps one List's tasks. Archived tasks are left out unless `includeArchived`. " +
    "`includeLinks` adds each task's externalLinks.",
  input: Schema.Struct({
    projectId: Tool.ProjectIdArgument,
    includeArchived: Schema.optional(Schema.Boolean.annotations({ default: false })),
    statuses: Schema.optional(Schema.Array(Status)),
    listId: Schema.optional(ListRef),
    includeLinks: Schema.optional(Schema.Boolean.annotations({ default: false }))
  }),
  output: Schema.Struct({ tasks: Schema.Array(TaskSummary) }),
  annotations: readOnly
})

export const GetTask = Tool.make("get_task", {
  title: "Get a task",
  description: "Returns one task with its description (ProseMirror JSON and Markdown), external links, artifact summaries, attached " +
    `files, the latest ${MAX_COMMENTS_ON_GET} comments and its direct subtasks (each with its own subtaskCount).`,
  input: Schema.Struct({ taskId: TaskAddress, projectId: Tool.ProjectIdForRefsArgument }),
  output: TaskDetails,
  annotations: readOnly
})

export const GetTasks = Tool.make("get_tasks", {
  title: "Get several tasks",
  description:
    `Returns up to ${MAX_IDENTIFIERS_PER_CALL} tasks by ID or ref, in the order asked. Active tasks are matched before archived ` +
    "ones. A task that cannot be found is reported in its place ({ identifier, error }) without failing the others.",
  input: Schema.Struct({
    identifiers: Schema.Array(TaskAddress).pipe(
      Schema.minItems(1, { message: () => "must name at least one task" }),
      Schema.maxItems(MAX_IDENTIFIERS_PER_CALL, { message: () => `must name at most ${MAX_IDENTIFIERS_PER_CALL} tasks` })
    ),
    projectId: Tool.ProjectIdForRefsArgument
  }),
  output: Schema.Struct({
    tasks: Schema.Array(Schema.Union(
      Schema.Struct({ identifier: Schema.String, task: TaskDetails }),
      Schema.Struct({ identifier: Schema.String, error: Schema.Struct({ code: Schema.String, message: Schema.String }) })
    ))
  }),
  annotations: readOnly
})

// ---- write tools -----------------------------------------------------------------------------

export const CreateTask = Tool.make("create_task", {
  title: "Create a task",
  description: "Creates a task (a subtask with `parentId`). Defaults: taskTypeKey task, priority None, status To Do, no List (the " +
    "Backlog view), tags []. Delegating (`delegatedToAgentId`) a task with no owner makes the caller its owner unless " +
    "`assigneeId: null` is passed. Returns the task's ID, ref, path and URL (path and URL are null when the app URL is not configured).",
  input: Schema.Struct({
    projectId: Tool.ProjectIdArgument,
    name: TaskName,
    description: Schema.optional(Description),
    taskTypeKey: Schema.optional(BuiltInTaskTypeKey),
    parentId: Schema.optional(TaskAddress.annotations({ description: "The parent task (ID or ref); makes this a subtask" })),
    listId: Schema.optional(ListRef),
    priority: Schema.optional(Priority),
    status: Schema.optional(Status),
    dueDate: Schema.optional(UnixTime),
    assigneeId: Schema.optional(Schema.NullOr(UserRef)),
    delegatedToAgentId: Schema.optional(Schema.NullOr(AgentRef)),
    tags: Schema.optional(Schema.Array(Schema.String)),
    label: Schema.optional(LabelRef),
    externalLinks: Schema.optional(
      Schema.Array(NewExternalLink).pipe(
        Schema.maxItems(MAX_EXTERNAL_LINKS, { message: () => `must hold at most ${MAX_EXTERNAL_LINKS} links` })
      )
    )
  }),
  removedArguments: { assignee: "the `assignee` object was removed: pass `assigneeId` (a user ID, or null for no owner)" },
  output: Schema.Struct({
    taskId: Schema.String,
    refId: Schema.NullOr(Schema.String),
    taskPath: TaskPath,
    taskUrl: TaskUrl
  }),
  annotations: writes
})

export const UpdateTask = Tool.make("update_task", {
  title: "Update a task",
  description: "Changes the given fields; omitted fields are kept and null clears an optional field (`taskTypeKey: null` resets it to " +
    "task; `tags` replaces the whole list). Clearing the delegation keeps the owner; changing the owner keeps the delegation; " +
    "delegating an ownerless task makes the caller its owner unless `assigneeId: null` is passed too.",
  input: Schema.Struct({
    taskId: TaskAddress,
    projectId: Tool.ProjectIdForRefsArgument,
    name: Schema.optional(TaskName),
    description: Schema.optional(Schema.NullOr(Description)),
    taskTypeKey: Schema.optional(Schema.NullOr(BuiltInTaskTypeKey)),
    priority: Schema.optional(Priority),
    status: Schema.optional(Status),
    dueDate: Schema.optional(Schema.NullOr(UnixTime)),
    assigneeId: Schema.optional(Schema.NullOr(UserRef)),
    delegatedToAgentId: Schema.optional(Schema.NullOr(AgentRef)),
    tags: Schema.optional(Schema.Array(Schema.String)),
    label: Schema.optional(Schema.NullOr(LabelRef))
  }),
  removedArguments: { assignee: "the `assignee` object was removed: pass `assigneeId` (a user ID, or null for no owner)" },
  output: Schema.Struct({ taskId: Schema.String }),
  annotations: { readOnly: false, destructive: false, idempotent: true }
})

export const UpdateTaskLink = Tool.make("update_task_link", {
  title: "Add, replace or remove a task's external link",
  description: "`upsert` adds the link with this `id`, or replaces it in place (keeping its createdAt); `delete` removes it and is " +
    `idempotent. A task holds at most ${MAX_EXTERNAL_LINKS} links. Returns the task's full list.`,
  input: Schema.Struct({
    taskId: TaskAddress,
    projectId: Tool.ProjectIdForRefsArgument,
    op: Schema.Literal("upsert", "delete"),
    id: LinkId,
    link: Schema.optional(Link.annotations({ description: "Required for upsert: the link, by kind" }))
  }),
  output: Schema.Struct({ taskId: Schema.String, externalLinks: Schema.Array(ExternalLink) }),
  annotations: { readOnly: false, destructive: false, idempotent: true }
})

export const CreateTaskComment = Tool.make("create_task_comment", {
  title: "Comment on a task",
  description: "Adds a Markdown comment to a task, as the caller.",
  input: Schema.Struct({
    taskId: TaskAddress,
    projectId: Tool.ProjectIdForRefsArgument,
    content: Schema.String.pipe(Schema.filter((text) => text.trim().length > 0, { message: () => "must not be blank" }))
      .annotations({ description: "Markdown, not blank" })
  }),
  output: Schema.Struct({ commentId: Schema.String, taskId: Schema.String }),
  annotations: writes
})

export const SearchTasks = Tool.make("search_tasks", {
  title: "Search tasks",
  description: "Full-text search over task names, refs and descriptions in the project, best matches first, one page at a time. " +
    "`archiveMode` searches active (default) or archived tasks. Filters: `filters.status`, `filters.assigneeId` (null: " +
    "tasks with no owner), `filters.delegatedToAgentId` (null: tasks not delegated), and `listId`. Pass `nextCursor` back " +
    "as `cursor` for the next page; it is null on the last page.",
  input: Schema.Struct({
    projectId: Tool.ProjectIdArgument,
    query: Schema.String.pipe(Schema.filter((text) => text.trim().length > 0, { message: () => "must not be blank" }))
      .annotations({ description: "Words to find; quoted phrases, OR and -word are understood" }),
    archiveMode: Schema.optional(Schema.Literal("active", "archived").annotations({ default: "active" })),
    filters: Schema.optional(Schema.Struct({
      status: Schema.optional(Status),
      assigneeId: Schema.optional(Schema.NullOr(UserRef).annotations({ description: "null: tasks with no owner" })),
      delegatedToAgentId: Schema.optional(Schema.NullOr(AgentRef).annotations({ description: "null: tasks not delegated" }))
    })),
    listId: Schema.optional(ListRef),
    limit: Schema.optional(
      Schema.Int.pipe(Schema.between(1, 50, { message: () => "must be an integer from 1 to 50" }))
        .annotations({ default: 20 })
    ),
    cursor: Schema.optional(Schema.NullOr(Schema.String).annotations({ description: "nextCursor of the previous page", default: null }))
  }),
  removedArguments: {
    "filters.assignee":
      "the legacy `filters.assignee` object is not accepted: pass `filters.assigneeId` (a user ID, or null for tasks with no owner)"
  },
  output: Schema.Struct({
    tasks: Schema.Array(TaskSummary),
    nextCursor: Schema.NullOr(Schema.String).annotations({ description: "Cursor of the next page; null on the last page" })
  }),
  annotations: readOnly
})

export const MoveTask = Tool.make("move_task", {
  title: "Move a task under another task or to the top level",
  description: "Makes the task a subtask of `parentId` (in the same project), or a top-level task with `parentId: null`. It goes last " +
    "among its new siblings. A task cannot move under itself or one of its own subtasks.",
  input: Schema.Struct({
    taskId: TaskAddress,
    parentId: Schema.NullOr(TaskAddress),
    projectId: Tool.ProjectIdForRefsArgument
  }),
  output: Schema.Struct({ taskId: Schema.String, parentId: Schema.NullOr(Schema.String) }),
  annotations: { readOnly: false, destructive: false, idempotent: true }
})

export const MoveTasksToList = Tool.make("move_tasks_to_list", {
  title: "Move tasks to a List",
  description: `Moves up to ${MAX_IDENTIFIERS_PER_CALL} tasks, each with its subtasks, to an active List of their project. A task and ` +
    "one of its own ancestors cannot be moved in the same call (the subtree already moves with its root).",
  input: Schema.Struct({
    taskIds: Schema.Array(TaskAddress).pipe(
      Schema.minItems(1, { message: () => "must name at least one task" }),
      Schema.maxItems(MAX_IDENTIFIERS_PER_CALL, { message: () => `must name at most ${MAX_IDENTIFIERS_PER_CALL} tasks` })
    ),
    listId: ListRef,
    projectId: Tool.ProjectIdForRefsArgument
  }),
  output: Schema.Struct({ listId: TaskListId, movedTaskIds: Schema.Array(Schema.String) }),
  annotations: { readOnly: false, destructive: false, idempotent: true }
})

export const DeleteTask = Tool.make("delete_task", {
  title: "Delete a task",
  description: "Soft-deletes a task; it is removed for good after 30 days. `delete_all` (default) deletes its subtasks too; " +
    "`keep_children` moves its direct subtasks up one level (to the deleted task's parent, or the top level).",
  input: Schema.Struct({
    taskId: TaskAddress,
    cascadeMode: Schema.optional(Schema.Literal("delete_all", "keep_children").annotations({ default: "delete_all" })),
    projectId: Tool.ProjectIdForRefsArgument
  }),
  output: Schema.Struct({ deletedTaskIds: Schema.Array(Schema.String) }),
  annotations: { readOnly: false, destructive: true, idempotent: false }
})
