import type { CliProfile } from "../../../catalog/domain/CliProfile.js"
import { describeError, type ResultOf } from "../lib/api"
import { navigate, taskPath } from "../lib/router"
import { useToolQuery } from "../board/taskTools"
import { delegationDraft } from "./delegation"
import { readLastChoice } from "./lastChoice"
import { NewThreadForm } from "./NewThreadForm"

/**
 * The thread a delegation in the web app offers (`?task=&agent=`): the form prefilled from the
 * agent's automation and the task, with Start and Don't start yet (the task stays delegated either
 * way). Loaded with its own chunk: it reads the task, which the thread pages never do.
 */
export const DelegationForm = ({ projectId, profiles, agents, taskRef, agentId }: {
  readonly projectId: string
  readonly profiles: ReadonlyArray<CliProfile>
  readonly agents: ResultOf<"list_project_agents">["agents"]
  readonly taskRef: string
  readonly agentId: string
}) => {
  const task = useToolQuery("get_task", { taskId: taskRef, projectId })
  const agent = agents.find((candidate) => candidate.projectAgentId === agentId)
  const back = () => navigate(taskPath(projectId, taskRef))
  if (task.isPending) return <p className="page-status" role="status">Loading {taskRef}…</p>
  if (task.isError) return <p className="page-status" role="alert">Cannot load {taskRef}: {describeError(task.error)}</p>
  if (agent === undefined) return <p className="page-status" role="alert">No project agent {agentId} in this project.</p>
  return (
    <>
      <p className="hint">
        {task.data.refId} is delegated to {agent.name}, which offers this thread. The task stays delegated if you do not start it.
      </p>
      <NewThreadForm
        projectId={projectId}
        profiles={profiles}
        agents={agents}
        spawnFrom=""
        initial={delegationDraft(agent, task.data, profiles, readLastChoice(projectId))}
        later={back}
      />
    </>
  )
}
