import type { CliProfile } from "../../../catalog/domain/CliProfile.js"
import { MAX_TITLE_LENGTH } from "../../../catalog/domain/Thread.js"
import type { ProjectAgent } from "../../../catalog/Agents.js"
import { type Draft, emptyDraft, type LastChoice } from "./draft.js"

type Agent = typeof ProjectAgent.Type

/** What the prefilled thread needs of the task (`get_task`). */
export interface DelegatedTask {
  readonly taskId: string
  readonly refId: string | null
  readonly name: string
  readonly descriptionMarkdown: string
  readonly taskUrl: string | null
}

/** The agent's automation prompt, then the task: ref and name, its link, its description. */
export const delegationMessage = (agent: Agent, task: DelegatedTask): string => {
  const heading = task.refId === null ? `Task: ${task.name}` : `Task ${task.refId}: ${task.name}`
  return [
    agent.automation?.prompt?.trim() ?? "",
    [heading, task.taskUrl ?? ""].filter((line) => line !== "").join("\n"),
    task.descriptionMarkdown.trim()
  ].filter((part) => part !== "").join("\n\n")
}

/** A branch named after the task (`demo-12`): git accepts a ref's letters, digits and dash as they are. */
export const delegationBranch = (task: DelegatedTask): string => (task.refId ?? task.taskId).toLowerCase()

/**
 * The machine the thread goes to: one online that has the agent's runtime, else one online, else
 * the last one chosen here (the form then says it is offline and the thread waits in its queue).
 */
const machineFor = (profiles: ReadonlyArray<CliProfile>, cliType: string | undefined, last: LastChoice | undefined) => {
  const online = profiles.filter((profile) => profile.isOnline)
  const withRuntime = online.find((profile) =>
    cliType === undefined || profile.availableClis.length === 0 || profile.availableClis.some((cli) => cli.type === cliType)
  )
  return withRuntime ?? online[0] ?? profiles.find((profile) => profile.profileId === last?.profileId)
}

/**
 * The new thread a delegation in the web app offers (SPEC: automation only affects delegations made
 * in the web UI): the agent's automation settings, the task bound and named in the first message,
 * a worktree on a branch after the task's ref when the agent works in one.
 */
export const delegationDraft = (
  agent: Agent,
  task: DelegatedTask,
  profiles: ReadonlyArray<CliProfile>,
  last: LastChoice | undefined
): Draft => {
  const automation = agent.automation
  const machine = machineFor(profiles, automation?.cliType, last)
  const title = task.refId === null ? task.name : `${task.refId}: ${task.name}`
  return {
    ...emptyDraft("", last),
    title: title.length > MAX_TITLE_LENGTH ? `${title.slice(0, MAX_TITLE_LENGTH - 1)}…` : title,
    content: delegationMessage(agent, task),
    profileId: machine?.profileId ?? "",
    pathId: machine !== undefined && machine.profileId === last?.profileId ? last.pathId : "",
    cliType: automation?.cliType ?? last?.cliType ?? "",
    cliModel: automation?.cliModel ?? "",
    cliEffort: automation?.cliEffort ?? "",
    cliMode: automation?.mode ?? "",
    projectAgentId: agent.projectAgentId,
    taskId: task.refId ?? task.taskId,
    worktree: automation?.workspace === "worktree",
    branch: automation?.workspace === "worktree" ? delegationBranch(task) : ""
  }
}
