import { Schema } from "effect"
import { TaskListId } from "./domain/Ids.js"
import {
  BoardGroupBy,
  LIST_REF_RULE,
  ListColor,
  MAX_ACTIVE_LISTS,
  MAX_LIST_NAME_LENGTH,
  MAX_LIST_REF_LENGTH,
  ViewMode
} from "./domain/TaskList.js"
import * as Tool from "./Tool.js"

const ListName = Schema.String.pipe(
  Schema.minLength(1, { message: () => "must not be empty or blank" }),
  Schema.maxLength(MAX_LIST_NAME_LENGTH, { message: () => `must be at most ${MAX_LIST_NAME_LENGTH} characters` })
).annotations({
  title: "List name",
  description: `1–${MAX_LIST_NAME_LENGTH} characters, trimmed; unique in the project ignoring case`
})

const ListRef = Schema.String.pipe(
  Schema.pattern(new RegExp(`^[A-Za-z][A-Za-z0-9_-]{0,${MAX_LIST_REF_LENGTH - 1}}$`), {
    message: () => `must be ${LIST_REF_RULE}`
  })
).annotations({
  title: "List ref",
  description: `${LIST_REF_RULE}; stored uppercase (any case accepted); unique in the project. BACKLOG and ARCHIVED are reserved.`
})

const ListIdOrRef = Schema.String.pipe(Schema.minLength(1, { message: () => "must not be empty" })).annotations({
  title: "List ID or ref",
  description: "The List's raw ID (list_…) or its bare ref in this project (e.g. BACKLOG, DESIGN; any case)"
})

const Color = ListColor.annotations({ description: "A color of the List palette" })

const DefaultViewMode = ViewMode.annotations({ description: "How the List opens: `list` or `board`" })

const DefaultBoardGroupBy = BoardGroupBy.annotations({
  description:
    "What a board view groups columns by. Applies only when defaultViewMode is `board` (then defaults to `status`); ignored otherwise."
})

export const TaskList = Schema.Struct({
  listId: TaskListId,
  ref: Schema.String.annotations({ description: "Uppercase ref, unique in the project; usable wherever a listId is taken" }),
  name: Schema.String,
  color: Schema.NullOr(ListColor),
  defaultViewMode: Schema.NullOr(ViewMode).annotations({ description: "null: inherits the project's default view" }),
  defaultBoardGroupBy: Schema.NullOr(BoardGroupBy).annotations({ description: "Set only when defaultViewMode is `board`" }),
  isSystem: Schema.Boolean.annotations({ description: "System Lists (the Backlog) cannot be updated" }),
  createdAt: Schema.String.annotations({ description: "ISO 8601 timestamp" }),
  updatedAt: Schema.String.annotations({ description: "ISO 8601 timestamp" })
}).annotations({ identifier: "TaskList" })

const ListResult = Schema.Struct({ listId: TaskListId })

export const ListTaskLists = Tool.make("list_task_lists", {
  title: "List task Lists",
  description: "Lists the project's Lists in the project's List order, the system Backlog (ref BACKLOG) first, one page at a time. " +
    "By default only active Lists; `archived: true` lists archived ones instead. `query` keeps the Lists whose name or ref " +
    "contains it (ignoring case), still in List order. Pass `nextCursor` back as `cursor` for the next page; it is null on the last page.",
  input: Schema.Struct({
    projectId: Tool.ProjectIdArgument,
    archived: Schema.optional(Schema.Boolean.annotations({
      description: "false (default): active Lists; true: archived Lists",
      default: false
    })),
    query: Schema.optional(Schema.String.annotations({
      description: "Case-insensitive text to find in the List's name or ref; blank means no filter"
    })),
    limit: Schema.optional(
      Schema.Int.pipe(
        Schema.between(1, 50, { message: () => "must be an integer from 1 to 50" })
      ).annotations({ title: "Page size", description: "Page size, 1–50", default: 20 })
    ),
    cursor: Schema.optional(
      Schema.NullOr(Schema.String).annotations({
        description: "nextCursor from the previous page; null or omitted for the first page",
        default: null
      })
    )
  }),
  output: Schema.Struct({
    lists: Schema.Array(TaskList),
    nextCursor: Schema.NullOr(Schema.String).annotations({ description: "Cursor of the next page; null on the last page" })
  }),
  annotations: { readOnly: true, destructive: false, idempotent: true }
})

export const CreateTaskList = Tool.make("create_task_list", {
  title: "Create a task List",
  description: "Creates a List at the end of the project's List order. Without `ref`, one is derived from the name (uppercase, " +
    "other characters turned into -, cut to 20, made unique with -2, -3…). A project has at most " +
    `${MAX_ACTIVE_LISTS} active Lists besides the system Backlog. Needs List management permission (project role member or admin).`,
  input: Schema.Struct({
    projectId: Tool.ProjectIdArgument,
    name: ListName,
    ref: Schema.optional(ListRef),
    color: Schema.optional(Schema.NullOr(Color)),
    defaultViewMode: Schema.optional(
      Schema.NullOr(DefaultViewMode).annotations({
        description: "`list` or `board`; null or omitted: inherit the project's default view"
      })
    ),
    defaultBoardGroupBy: Schema.optional(Schema.NullOr(DefaultBoardGroupBy))
  }),
  output: ListResult,
  annotations: { readOnly: false, destructive: false, idempotent: false }
})

export const UpdateTaskList = Tool.make("update_task_list", {
  title: "Update a task List",
  description: "Changes a List's name, ref, color or default view. Pass at least one of name, ref, color, defaultViewMode; omitted " +
    "fields are kept (renaming keeps the ref). `color: null` clears the color; `defaultViewMode: null` makes the List " +
    "inherit the project's default view. To change defaultBoardGroupBy, pass it with `defaultViewMode: \"board\"`. " +
    "System Lists (the Backlog) cannot be updated; archiving, unarchiving and deleting Lists are not available. " +
    "Needs List management permission (project role member or admin).",
  input: Schema.Struct({
    projectId: Tool.ProjectIdArgument,
    listId: ListIdOrRef,
    name: Schema.optional(ListName),
    ref: Schema.optional(ListRef),
    color: Schema.optional(Schema.NullOr(Color).annotations({ description: "A color of the List palette; null clears it" })),
    defaultViewMode: Schema.optional(
      Schema.NullOr(DefaultViewMode).annotations({
        description: "`list` or `board`; null: inherit the project's default view"
      })
    ),
    defaultBoardGroupBy: Schema.optional(Schema.NullOr(DefaultBoardGroupBy))
  }),
  output: ListResult,
  annotations: { readOnly: false, destructive: false, idempotent: true }
})
