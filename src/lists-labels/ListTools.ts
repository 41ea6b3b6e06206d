import { Effect } from "effect"
import { CreateTaskList, ListTaskLists, UpdateTaskList } from "../../catalog/Lists.js"
import { CurrentProject } from "../platform/auth/Principal.js"
import { type TaskListRecord, TaskLists } from "./TaskLists.js"
import * as Implement from "../platform/mcp/ToolImplementation.js"

const summary = (list: TaskListRecord) => ({
  listId: list.id,
  ref: list.ref,
  name: list.name,
  color: list.color,
  defaultViewMode: list.defaultViewMode,
  defaultBoardGroupBy: list.defaultBoardGroupBy,
  isSystem: list.isSystem,
  createdAt: list.createdAt.toISOString(),
  updatedAt: list.updatedAt.toISOString()
})

export const ListTools = Effect.gen(function*() {
  const taskLists = yield* TaskLists
  return [
    Implement.scoped(ListTaskLists, ({ archived, cursor, limit, query }) =>
      Effect.gen(function*() {
        const page = yield* taskLists.list(yield* CurrentProject, { archived, cursor, limit, query })
        return { lists: page.lists.map(summary), nextCursor: page.nextCursor }
      })),
    Implement.scoped(CreateTaskList, ({ color, defaultBoardGroupBy, defaultViewMode, name, ref }) =>
      Effect.gen(function*() {
        const input = { name, ref, color, defaultViewMode, defaultBoardGroupBy }
        const list = yield* taskLists.create(yield* CurrentProject, input)
        return { listId: list.id }
      })),
    Implement.scoped(UpdateTaskList, ({ color, defaultBoardGroupBy, defaultViewMode, listId, name, ref }) =>
      Effect.gen(function*() {
        const patch = { name, ref, color, defaultViewMode, defaultBoardGroupBy }
        const list = yield* taskLists.update(yield* CurrentProject, listId, patch)
        return { listId: list.id }
      }))
  ] as const
})
