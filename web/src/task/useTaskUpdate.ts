import { useState } from "react"
import { describeError } from "../lib/api"
import { type TaskToolArgs, useToolMutation } from "../board/taskTools"

export type TaskChange = Omit<TaskToolArgs<"update_task">, "taskId" | "projectId">

/**
 * Saves a change of one task with `update_task`, then reads the task (and the board) again; a
 * refusal is kept to show beside the fields, with the server's message (it names the field).
 */
export const useTaskUpdate = (projectId: string, taskId: string) => {
  const update = useToolMutation("update_task")
  const [failure, setFailure] = useState<string | undefined>(undefined)
  /** `onSaved` runs once the server has taken the change (a delegation then offers its thread). */
  const save = (change: TaskChange, onSaved?: () => void) => {
    setFailure(undefined)
    update.mutate({ taskId, projectId, ...change }, {
      onError: (error) => setFailure(describeError(error)),
      ...(onSaved === undefined ? {} : { onSuccess: onSaved }),
      onSettled: () => {
        void update.client.invalidateQueries({ queryKey: ["get_task"] })
        void update.client.invalidateQueries({ queryKey: ["list_tasks"] })
      }
    })
  }
  return { save, saving: update.isPending, failure }
}
