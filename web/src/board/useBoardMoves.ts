import { useCallback, useRef, useState } from "react"
import { describeError } from "../lib/api"
import { toolKey } from "../lib/queries"
import type { DropTarget } from "./BoardColumns"
import { applyChange, type Column, type Task } from "./columns"
import { nudge, type Placement, placementIn, reorder } from "./placement"
import { placeTask } from "./placeTask"
import { type TaskToolArgs, type TaskToolResult, useToolMutation } from "./taskTools"

/**
 * What the board does with a card moved by pointer or keyboard: to another List
 * (`move_tasks_to_list`), to another column (`update_task` with the column's value), and to its
 * place among the cards around it (the task order route). Each shows at once and is put back,
 * with the server's message, if refused.
 */
export const useBoardMoves = (projectId: string, tasksArgs: TaskToolArgs<"list_tasks">, columns: ReadonlyArray<Column>) => {
  const [failure, setFailure] = useState<string | undefined>(undefined)
  const [pending, setPending] = useState<ReadonlySet<string>>(new Set())
  const update = useToolMutation("update_task")
  const moveToList = useToolMutation("move_tasks_to_list")
  const client = update.client
  const key = toolKey("list_tasks", tasksArgs)

  const busy = (taskId: string) => setPending((before) => new Set(before).add(taskId))
  const settle = (taskId: string) => {
    setPending((before) => new Set([...before].filter((id) => id !== taskId)))
    void client.invalidateQueries({ queryKey: ["list_tasks"] })
  }
  /** Shows the tasks as `edit` leaves them; returns how to put them back. */
  const optimistic = (edit: (tasks: ReadonlyArray<Task>) => ReadonlyArray<Task>) => {
    const before = client.getQueryData<TaskToolResult<"list_tasks">>(key)
    if (before !== undefined) client.setQueryData<TaskToolResult<"list_tasks">>(key, { tasks: edit(before.tasks) })
    return () => {
      if (before !== undefined) client.setQueryData(key, before)
    }
  }
  const place = (task: Task, placement: Placement, undo: () => void) => {
    busy(task.taskId)
    void placeTask(task.taskId, placement).then((refusal) => {
      if (refusal !== undefined) {
        undo()
        setFailure(`${task.refId} was not reordered: ${refusal}`)
      }
      settle(task.taskId)
    })
  }

  const drop = (task: Task, target: DropTarget) => {
    setFailure(undefined)
    if (target._tag === "List") {
      if (target.listId === tasksArgs.listId || target.listId === task.list?.listId) return
      busy(task.taskId)
      moveToList.mutate({ projectId, taskIds: [task.taskId], listId: target.listId }, {
        onError: (error) => setFailure(`${task.refId} was not moved: ${describeError(error)}`),
        onSettled: () => settle(task.taskId)
      })
      return
    }
    const { change } = target.column
    const placement = placementIn(target.column, task, target.beforeTaskId)
    const moved = (each: Task) => each.taskId === task.taskId ? applyChange(each, change, target.column) : each
    const undo = optimistic((tasks) => {
      const changed = tasks.map(moved)
      return placement === undefined ? changed : reorder(changed, task.taskId, placement)
    })
    if (target.column.tasks.some((member) => member.taskId === task.taskId)) {
      if (placement !== undefined) place(task, placement, undo)
      return
    }
    busy(task.taskId)
    update.mutate({ taskId: task.taskId, projectId, ...change }, {
      onError: (error) => {
        undo()
        setFailure(`${task.refId} was not moved to ${target.column.title}: ${describeError(error)}`)
      },
      onSuccess: () => {
        if (placement !== undefined) place(task, placement, () => undefined)
      },
      onSettled: () => settle(task.taskId)
    })
  }

  // Cards are memoized: the keyboard handler stays the same function while the columns change.
  const current = useRef(columns)
  current.current = columns
  const nudgeCard = useCallback((task: Task, columnKey: string, direction: -1 | 1) => {
    const column = current.current.find((each) => each.key === columnKey)
    const placement = column === undefined ? undefined : nudge(column, task, direction)
    if (placement === undefined) return
    setFailure(undefined)
    place(task, placement, optimistic((tasks) => reorder(tasks, task.taskId, placement)))
  }, [key])

  return { drop, nudge: nudgeCard, pending, failure }
}
