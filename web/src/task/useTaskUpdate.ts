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
  const save = (change: TaskChange) => {
    setFailure(undefined)
    update.mutate({ taskId, projectId, ...change }, {
      onError: (error) => setFailure(describeError(error)),
      onSettled: () => {
        void update.client.invalidateQueries({ queryKey: ["get_task"] })
        void update.client.invalidateQueries({ queryKey: ["list_tasks"] })
      }
    })
  }
  return { save, saving: update.isPending, failure }
}
