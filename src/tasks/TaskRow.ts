import type { SqlClient } from "@effect/sql"
import { Schema } from "effect"
import { TaskComment } from "../../catalog/Tasks.js"
import { LabelId, TaskListId } from "../../catalog/domain/Ids.js"
import { RichTextDocument } from "../../catalog/domain/RichTextDocument.js"
import { Link, Priority } from "../../catalog/domain/Task.js"

/** A task as read from the database, with its projections joined in. */
export const TaskRow = Schema.Struct({
  id: Schema.String,
  projectId: Schema.String,
  ref: Schema.String,
  name: Schema.String,
  taskTypeKey: Schema.String,
  status: Schema.String,
  priority: Priority,
  dueDate: Schema.NullOr(Schema.Number),
  assigneeId: Schema.NullOr(Schema.String),
  assigneeName: Schema.NullOr(Schema.String),
  assigneeEmail: Schema.NullOr(Schema.String),
  agentId: Schema.NullOr(Schema.String),
  agentName: Schema.NullOr(Schema.String),
  labelId: Schema.NullOr(LabelId),
  labelName: Schema.NullOr(Schema.String),
  labelColor: Schema.NullOr(Schema.String),
  listId: TaskListId,
  listRef: Schema.String,
  listName: Schema.String,
  parentId: Schema.NullOr(Schema.String),
  tags: Schema.Array(Schema.String),
  description: Schema.NullOr(RichTextDocument),
  subtaskCount: Schema.Number,
  archivedAt: Schema.NullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})
export type TaskRow = typeof TaskRow.Type

/** A task's external link as stored: the link itself is one jsonb value. */
export const StoredLink = Schema.Struct({
  taskId: Schema.String,
  id: Schema.String,
  link: Link,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})
export type StoredLink = typeof StoredLink.Type

/** A comment with its author's name: get_task's TaskComment, but the driver gives the time as a Date. */
export const TaskCommentRow = Schema.Struct({ ...TaskComment.fields, createdAt: Schema.DateFromSelf })
export type TaskCommentRow = typeof TaskCommentRow.Type

/** A jsonb parameter, passed as JSON text: node-postgres would turn a JS array into a PostgreSQL array literal. */
export const jsonb = (sql: SqlClient.SqlClient, value: unknown) => sql`${JSON.stringify(value)}::jsonb`
