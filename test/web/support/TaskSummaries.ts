import type { Task } from "../../../web/src/board/columns.js"

/** Task n as `list_tasks` returns it (DEMO-n, To Do, nothing set), with `fields` over it. */
export const taskSummary = (n: number, fields: Partial<Task> = {}): Task => ({
  taskId: `task_${n}`,
  refId: `DEMO-${n}`,
  name: `Task ${n}`,
  taskTypeKey: "task",
  status: "To Do",
  priority: "None",
  dueDate: null,
  assignee: null,
  delegatedToAgent: null,
  label: null,
  tags: [],
  list: null,
  parentId: null,
  subtaskCount: 0,
  isArchived: false,
  createdAt: "2026-11-27T00:00:00.000Z",
  updatedAt: "2026-11-27T00:00:00.000Z",
  ...fields
})
